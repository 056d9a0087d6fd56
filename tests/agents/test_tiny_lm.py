"""The tiny-LM pieces: model shapes and folders, reader transcripts as SFT data (loss on the
actions only), the SFT loss with a shared prefix, and SFT that fits its data."""

from __future__ import annotations

import pytest
import searchgym
import torch
from searchgym.action_types import ParseError
from searchgym.actions import parse_action
from searchgym.tools import TOOL_NAMES
from searchgym.agents.lm_sft import SFTConfig, masked_lm_loss, reader_transcripts, train_sft, turn_rows
from searchgym.agents.llm_kv_generate import _common_prefix
from searchgym.agents.llm_policy import load_model, offline_tokenizer
from searchgym.agents.tiny_lm import TINY_SHAPES, new_tiny_model, parameter_count, save_model_folder, tiny_config


@pytest.fixture(scope="module")
def tokenizer():
    return offline_tokenizer()


@pytest.fixture(scope="module")
def transcripts(tokenizer):
    env = searchgym.make("SearchQA-v0", world_size="tiny", action_mode="text", tool_format="hermes").unwrapped
    tasks = [t.id for t in env.tasks.tasks("train")[:6]]
    return reader_transcripts(env, tasks, tokenizer)


def test_shapes_have_the_tokenizers_vocabulary_and_grow(tokenizer) -> None:
    sizes = {}
    for name in ("l2-w128", "l4-w256"):
        config = tiny_config(name, tokenizer)
        assert (config.num_hidden_layers, config.hidden_size) == TINY_SHAPES[name]
        assert config.vocab_size == len(tokenizer)
        sizes[name] = parameter_count(new_tiny_model(name, tokenizer))
    assert sizes["l2-w128"] < sizes["l4-w256"]
    with pytest.raises(ValueError, match="accepted: l2-w128"):
        tiny_config("l3-w100", tokenizer)


def test_a_saved_folder_loads_as_the_same_model(tokenizer, tmp_path) -> None:
    model = new_tiny_model("l2-w128", tokenizer, seed=1)
    save_model_folder(model, tokenizer, tmp_path / "m")
    loaded, loaded_tokenizer = load_model(str(tmp_path / "m"), "cpu", "float32")
    ids = torch.tensor([tokenizer.encode("<tool_call>\n{\"name\": \"web_search\"}")])
    assert torch.allclose(model(ids).logits, loaded(ids).logits, atol=1e-6)
    assert loaded_tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False) == \
        tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    assert torch.equal(new_tiny_model("l2-w128", tokenizer, seed=1).lm_head.weight, model.lm_head.weight)


def test_transcripts_score_exactly_the_readers_actions(tokenizer, transcripts) -> None:
    assert all(t.success for t in transcripts)  # the reader solves these train tasks
    for t in transcripts:
        ids, mask = t.token_ids, t.loss_mask
        runs, current = [], []
        for token, m in zip(ids, mask):
            if m:
                current.append(token)
            elif current:
                runs.append(current)
                current = []
        runs += [current] if current else []
        texts = [tokenizer.decode(r) for r in runs]
        assert texts and not any(isinstance(parse_action(text, "hermes", TOOL_NAMES), ParseError) for text in texts)
        assert texts[-1].startswith("<answer>")
        assert "<|im_start|>" not in "".join(texts)  # chat markup and tool results are not scored


def test_the_shared_prefix_loss_equals_the_full_one(tokenizer, transcripts) -> None:
    model = new_tiny_model("l2-w128", tokenizer)
    rows, masks = [t.token_ids for t in transcripts[:3]], [t.loss_mask for t in transcripts[:3]]
    prefix = _common_prefix(rows, 200)
    with torch.no_grad():
        full, n_full = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id)
        shared, n_shared = masked_lm_loss(model, [r[200:] for r in rows], [m[200:] for m in masks],
                                          tokenizer.pad_token_id, prefix)
    assert n_full == n_shared > 0
    assert abs(float(full) - float(shared)) < 1e-4


def test_the_context_loss_adds_the_weighted_next_token_loss_of_the_unscored_tokens(tokenizer, transcripts) -> None:
    model = new_tiny_model("l2-w128", tokenizer)
    rows, masks = [t.token_ids for t in transcripts[:2]], [t.loss_mask for t in transcripts[:2]]
    with torch.no_grad():
        actions, n = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id)
        both, n_both = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id, context_weight=0.5)
        shared, _ = masked_lm_loss(model, [r[200:] for r in rows], [m[200:] for m in masks],
                                   tokenizer.pad_token_id, _common_prefix(rows, 200), context_weight=0.5)
        # by hand: every real token after the first whose loss mask is 0, predicted from the one before
        losses = []
        for r, m in zip(rows, masks):
            logits = model(torch.tensor([r])).logits[0, :-1]
            keep = torch.tensor([not x for x in m[1:]])
            losses.append(torch.nn.functional.cross_entropy(logits[keep], torch.tensor(r[1:])[keep], reduction="none"))
        context = torch.cat(losses).mean()
    assert n == n_both > 0
    assert abs(float(both) - (float(actions) + 0.5 * float(context))) < 1e-4
    # with a shared prefix the context term covers the rows after it only: a different, still finite value
    assert torch.isfinite(shared) and float(shared) != float(both)
    for bad in (-1.0, float("nan"), float("inf"), "0.5", True):  # inf: every loss inf, every gradient NaN
        with pytest.raises(ValueError, match="SFTConfig.context_weight must be a finite number >= 0"):
            SFTConfig(context_weight=bad)


def test_sft_fits_its_transcripts(tokenizer, transcripts) -> None:
    model = new_tiny_model("l2-w128", tokenizer)
    rows, masks = [t.token_ids for t in transcripts], [t.loss_mask for t in transcripts]
    with torch.no_grad():
        before, _ = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id)
    stats = train_sft(model, transcripts, tokenizer.pad_token_id, SFTConfig(epochs=8, batch_size=3, lr=3e-3))
    with torch.no_grad():
        after, _ = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id)
    assert stats["shared_prefix_tokens"] > 100 and stats["sft_steps"] == 16
    assert float(after) < 0.6 * float(before)
    with pytest.raises(ValueError, match="no transcripts"):
        train_sft(model, [], tokenizer.pad_token_id, SFTConfig())


def test_turn_rows_cut_each_episode_after_each_action(transcripts) -> None:
    episode = transcripts[0]
    rows = turn_rows([episode])
    assert [r.turn for r in rows] == list(range(len(rows))) and len(rows) >= 2
    assert sum(sum(r.loss_mask) for r in rows) == sum(episode.loss_mask)  # every action scored once
    for row in rows:
        n = len(row.token_ids)
        assert row.token_ids == episode.token_ids[:n] and row.loss_mask[-1] == 1
        assert all(m <= e for m, e in zip(row.loss_mask, episode.loss_mask))
    model_config = SFTConfig(epochs=1, batch_size=2, per_turn=True)
    assert model_config.per_turn


@pytest.fixture(scope="module")
def guided_transcripts(tokenizer):
    env = searchgym.make("SearchQA-v0", world_size="tiny", action_mode="text", tool_format="hermes").unwrapped
    tasks = [t.id for t in env.tasks.tasks("train")[:6]]
    return reader_transcripts(env, tasks, tokenizer, guided=True)


def test_guided_transcripts_give_each_action_token_its_allowed_ids(transcripts, guided_transcripts) -> None:
    for plain, guided in zip(transcripts, guided_transcripts):
        assert guided.token_ids == plain.token_ids and guided.loss_mask == plain.loss_mask
        assert sorted(guided.allowed) == [j for j, m in enumerate(plain.loss_mask) if m]
        assert all(guided.token_ids[j] in ids for j, ids in guided.allowed.items())
        choices = [ids for ids in guided.allowed.values() if len(ids) > 1]
        assert choices and len(choices) < len(guided.allowed) / 2  # most action tokens are forced


def test_the_guided_sft_loss_is_a_softmax_over_the_allowed_ids(tokenizer, guided_transcripts) -> None:
    model = new_tiny_model("l2-w128", tokenizer)
    t = guided_transcripts[0]
    j = next(j for j, ids in sorted(t.allowed.items()) if len(ids) > 1)
    mask = [0] * len(t.token_ids)
    mask[j] = 1
    with torch.no_grad():
        loss, count = masked_lm_loss(model, [t.token_ids], [mask], tokenizer.pad_token_id, allowed=[t.allowed])
        logits = model(input_ids=torch.tensor([t.token_ids[:j]])).logits[0, -1]
    ids = list(t.allowed[j])
    expected = -torch.log_softmax(logits[ids], dim=-1)[ids.index(t.token_ids[j])]
    assert count == 1 and abs(float(loss) - float(expected)) < 1e-4


def test_guided_sft_learns_the_readers_choices(tokenizer, guided_transcripts) -> None:
    model = new_tiny_model("l2-w128", tokenizer)
    rows = [t.token_ids for t in guided_transcripts]
    masks = [[int(len(t.allowed.get(j, ())) > 1) for j in range(len(t.token_ids))] for t in guided_transcripts]
    allowed = [t.allowed for t in guided_transcripts]
    with torch.no_grad():
        before, n = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id, allowed=allowed)
    stats = train_sft(model, guided_transcripts, tokenizer.pad_token_id,
                      SFTConfig(epochs=8, batch_size=3, lr=3e-3, guided=True))
    with torch.no_grad():
        after, _ = masked_lm_loss(model, rows, masks, tokenizer.pad_token_id, allowed=allowed)
    assert n > 0 and stats["sft_steps"] == 16 and float(after) < 0.5 * float(before)
    with pytest.raises(ValueError, match="guided=True"):
        train_sft(model, [transcripts_without_allowed(t) for t in guided_transcripts], tokenizer.pad_token_id,
                  SFTConfig(guided=True))


def transcripts_without_allowed(t):
    return type(t)(t.task_id, t.token_ids, t.loss_mask, t.success)


def test_the_same_seed_trains_the_same_weights_when_the_clock_does_not_cut_the_run(transcripts, tokenizer,
                                                                                    monkeypatch) -> None:
    """The schedule took the clock's share of max_seconds whenever it was ahead of the steps', at step 0
    always: two runs of the same seed that the clock never cut ended with other weights (a reviewer's
    `recipe tiny-lm --smoke`: 3 different files in 13 runs). Two clocks that tick differently now give
    the same weights."""
    import itertools

    from searchgym.agents import lm_sft

    def trained(tick: float) -> list[torch.Tensor]:
        clock = itertools.count(start=1000.0, step=tick)
        monkeypatch.setattr(lm_sft.time, "perf_counter", lambda: next(clock))
        model = new_tiny_model("l2-w128", tokenizer, seed=0)
        train_sft(model, transcripts, tokenizer.pad_token_id,
                  SFTConfig(epochs=2, batch_size=3, lr=3e-3, max_seconds=1000.0, seed=0))
        return [p.detach().clone() for p in model.parameters()]

    first, second = trained(0.001), trained(0.37)
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))
