"""CandidatePolicy: masking (never sampled, no gradient), act/evaluate, devices, hash encoder, learning."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import (
    AdvantageConfig,
    LossConfig,
    Step,
    Trajectory,
    compute_advantages,
    make_policy,
    policy_loss,
    resolve_device,
)
from searchgym.agents.encoder_hash import HashEncoder, hashed_ngrams
from searchgym.agents.policy import LexicalOverlap, question_of

QUESTION = 'Role: searcher.\nQuestion: Which company makes Zorb 3000?\nStep 1: web_search(query="Zorb 3000")'
CANDS = [
    'answer("Vexa Corp")  <- Zorb 3000 is made by Vexa Corp. [web_search]',
    'knowledge_base(entity="Qqqzzz Wwwyyy")',  # masked below; its words appear nowhere else
    'web_search(query="Vexa Corp")',
    'calculator(expression="1200 + 3400")',
    "current_time()",
]
MASK = [1, 0, 1, 1, 1]


@pytest.fixture
def obs(make_obs):
    return make_obs(QUESTION, CANDS, MASK)


def test_forward_shapes_and_masked_logits(obs):
    policy = make_policy("hash", seed=0, dim=16, hidden=16)
    logits, values = policy([obs, obs])
    assert logits.shape == (2, 6) and values.shape == (2,)
    masked = ~torch.tensor(obs["action_mask"], dtype=torch.bool)
    assert torch.all(logits[:, masked] == torch.finfo(logits.dtype).min)
    assert torch.isfinite(logits).all() and torch.isfinite(values).all()
    log_probs, entropy = policy.distribution(logits)
    assert torch.all(log_probs.exp()[:, masked] == 0.0)
    assert torch.isfinite(entropy).all() and (entropy > 0).all()


def test_masked_candidates_never_sampled_in_10k_draws(obs):
    policy = make_policy("hash", seed=0, dim=16, hidden=16)
    with torch.no_grad():  # uniform over the admissible candidates
        policy.score_head[-1].weight.zero_()
    actions, log_probs, _ = policy.act([obs] * 10_000, torch.Generator().manual_seed(0))
    counts = np.bincount(actions.numpy(), minlength=6)
    assert counts[1] == 0 and counts[5] == 0  # masked candidate and the "" padding
    assert np.all(np.abs(counts[[0, 2, 3, 4]] - 2500) < 250)  # 4 admissible, each ~1/4
    torch.testing.assert_close(log_probs, torch.full((10_000,), float(np.log(0.25))))
    with torch.no_grad():  # even when the masked candidate would dominate, it is never drawn
        policy.score_head[-1].bias.fill_(0.0)
        policy.score_head[-1].weight.normal_(0.0, 50.0)
    actions, _, _ = policy.act([obs] * 10_000, torch.Generator().manual_seed(1))
    assert not np.isin(actions.numpy(), [1, 5]).any()


def test_masked_candidates_get_exactly_zero_gradient(obs):
    policy = make_policy("hash", seed=0, dim=16, hidden=16)
    e_obs, e_cand, mask, overlap, about = policy._embed([obs])
    e_cand = e_cand.detach().requires_grad_(True)
    logits = policy.score(e_obs.detach(), e_cand, mask, overlap, about)
    log_probs, entropy = policy.distribution(logits)
    (log_probs[0, 0] + entropy.sum()).backward()
    assert torch.all(e_cand.grad[~mask] == 0.0)
    assert e_cand.grad[mask].abs().sum() > 0


def test_masked_candidate_words_get_no_encoder_gradient(obs):
    policy = make_policy("hash", seed=0, dim=16, hidden=16)
    only_masked = set(hashed_ngrams(CANDS[1], 2**14)) - {
        i
        for text in [QUESTION] + [c for j, c in enumerate(CANDS) if j != 1]
        for i in hashed_ngrams(text, 2**14)
    }
    assert len(only_masked) >= 3  # "qqqzzz", "wwwyyy", "qqqzzz wwwyyy" hash to buckets no other text uses
    log_probs, entropy, values = policy.evaluate([obs], torch.tensor([0]))
    (log_probs.sum() + entropy.sum() + values.sum()).backward()
    grad = policy.encoder.bag.weight.grad
    assert torch.all(grad[sorted(only_masked)] == 0.0)
    assert grad.abs().sum() > 0


def test_act_greedy_and_evaluate_agree(make_task):
    rng = np.random.default_rng(3)
    batch = [make_task(rng)[0] for _ in range(8)]
    policy = make_policy("hash", seed=1, dim=16, hidden=16)
    actions, log_probs, values = policy.act(batch, torch.Generator().manual_seed(0))
    new_log_probs, _, new_values = policy.evaluate(batch, actions)
    torch.testing.assert_close(new_log_probs.detach(), log_probs)
    torch.testing.assert_close(new_values.detach(), values)
    greedy, _, _ = policy.act(batch, greedy=True)
    torch.testing.assert_close(greedy, policy(batch)[0].argmax(-1))
    with pytest.raises(ValueError, match="Generator"):
        policy.act(batch)


def test_seeds_are_reproducible_and_leave_global_rng_alone(obs):
    state = torch.get_rng_state()
    a, b = make_policy("hash", seed=7, dim=8, hidden=8), make_policy("hash", seed=7, dim=8, hidden=8)
    assert torch.equal(torch.get_rng_state(), state)
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)
    c = make_policy("hash", seed=8, dim=8, hidden=8)
    assert not torch.equal(a.encoder.bag.weight, c.encoder.bag.weight)
    draws = [a.act([obs] * 50, torch.Generator().manual_seed(3))[0] for _ in range(2)]
    assert torch.equal(draws[0], draws[1])


def test_bad_observations_get_clear_errors(obs, make_obs):
    policy = make_policy("hash", seed=0, dim=8, hidden=8)
    with pytest.raises(ValueError, match="keys text, candidates, action_mask"):
        policy([{"text": "q"}])
    with pytest.raises(ValueError, match="no admissible action"):
        policy([make_obs("q", ["a", "b"], [0, 0])])
    bad = dict(obs, action_mask=np.ones(3, dtype=np.int8))
    with pytest.raises(ValueError, match="3 entries but there are 6 candidates"):
        policy([bad])
    with pytest.raises(ValueError, match="empty observation batch"):
        policy([])


def test_batches_with_different_candidate_counts_are_padded(obs, make_obs):
    policy = make_policy("hash", seed=0, dim=8, hidden=8)
    short = make_obs("Question: q", ["current_time()"], [1], n=2)
    logits, _ = policy([short, obs])
    assert logits.shape == (2, 6)
    assert torch.all(logits[0, 1:] == torch.finfo(logits.dtype).min)


def test_factory_errors_and_devices():
    with pytest.raises(ValueError, match=r"accepted: \['attn', 'hash', 'hf', 'minilm'\]"):
        make_policy("bert9000")
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto") == torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="accepted"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
            resolve_device("cuda")


def test_cpu_placement(obs):
    policy = make_policy("hash", device="cpu", seed=0, dim=8, hidden=8)
    assert all(p.device.type == "cpu" for p in policy.parameters())
    actions, log_probs, values = policy.act([obs], torch.Generator().manual_seed(0))
    assert actions.device.type == log_probs.device.type == values.device.type == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_placement_and_cpu_generator(obs):
    policy = make_policy("hash", device="cuda", seed=0, dim=8, hidden=8)
    assert all(p.device.type == "cuda" for p in policy.parameters())
    actions, log_probs, values = policy.act([obs] * 64, torch.Generator().manual_seed(0))
    assert actions.device.type == log_probs.device.type == values.device.type == "cuda"
    cpu = make_policy("hash", device="cpu", seed=0, dim=8, hidden=8)
    cpu_actions, _, _ = cpu.act([obs] * 64, torch.Generator().manual_seed(0))
    assert torch.equal(actions.cpu(), cpu_actions)  # same seed, same draws on either device
    new_lp, _, _ = policy.evaluate([obs] * 64, actions)
    new_lp.sum().backward()


def test_hash_encoder_is_stable_lowercased_and_uses_bigrams():
    # crc32("u:vexa") % 2**14 = 2381: a literal, so switching to Python's salted hash() fails here
    assert hashed_ngrams("Vexa Corp", 2**14) == hashed_ngrams("vexa CORP", 2**14) == [2381, 9038, 2923]
    enc = HashEncoder(dim=4)
    emb = enc(["", "Vexa Corp"])
    assert torch.all(emb[0] == 0.0)
    assert enc.token_ids("Vexa Corp") is enc.token_ids("Vexa Corp")  # cached


def test_lexical_overlap_reads_the_question_line():
    assert question_of(QUESTION) == " Which company makes Zorb 3000?"
    assert question_of("no question marker") == "no question marker"
    lex = LexicalOverlap()
    # candidate words: web_search, query, vexa, corp; question words: which company makes zorb 3000
    assert lex.features(QUESTION, 'web_search(query="Vexa Corp")')[:3] == [0.0, 0.0, 0.0]
    # "zorb 3000" shared: 2 of 3 unigrams, 1 of 2 bigrams; all 3 unigrams appear somewhere in the text
    # the stem features ignore names and numbers: "find" shares no stem with the question
    feats = lex.features(QUESTION, 'find "Zorb 3000"')
    # "find" is no question stem (position 1.0 = none); "Zorb" is the question's name (share 1.0)
    assert feats == pytest.approx([2 / 3, 1 / 2, np.log(3), 2 / 3, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0])
    # question stems {which, compa, makes}; candidate stems {made, makes}: 1 shared -> 1/3 and 1/2
    feats = lex.features(QUESTION, 'answer("Vexa") <- Zorb 3000 | made by | "Vexa makes Zorb"')
    assert feats[4:6] == pytest.approx([1 / 3, 1 / 2])
    assert lex.features(QUESTION, "") == [0.0] * LexicalOverlap.n_features
    # an answer whose fact is about the question's subject, found through the first question stem
    about = lex.features(QUESTION, 'answer("Vexa")  <- Zorb 3000 | makes | a company | via web_search')
    hop = lex.features(QUESTION, 'answer("Tarsk")  <- Vexa | headquartered in | a city | via web_search')
    # first shared stem "compa" (a company) is the 2nd of the question stems (which, compa, makes); names
    # Vexa, Zorb: 1 of 2 asked; the hop shares no stem (1.0) and no name
    assert about[7:] == pytest.approx([1 / 3, 1 / 2, 1.0]) and hop[7:] == pytest.approx([1.0, 0.0, 0.0])
    taken = QUESTION + '\nStep 1: web_search(query="Zorb 3000")\n[1] Zorb 3000 ...'
    assert lex.features(taken, 'web_search(query="Zorb 3000")  <- name from the question')[6] == 1.0
    assert lex.features(taken, 'knowledge_base(entity="Zorb 3000")  <- name from the question')[6] == 0.0
    plain = make_policy("hash", seed=0, dim=8, hidden=8, overlap_features=False, fact_context=False)
    assert plain.score_head[0].in_features == 3 * 8
    facts_only = make_policy("hash", seed=0, dim=8, hidden=8, overlap_features=False)
    assert facts_only.score_head[0].in_features == 5 * 8


def test_policy_learns_which_answer_the_question_asks_for(make_task):
    """Grouped GRPO + PPO on one-step synthetic tasks: held-out greedy accuracy goes from chance to ~1."""
    rng = np.random.default_rng(0)
    # the synthetic answers differ only by invented names, so names must be hashed here
    policy = make_policy("hash", seed=0, dim=32, hidden=64, drop_names=False)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    held_out = [make_task(rng) for _ in range(200)]
    held_obs, held_answer = [o for o, _ in held_out], np.array([c for _, c in held_out])

    def accuracy() -> float:
        return float(np.mean(policy.act(held_obs, greedy=True)[0].numpy() == held_answer))

    before = accuracy()
    group_size = 4
    for _ in range(25):
        tasks = [make_task(rng) for _ in range(16)]
        obs = [o for o, _ in tasks for _ in range(group_size)]
        actions, log_probs, values = policy.act(obs, gen)
        groups = [
            [
                Trajectory(
                    [
                        Step(
                            o,
                            int(actions[j]),
                            float(log_probs[j]),
                            float(values[j]),
                            float(actions[j] == c),
                            True,
                            o["action_mask"],
                        )
                    ]
                )
                for j in range(i * group_size, (i + 1) * group_size)
            ]
            for i, (o, c) in enumerate(tasks)
        ]
        result = compute_advantages("grpo", groups, AdvantageConfig())
        adv = torch.tensor(result.flat_advantages(), dtype=torch.float32)
        for _ in range(2):
            new_log_probs, entropy, _ = policy.evaluate(obs, actions)
            loss, _ = policy_loss(
                new_log_probs, log_probs, adv, entropy, torch.tensor(result.seq_ids()), LossConfig()
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    assert before < 0.4
    assert accuracy() > 0.9


def test_lexical_overlap_memos_give_the_features_of_a_fresh_instance():
    """Question-only features are kept per (question, candidate) and reused in later observations
    of the same question: the rows equal those a fresh instance computes for that observation."""
    later = QUESTION + '\nStep 1: web_search(query="Zorb 3000")\n[1] Zorb 3000 is made by Vexa Corp.'
    candidates = ('web_search(query="Zorb 3000")', 'answer("Vexa Corp")  <- Zorb 3000 | made by | a company', "")
    kept = LexicalOverlap()
    kept.observation_features(QUESTION, candidates)
    reused = kept.observation_features(later, candidates)
    fresh = LexicalOverlap().observation_features(later, candidates)
    assert np.array_equal(reused, fresh)
    assert reused[0, 6] == 1.0 and fresh[0, 6] == 1.0  # already taken: read from the later text, not the memo
    assert reused[0, 3] == 1.0 and reused[1, 3] > kept.observation_features(QUESTION, candidates)[1, 3]
