"""The LLM policy's hand-off to vLLM on Ray: a GPU actor generates the turns, the learner trains.

Why: for the LLM policy, generation is most of a rollout's time and vLLM does it several times
faster than ``transformers.generate``; on a cluster the engine lives on its own GPU (a Ray
actor) while the learner's GPU holds the training copy. The hand-off has two directions:

- **turns out**: :class:`RemoteVLLMEngine` stands where :class:`~.llm_policy.LLMPolicy` expects
  ``vllm_engine`` (``LLMPolicy(model, tokenizer, backend="vllm", vllm_engine=engine)``); its
  ``generate(requests, sampling_params, use_tqdm)`` runs on the actor and returns the token ids
  in vLLM's output shape (``outputs[0].token_ids``), so the policy's vLLM path is unchanged;
- **weights in**: after every update, ``engine.push_weights(policy.model)`` puts the learner's
  named parameters in Ray's object store once and the actor loads them into its model runner
  (vLLM V1 ``collective_rpc``; the V0 driver worker otherwise).

The engine loads its first weights from a folder (``model.save_pretrained`` + the tokenizer's
``save_pretrained``) or a hub id already in the local cache: nothing is downloaded at run time.
Needs ``pip install 'searchgym[ray,vllm]'`` and a CUDA GPU; tested in
``tests/agents/test_rollout_workers.py`` where both are present (skipped otherwise).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

VLLM_MISSING = "the vLLM hand-off needs vLLM and Ray: pip install 'searchgym[ray,vllm]' (and a CUDA GPU)"


def _load_on_worker(worker: Any, named: Sequence[tuple[str, Any]]) -> None:
    """Runs inside vLLM's worker process (V1 ``collective_rpc``): load the new weights."""
    worker.model_runner.model.load_weights(weights=iter(named))


def load_weights_into(engine: Any, named: Sequence[tuple[str, Any]]) -> None:
    """Load ``(name, tensor)`` pairs into a ``vllm.LLM``'s model (V1 or V0 engine)."""
    if hasattr(engine, "collective_rpc"):
        engine.collective_rpc(_load_on_worker, args=(list(named),))
    else:  # V0: the model runner lives in this process
        engine.llm_engine.model_executor.driver_worker.model_runner.model.load_weights(iter(named))


class VLLMEngineWorker:
    """The body of the GPU actor: one ``vllm.LLM`` built from a folder or a cached hub id."""

    def __init__(self, model: str, seed: int = 0, gpu_memory: float = 0.35, dtype: str = "auto",
                 **engine_kwargs: Any) -> None:
        os.environ.setdefault("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")  # collective_rpc with a function
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from vllm import LLM

        self.engine = LLM(model=model, seed=seed, gpu_memory_utilization=gpu_memory, dtype=dtype,  # a folder's own
                          enable_prefix_caching=True, **{"trust_remote_code": False, **engine_kwargs})  # code: never by default

    def generate(self, requests: list[dict], params: Any) -> list[list[int]]:
        outputs = self.engine.generate(requests, params, use_tqdm=False)
        return [list(o.outputs[0].token_ids) for o in outputs]

    def load_weights(self, named: list[tuple[str, Any]]) -> None:
        load_weights_into(self.engine, named)


class RemoteVLLMEngine:
    """A ``vllm_engine`` for :class:`~.llm_policy.LLMPolicy` whose engine is a Ray actor."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.ray = _import()[0]

    @classmethod
    def start(cls, model: str, seed: int = 0, gpu_memory: float = 0.35, dtype: str = "auto",
              num_gpus: float = 1, **engine_kwargs: Any) -> RemoteVLLMEngine:
        """Start the actor on a GPU of the (already initialised, else local) Ray cluster."""
        ray, _ = _import()
        if not ray.is_initialized():
            ray.init(include_dashboard=False, log_to_driver=False)
        if ray.cluster_resources().get("GPU", 0) < num_gpus:
            raise ValueError(f"the vLLM actor needs {num_gpus:g} GPU(s); the Ray cluster has "
                             f"{ray.cluster_resources().get('GPU', 0):g}")
        actor = ray.remote(num_gpus=num_gpus)(VLLMEngineWorker).remote(model, seed, gpu_memory, dtype, **engine_kwargs)
        return cls(actor)

    def generate(self, requests: list[dict], params: Any, use_tqdm: bool = False) -> list[SimpleNamespace]:
        token_ids = self.ray.get(self.actor.generate.remote(list(requests), params))
        return [SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids)]) for ids in token_ids]

    def push_weights(self, model: Any) -> None:
        """The learner's current weights into the engine (call after every update)."""
        named = [(name, p.detach().to("cpu")) for name, p in model.named_parameters()]
        self.ray.get(self.actor.load_weights.remote(self.ray.put(named)))

    def close(self) -> None:
        self.ray.kill(self.actor)


def _import() -> tuple[Any, Any]:
    try:
        import ray
        import vllm
    except ImportError:
        raise ValueError(VLLM_MISSING) from None
    return ray, vllm
