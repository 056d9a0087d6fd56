"""AttentionPolicy (--policy attn): tokens, masking, determinism, and a relation a bag of words cannot learn."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import make_policy
from searchgym.agents.attention_policy import AttentionPolicy
from searchgym.agents.attn_tokens import N_NAME_SLOTS, NAME_WORD, NUM_WORD, SEG, Tokenizer, parse_text

TEXT = ("You are generalist_0 in a team of 2: ...\n"
        "Question: How many years ago was Triopre founded?\n"
        "Blackboard:\n"
        "[round 2] generalist_1: The current date is 2035-08-22 (Wednesday).\n"
        'Step 1: knowledge_base(entity="Triopre")\n'
        "Triopre (city)\n"
        "- founded year: 1790\n"
        'Step 2: calculator(expression="2035 - 1790")\n'
        "245\n")
CANDS = ['answer("245")  <- calculator: 2035 - 1790', 'knowledge_base(entity="Triopre")  <- name from the question',
         'answer("1790")  <- Triopre | founded year | a number | via knowledge_base', "wait()  <- let teammates work",
         "", ""]
MASK = [1, 1, 1, 0, 0, 0]


def test_parse_text_splits_question_notes_and_step_blocks():
    question, notes, steps, actions = parse_text(TEXT)
    assert question == "How many years ago was Triopre founded?"
    assert notes == [(SEG["note"], "generalist_1 The current date is 2035-08-22 (Wednesday).", 8)]
    # recency: 0 for the latest step's block, 1 for the one before
    assert steps == [(SEG["action"], 'knowledge_base(entity="Triopre")', 1), (SEG["result"], "Triopre (city)", 1),
                     (SEG["result"], "- founded year: 1790", 1),
                     (SEG["action"], 'calculator(expression="2035 - 1790")', 0), (SEG["result"], "245", 0)]
    assert actions == {'knowledge_base(entity="Triopre")', 'calculator(expression="2035 - 1790")'}


def test_names_and_numbers_share_a_slot_wherever_they_recur():
    toks = Tokenizer()(TEXT, CANDS)
    ctx = toks.context.ints
    assert ctx[0][2] == SEG["header"]  # the member's own name, generalist_0
    words = ["how", "many", "years", "ago", "was", "triopre", "founded"]
    assert len(ctx) > len(words)
    triopre = ctx[6]
    assert triopre[0] == NAME_WORD and triopre[1] == 1  # the first name of the observation: NAME_1
    # the same slot in the facts and in a candidate's provenance
    assert (ctx[ctx[:, 1] == 1][:, 0] == NAME_WORD).all() and (ctx[:, 1] == 1).sum() == 3
    cand = toks.candidates[2].ints
    assert 1 in cand[:, 1]
    # numbers: 1790 in the facts and in candidate 2 is one NUM slot, other than 2035's
    num_1790 = {int(r[1]) for r in cand if r[0] == NUM_WORD}
    assert len(num_1790) == 1 and next(iter(num_1790)) > N_NAME_SLOTS
    # the exact-match channel: "founded" of candidate 2 occurs in the question and in the facts
    founded = [i for i, r in enumerate(cand) if r[0] not in (NAME_WORD, NUM_WORD)]
    assert toks.candidates[2].match[founded].max(0).tolist() == [1.0, 1.0]
    assert toks.taken.tolist() == [0, 1, 0, 0, 0, 0]  # knowledge_base(entity="Triopre") was step 1
    assert len(toks.candidates[4].ints) == 0


def test_masked_logits_distribution_and_values(make_obs):
    policy = make_policy("attn", seed=0, dim=16, heads=2, hidden=16)
    assert isinstance(policy, AttentionPolicy)
    obs = make_obs(TEXT, CANDS[:4], MASK[:4])
    logits, values = policy([obs, obs])
    masked = ~torch.tensor(obs["action_mask"], dtype=torch.bool)
    assert logits.shape == (2, 6) and values.shape == (2,)
    assert torch.all(logits[:, masked] == torch.finfo(logits.dtype).min)
    actions, log_probs, _ = policy.act([obs] * 2000, torch.Generator().manual_seed(0))
    assert set(actions.tolist()) <= {0, 1, 2} and torch.isfinite(log_probs).all()
    # no gradient reaches a masked candidate's score: the loss on admissible ones is finite and backprops
    log_p, entropy, _ = policy.evaluate([obs], torch.tensor([2]))
    (log_p.sum() + entropy.sum()).backward()
    assert all(torch.isfinite(p.grad).all() for p in policy.parameters() if p.grad is not None)


def test_same_seed_same_weights_and_outputs_without_touching_global_rng(make_obs):
    state = torch.random.get_rng_state()
    a, b = make_policy("attn", seed=3, dim=16, heads=2), make_policy("attn", seed=3, dim=16, heads=2)
    c = make_policy("attn", seed=4, dim=16, heads=2)
    assert torch.equal(torch.random.get_rng_state(), state)
    obs = make_obs(TEXT, CANDS[:4], MASK[:4])
    assert torch.equal(a([obs])[0], b([obs])[0])
    assert not torch.equal(a([obs])[0], c([obs])[0])
    # a batch is the same as its observations one by one (chunking and padding change nothing)
    many = [make_obs(TEXT, CANDS[:k], [1] * k) for k in (1, 2, 3)] * 15
    together = a(many)[0]
    alone = torch.cat([a([o])[0] for o in many])
    torch.testing.assert_close(together[together > -1e30], alone[alone > -1e30], atol=1e-5, rtol=1e-5)


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="unknown option\\(s\\) for the attn policy: width; accepted: dim"):
        make_policy("attn", width=3)
    with pytest.raises(ValueError, match="dim must be a multiple of heads"):
        make_policy("attn", dim=10, heads=4)


# A relation named differently in the question and in the fact, and two people: only a model that
# learns the synonym AND matches the asked name (anonymised, new at test time) finds the answer.
SYNONYMS = [("Where was {x} born?", "birthplace"), ("Who is the chief executive of {x}?", "ceo"),
            ("Which company makes {x}?", "made by"), ("Which school did {x} attend?", "alma mater")]


def _name(rng: np.random.Generator) -> str:
    return "".join(rng.choice(list("bcdfgklmnprstvz"))) .upper() + "".join(
        rng.choice(list("aeiou")) + rng.choice(list("bcdfgklmnprstvz")) for _ in range(2))


def _task(rng: np.random.Generator, make_obs) -> tuple[dict, int]:
    q, rel = SYNONYMS[rng.integers(len(SYNONYMS))]
    other = SYNONYMS[(SYNONYMS.index((q, rel)) + 1 + rng.integers(len(SYNONYMS) - 1)) % len(SYNONYMS)][1]
    x, y = _name(rng), _name(rng)
    options = [(x, rel), (x, other), (y, rel), (y, other)]
    order = rng.permutation(4)
    cands = [f'answer("{_name(rng)}")  <- {options[i][0]} | {options[i][1]} | a name | via knowledge_base' for i in order]
    return make_obs(f"Question: {q.format(x=x)}", cands, n=4), int(np.flatnonzero(order == 0)[0])


def _fit(policy, data, epochs: int, lr: float) -> None:
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(0)
    obs, target = [d[0] for d in data], torch.tensor([d[1] for d in data])
    for _ in range(epochs):
        for idx in torch.randperm(len(data), generator=generator).split(32):
            logits, _ = policy([obs[i] for i in idx])
            loss = torch.nn.functional.cross_entropy(logits, target[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def _accuracy(policy, data) -> float:
    with torch.no_grad():
        logits, _ = policy([d[0] for d in data])
    return float((logits.argmax(-1) == torch.tensor([d[1] for d in data])).float().mean())


def test_learns_relation_synonyms_and_names_a_bag_of_words_cannot(make_obs):
    rng = np.random.default_rng(0)
    train = [_task(rng, make_obs) for _ in range(256)]
    test = [_task(rng, make_obs) for _ in range(128)]  # every name is new
    # without the hand-written features (their word overlap would match the names): attention alone
    attn = make_policy("attn", seed=0, dim=32, heads=2, hidden=32, hop_features=False)
    bag = make_policy("hash", seed=0, dim=32, hidden=32, overlap_features=False)
    _fit(attn, train, epochs=25, lr=3e-3)
    _fit(bag, train, epochs=25, lr=3e-3)
    assert _accuracy(attn, test) >= 0.9
    # names are dropped from the bag of words: the asked person's fact and the other's look the same
    assert _accuracy(bag, test) <= 0.65
