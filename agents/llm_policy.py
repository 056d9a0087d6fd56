"""A text-generating LLM policy: a Hugging Face causal LM that writes its own tool calls. Three pieces:

- :func:`load_model` builds ``(model, tokenizer)`` from a local path or a hub id already in the Hugging Face
  cache (nothing is downloaded unless ``SEARCHGYM_ALLOW_DOWNLOAD=1``), or a randomly initialised model from
  a preset (``"random:tiny"`` for tests, ``"random:qwen2-0.5b"`` for the GPU check) with a tokenizer that
  needs no download (:func:`offline_tokenizer`: a shipped byte-level BPE with a Qwen/Hermes chat template).
- :class:`ChatCodec` turns chat messages into token ids as the chat template does, *incrementally*: the
  first prompt (system + user, ``tools=``), then after each assistant turn the end-of-turn marker, the
  next observation and the generation prompt; a rollout is one growing token stream, so training scores
  exactly the generated tokens (no retokenisation drift).
- :class:`LLMPolicy` generates a batch of turns (``transformers`` ``generate`` under a forked RNG the
  caller seeds, the "kv" backend, or vLLM: experimental, untested without a GPU, weights pushed by
  :meth:`LLMPolicy.sync_vllm`); a row stops at ``</tool_call>`` or ``</answer>`` (:class:`StopOnStrings`)
  or at the per-turn token cap.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from .pretrained import causal_lm, from_pretrained, resolve_dtype

STOP_STRINGS = ("</tool_call>", "</answer>")
#: "transformers" (``generate``, re-reads the conversation each turn), "kv" (a cache kept across
#: turns and a shared system-prompt prefix: :mod:`searchgym.agents.llm_kv_generate`), "vllm".
GENERATION_BACKENDS = ("transformers", "kv", "vllm")
#: Set to 1 to let ``load_model`` download a hub id that is not on disk (off by default: no run-time downloads).
ALLOW_DOWNLOAD_ENV = "SEARCHGYM_ALLOW_DOWNLOAD"
CHAT_SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<answer>", "</answer>")

#: A ChatML-like template for tokenizers that have none (system/user/assistant/tool roles and
#: a ``tools`` list rendered as JSON lines in the system turn).
SIMPLE_CHAT_TEMPLATE = (
    "{% if messages and messages[0]['role'] == 'system' %}{% set first = 1 %}{% else %}{% set first = 0 %}{% endif %}"
    "{% if first == 1 or tools %}<|im_start|>system{{ '\\n' }}"
    "{% if first == 1 %}{{ messages[0]['content'] }}{% endif %}"
    "{% if tools %}{{ '\\n# Tools' }}{% for tool in tools %}{{ '\\n' }}{{ tool | tojson }}{% endfor %}{% endif %}"
    "<|im_end|>{{ '\\n' }}{% endif %}"
    "{% for message in messages[first:] %}"
    "<|im_start|>{{ message['role'] }}{{ '\\n' }}{{ message['content'] }}<|im_end|>{{ '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant{{ '\\n' }}{% endif %}"
)

PRESETS: dict[str, dict[str, Any]] = {
    # tests and --cpu-smoke: a few hundred thousand parameters
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "intermediate_size": 128, "max_position_embeddings": 8192},
    # the Qwen2-0.5B shape (random weights): the GPU check's realistic size
    "qwen2-0.5b": {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
                   "intermediate_size": 4864, "max_position_embeddings": 32768, "vocab_size": 151936,
                   "rope_theta": 1_000_000.0, "tie_word_embeddings": True},
}


def offline_tokenizer() -> Any:
    """The shipped byte-level BPE chat tokenizer (no download; :mod:`searchgym.agents.llm_tokenizer`):
    every text round-trips, and its Qwen-style template renders ``tools`` and ``tool_calls``."""
    from .llm_tokenizer import chat_tokenizer

    return prepare_tokenizer(chat_tokenizer())


def prepare_tokenizer(tokenizer: Any) -> Any:
    """A pad token (eos if missing), left padding for generation, a chat template if missing."""
    if getattr(tokenizer, "chat_template", None) is None:
        tokenizer.add_special_tokens({"additional_special_tokens": list(CHAT_SPECIAL_TOKENS)})
        tokenizer.chat_template = SIMPLE_CHAT_TEMPLATE
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    tokenizer.padding_side = "left"
    return tokenizer


def random_model(preset: str, tokenizer: Any, seed: int = 0, **overrides: Any) -> Any:
    """A randomly initialised Qwen2 causal LM of a preset shape (vocab >= the tokenizer's)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    if preset not in PRESETS:
        raise ValueError(f"unknown model preset {preset!r}; accepted: {', '.join(PRESETS)}")
    shape = {**PRESETS[preset], **overrides}
    shape["vocab_size"] = max(int(shape.get("vocab_size", 0)), len(tokenizer))
    config = Qwen2Config(**shape, pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                         bos_token_id=tokenizer.eos_token_id)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return Qwen2ForCausalLM(config)


def load_model(spec: str, device: str | torch.device = "cpu", dtype: str | torch.dtype | None = "auto",
               seed: int = 0) -> tuple[Any, Any]:
    """``(model, tokenizer)`` for ``"random:<preset>"`` or a path / hub id (``from_pretrained``)."""
    from transformers import AutoTokenizer

    device = torch.device(device)
    torch_dtype = resolve_dtype(dtype, device)
    if spec.startswith("random:"):
        tokenizer = offline_tokenizer()
        model = random_model(spec.removeprefix("random:"), tokenizer, seed)
    else:
        local = not os.environ.get(ALLOW_DOWNLOAD_ENV)  # weights come from disk: training is offline
        try:
            tokenizer = prepare_tokenizer(from_pretrained(AutoTokenizer, spec, local_files_only=local))
            model = causal_lm(spec, torch_dtype, local_files_only=local)
        except OSError as exc:
            raise ValueError(
                f"model {spec!r} is not on disk ({type(exc).__name__}). searchgym downloads nothing: download it "
                f"once (`hf download {spec}`, or `huggingface-cli download {spec}`) into the Hugging Face cache, or "
                f"pass a local folder with config.json and weights; set {ALLOW_DOWNLOAD_ENV}=1 to let transformers "
                "download it now") from exc
        if model.get_input_embeddings().num_embeddings < len(tokenizer):
            model.resize_token_embeddings(len(tokenizer))
    model = model.to(device=device, dtype=torch_dtype)
    disable_dropout(model)
    model.eval()
    return model, tokenizer


def disable_dropout(model: torch.nn.Module) -> None:
    """RL wants no dropout (the behaviour and the trained policy must be the same function), even
    in train mode, which gradient checkpointing needs."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    config = getattr(model, "config", None)
    for name in ("attention_dropout", "hidden_dropout", "resid_pdrop", "embd_pdrop", "attn_pdrop", "dropout"):
        if config is not None and isinstance(getattr(config, name, None), float):
            setattr(config, name, 0.0)


def enable_checkpointing(model: torch.nn.Module) -> None:
    """Activation (gradient) checkpointing under either transformers name; active in train mode."""
    enable = getattr(model, "activation_checkpointing_enable", None) or model.gradient_checkpointing_enable
    enable()
    model.train()


# ------------------------------------------------------------------------------ chat codec
_MARK = "\u2063assistant-turn\u2063"


class ChatCodec:
    """Token ids of a conversation, built turn by turn with the tokenizer's chat template."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        probe = [{"role": "user", "content": "u"}, {"role": "assistant", "content": _MARK}]
        rendered = self.render(probe, add_generation_prompt=False)
        if _MARK not in rendered:
            raise ValueError("the chat template does not render assistant content verbatim; cannot build turns")
        self.turn_end_text = rendered[rendered.rindex(_MARK) + len(_MARK):]
        self.turn_end_ids = self.encode(self.turn_end_text)
        self._probe = probe

    def render(self, messages: Sequence[dict], tools: Sequence[dict] | None = None,
               add_generation_prompt: bool = True) -> str:
        return self.tokenizer.apply_chat_template(list(messages), tools=list(tools) if tools else None,
                                                  add_generation_prompt=add_generation_prompt, tokenize=False)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False)) if text else []

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    def prompt_ids(self, messages: Sequence[dict], tools: Sequence[dict] | None = None) -> list[int]:
        """The opening messages (system, user) with ``tools`` and the generation prompt."""
        return self.encode(self.render(messages, tools, add_generation_prompt=True))

    def close_turn_ids(self, generated: Sequence[int]) -> list[int]:
        """The end-of-turn marker after a generated turn (minus its first token if the model wrote it)."""
        ids = list(self.turn_end_ids)
        if generated and ids and generated[-1] == ids[0]:
            ids = ids[1:]
        return ids

    def message_ids(self, role: str, content: str) -> list[int]:
        """The ids that follow a closed assistant turn: the ``role`` message and the generation prompt."""
        full = self.render([*self._probe, {"role": role, "content": content}], add_generation_prompt=True)
        after = full[full.rindex(_MARK) + len(_MARK):]
        if not after.startswith(self.turn_end_text):
            raise ValueError("the chat template renders an assistant turn differently when a message follows it")
        return self.encode(after[len(self.turn_end_text):])


# ------------------------------------------------------------------------------- generation
@dataclass
class Generation:
    """One generated turn: the new token ids (what gets the gradient), their text and why it ended."""

    token_ids: list[int]
    text: str
    finish: str  # "stop" (a stop string), "eos", or "length" (the per-turn cap)
    allowed: list[tuple[int, ...]] | None = None  # guided decoding: the ids allowed at each new token
    log_probs: list[float] | None = None  # guided decoding: each token's log-prob when it was drawn


@dataclass
class SamplingConfig:
    temperature: float = 1.0
    top_p: float = 1.0
    stop: tuple[str, ...] = STOP_STRINGS

    def __post_init__(self) -> None:
        if not self.temperature >= 0 or not 0 < self.top_p <= 1:
            raise ValueError(f"need temperature >= 0 and 0 < top_p <= 1; got {self.temperature}, {self.top_p}")


def _stopping_base():
    from transformers import StoppingCriteria

    return StoppingCriteria


class StopOnStrings(_stopping_base()):
    """Stop a row once the decoded tail of its new tokens contains a stop string (per-row bools)."""

    def __init__(self, tokenizer: Any, stop: Sequence[str], prompt_length: int, tail_tokens: int = 24) -> None:
        self.tokenizer, self.stop, self.prompt_length, self.tail = tokenizer, tuple(stop), prompt_length, tail_tokens

    def __call__(self, input_ids: torch.Tensor, scores: Any = None, **kwargs: Any) -> torch.Tensor:
        tails = input_ids[:, self.prompt_length:][:, -self.tail:].tolist()
        texts = self.tokenizer.batch_decode(tails, skip_special_tokens=False)
        return torch.tensor([any(s in t for s in self.stop) for t in texts], dtype=torch.bool,
                            device=input_ids.device)


def _vocab_limit(limit: int):
    from transformers import LogitsProcessor

    class VocabLimit(LogitsProcessor):
        """Never sample ids the tokenizer cannot decode (a model whose vocab is larger)."""

        def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
            scores[:, limit:] = -float("inf")
            return scores

    return VocabLimit()


def trim_at_stop(codec: ChatCodec, ids: list[int], stop: Sequence[str]) -> tuple[list[int], str, bool]:
    """The shortest prefix of ``ids`` whose text contains a stop string (ids, text, stopped)."""
    text = codec.decode(ids)
    if not any(s in text for s in stop):
        return ids, text, False
    lo, hi = 1, len(ids)  # containing a stop string is monotone in the prefix length: bisect
    while lo < hi:
        mid = (lo + hi) // 2
        if any(s in codec.decode(ids[:mid]) for s in stop):
            hi = mid
        else:
            lo = mid + 1
    return ids[:lo], codec.decode(ids[:lo]), True


class LLMPolicy:
    """A causal LM that writes turns; the model itself is ``self.model`` (train it directly)."""

    def __init__(self, model: Any, tokenizer: Any, sampling: SamplingConfig | None = None,
                 backend: str = "transformers", vllm_engine: Any = None) -> None:
        if backend not in GENERATION_BACKENDS:
            raise ValueError(f"unknown generation backend {backend!r}; accepted: {', '.join(GENERATION_BACKENDS)}")
        if backend == "vllm" and vllm_engine is None:
            raise ValueError("backend='vllm' needs vllm_engine=vllm.LLM(...) built on the same weights")
        self.model, self.tokenizer = model, prepare_tokenizer(tokenizer)
        self.codec = ChatCodec(self.tokenizer)
        self.sampling = sampling or SamplingConfig()
        self.backend, self.vllm_engine = backend, vllm_engine
        self._kv: Any = None

    def reset_cache(self) -> None:
        """Drop the ``"kv"`` backend's cached rows (their keys/values are stale once the weights change)."""
        if self._kv is not None:
            self._kv.reset()

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @torch.no_grad()
    def generate(self, prompts: Sequence[Sequence[int]], max_new_tokens: Sequence[int] | int, seed: int,
                 greedy: bool = False, guides: Sequence[Any] | None = None) -> list[Generation]:
        """One turn per prompt (token ids), at most ``max_new_tokens[i]`` tokens for row i; ``guides``:
        one ``llm_guided.GuidedReply`` per prompt for guided decoding ("kv" backend)."""
        caps = [int(max_new_tokens)] * len(prompts) if isinstance(max_new_tokens, int) else [int(c) for c in max_new_tokens]
        if len(caps) != len(prompts) or any(c < 1 for c in caps):
            raise ValueError(f"need one max_new_tokens >= 1 per prompt; got {caps} for {len(prompts)} prompts")
        if not prompts:
            return []
        if guides is not None and self.backend != "kv":
            raise ValueError(f"guided decoding runs on the 'kv' generation backend, not {self.backend!r}; "
                             "use generation_backend='kv' or set RolloutConfig.guided=False")
        if self.backend == "vllm":
            return self._generate_vllm(prompts, caps, seed, greedy)
        if self.backend == "kv":
            return self._generate_kv(prompts, caps, seed, greedy, guides)
        return self._generate_hf(prompts, caps, seed, greedy)

    def _generate_kv(self, prompts, caps, seed, greedy, guides=None) -> list[Generation]:
        from .llm_kv_generate import KVGenerator

        if self._kv is None or self._kv.model is not self.model:
            vocab = self.model.get_output_embeddings().weight.shape[0]
            self._kv = KVGenerator(self.model, self.tokenizer, self.sampling.stop,
                                   len(self.tokenizer) if vocab > len(self.tokenizer) else None)
        news = self._kv.generate(prompts, caps, seed, greedy, self.sampling.temperature, self.sampling.top_p, guides)
        out = [self._finish(new, cap) for new, cap in zip(news, caps)]
        for k, g in enumerate(out if guides is not None else []):  # each kept token's allowed ids and log-prob
            kept = len(g.token_ids)
            g.allowed, g.log_probs = self._kv.last_allowed[k][:kept], self._kv.last_log_probs[k][:kept]
        return out

    def _generate_hf(self, prompts, caps, seed, greedy) -> list[Generation]:
        from transformers import GenerationConfig, LogitsProcessorList, StoppingCriteriaList

        pad = self.tokenizer.pad_token_id
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), pad, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, prompt in enumerate(prompts):  # left padding
            ids[row, width - len(prompt):] = torch.tensor(list(prompt), dtype=torch.long)
            mask[row, width - len(prompt):] = 1
        sample = not greedy and self.sampling.temperature > 0
        config = GenerationConfig(max_new_tokens=max(caps), do_sample=sample, pad_token_id=pad,
                                  eos_token_id=self.tokenizer.eos_token_id,
                                  **({"temperature": self.sampling.temperature, "top_p": self.sampling.top_p,
                                      "top_k": 0} if sample else {}))
        processors = LogitsProcessorList()
        vocab = self.model.get_output_embeddings().weight.shape[0]
        if vocab > len(self.tokenizer):
            processors.append(_vocab_limit(len(self.tokenizer)))
        stopping = StoppingCriteriaList([StopOnStrings(self.tokenizer, self.sampling.stop, width)])
        devices = [self.device] if self.device.type == "cuda" else []
        training = self.model.training  # train mode (checkpointing) would turn the KV cache off
        self.model.eval()
        try:
            with torch.random.fork_rng(devices=devices):
                torch.manual_seed(int(seed))
                out = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                          generation_config=config, logits_processor=processors,
                                          stopping_criteria=stopping)
        finally:
            self.model.train(training)
        return [self._finish(row[width:].tolist(), cap) for row, cap in zip(out.cpu(), caps)]

    def _finish(self, new: list[int], cap: int) -> Generation:
        eos, pad = self.tokenizer.eos_token_id, self.tokenizer.pad_token_id
        finish = "length"
        if eos in new:
            new, finish = new[: new.index(eos) + 1], "eos"
        elif pad != eos and pad in new:
            new = new[: new.index(pad)]
        if len(new) > cap:
            new, finish = new[:cap], "length"
        new, text, stopped = trim_at_stop(self.codec, new, self.sampling.stop)
        return Generation(new, text, "stop" if stopped else finish)

    def _generate_vllm(self, prompts, caps, seed, greedy) -> list[Generation]:  # pragma: no cover - needs vLLM + GPU
        from vllm import SamplingParams

        temperature = 0.0 if greedy else self.sampling.temperature
        params = [SamplingParams(max_tokens=cap, temperature=temperature, top_p=self.sampling.top_p,
                                 stop=list(self.sampling.stop), include_stop_str_in_output=True,
                                 seed=int(seed) + i) for i, cap in enumerate(caps)]
        outputs = self.vllm_engine.generate([{"prompt_token_ids": list(p)} for p in prompts], params, use_tqdm=False)
        return [self._finish(list(o.outputs[0].token_ids), cap) for o, cap in zip(outputs, caps)]

    def sync_vllm(self) -> None:  # pragma: no cover - needs vLLM + GPU
        """Push the trained weights into the vLLM engine (vLLM's in-process model runner)."""
        if self.vllm_engine is None:
            return
        engine = self.vllm_engine.llm_engine
        runner = engine.model_executor.driver_worker.model_runner
        runner.model.load_weights(((n, p.detach()) for n, p in self.model.named_parameters()))


def vllm_available() -> bool:
    try:
        import vllm  # noqa: F401
    except ImportError:
        return False
    return True
