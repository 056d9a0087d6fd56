"""The per-choice accuracy of a guided LM on reader transcripts: each choice is scored from the
position before it, labelled by kind, and an episode counts only when every choice is right."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from searchgym.agents.lm_choices import KINDS, choice_accuracy, choice_kind
from searchgym.agents.lm_sft import reader_transcripts
from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig
from searchgym.suites import make_env


class Predicts(torch.nn.Module):
    """A stand-in LM whose logits at position j put all weight on ids[j + shift] (shift 1: the next
    token, always right; shift 0: the current one, the off-by-one a wrong alignment would give)."""

    def __init__(self, shift: int, vocab_size: int) -> None:
        super().__init__()
        self.shift, self.vocab_size = shift, vocab_size
        self.anchor = torch.nn.Parameter(torch.zeros(1))

    def forward(self, input_ids, attention_mask=None):
        n, width = input_ids.shape
        logits = torch.zeros((n, width, self.vocab_size))
        target = torch.roll(input_ids, -self.shift, dims=1) if self.shift else input_ids
        logits.scatter_(2, target.unsqueeze(-1), 1.0)
        return SimpleNamespace(logits=logits)


@pytest.fixture(scope="module")
def transcripts_and_tokenizer():
    recipe = Recipe(RecipeConfig(), "unused")
    tokenizer = recipe.tokenizer()
    env = make_env(recipe.suite, "dev").unwrapped
    tasks = [t.id for t in env.tasks.tasks("dev")][:6]
    transcripts = reader_transcripts(env, tasks, tokenizer, RecipeConfig().rollout_config(), seed=0, guided=True)
    return [t for t in transcripts if t.success], tokenizer


def test_a_model_that_predicts_the_next_token_gets_every_choice_right(transcripts_and_tokenizer):
    transcripts, tokenizer = transcripts_and_tokenizer
    result = choice_accuracy(Predicts(shift=1, vocab_size=len(tokenizer)), transcripts, tokenizer, batch_size=4)
    assert result["transcripts"] == len(transcripts) > 0
    assert result["episodes"] == 1.0
    assert all(result[k] == 1.0 for k in KINDS if result["counts"][k])
    assert result["counts"]["act"] >= len(transcripts) and result["counts"]["answer"] >= 1
    wrong = choice_accuracy(Predicts(shift=0, vocab_size=len(tokenizer)), transcripts, tokenizer, batch_size=3)
    assert wrong["counts"] == result["counts"]  # the same choices, whatever the batch
    assert wrong["episodes"] < 1.0 and wrong["act"] < 1.0


def test_the_kinds_follow_the_stream(transcripts_and_tokenizer):
    transcripts, tokenizer = transcripts_and_tokenizer
    first = transcripts[0]
    choices = sorted(k for k, a in first.allowed.items() if len(a) > 1)
    kinds = [choice_kind(first.token_ids, k, first.allowed[k], tokenizer) for k in choices]
    assert kinds[0] == "act" and tokenizer.decode([first.token_ids[choices[0]]]) == "<tool_call>"
    assert kinds[1] == "tool"
    last_act = max(i for i, kind in enumerate(kinds) if kind == "act")
    assert tokenizer.decode([first.token_ids[choices[last_act]]]) == "<answer>"
    assert set(kinds[last_act + 1:]) <= {"answer"}  # after <answer>, every choice is the answer's
