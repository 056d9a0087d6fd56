"""What the candidate trainer and the LLM trainer share: where a run writes, how a metrics row is
logged, the checkpoint that resumes it, and the loop that spends the budget.

Resume is exact because of the order :meth:`TrainerBase.finish_iteration` keeps: the row is
logged before the checkpoint is written, so a kill between the two redoes the iteration and its
row, and a kill after the checkpoint loses nothing; a resumed run has exactly the rows of an
uninterrupted one.

A subclass sets ``config`` (with ``budget``), ``state`` (a :class:`TrainState`)
and ``device``, calls :meth:`init_output` first and :meth:`resume` last in ``__init__``, and
writes ``state_dict`` / ``load_state_dict`` (its checkpoint), ``log_start_point`` (the curve's
step-0 row) and ``train_iteration`` (one iteration, ending in ``finish_iteration``).
"""

from __future__ import annotations

import contextlib
import gc
import io
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from searchgym.damaged import (
    UNREADABLE_ERRNOS,
    DamagedFile,
    OtherRunsFile,
    UnreadableFile,
    open_regular,
    warn_damaged,
)
from searchgym.fileio import append_jsonl, atomic_torch_save
from searchgym.shown import safe_repr
from searchgym.torch_archive import MAX_ARCHIVE_BYTES, archive_problem

from .settings_as_built import built_alike
from .train_split import config_record

CHECKPOINT = "checkpoint.pt"
METRICS = "metrics.jsonl"
#: What ``load_state_dict`` raises on a checkpoint that loaded but does not fit this run.
CHECKPOINT_MISMATCH = (KeyError, ValueError, RuntimeError, TypeError, AttributeError, IndexError)


#: The top-level keys of the checkpoints searchgym's trainers write: Trainer's (``reference`` with a KL term),
#: the critic trainers' (baselines.critics: ``critic``, ``critic_optimizer``, ``extra``) and LLMTrainer's. A
#: trainer that writes another key names it in its ``checkpoint_keys``.
CHECKPOINT_KEYS = frozenset({"config", "population", "optimizer", "calibrator", "rng", "generator", "state",
                             "reference", "critic", "critic_optimizer", "extra", "models", "optimizers",
                             "references"})


#: What a checkpoint holds per member policy, each at most a supervised base's size (sft_base.max_base_bytes):
#: its weights, Adam's two moments and a reference copy (a critic trainer's critic is a small MLP, within
#: the base cap's headroom).
CHECKPOINT_COPIES = 4


def max_checkpoint_bytes(policy: object, members: int = 1) -> int:
    """The largest checkpoint of a run of ``policy`` with ``members`` policies that is read: a policy whose
    weights the option bounds limit (sft_base.BOUNDED_POLICIES) :data:`CHECKPOINT_COPIES` bases' worth per
    member (16 GiB for one); another (hf, or an LLM trainer's: no ``policy``) as every torch file searchgym
    reads (torch_archive.MAX_ARCHIVE_BYTES). Why: a checkpoint in torch's legacy (non-zip) format went to
    torch.load whatever its size, and a zip one was bounded only by MAX_ARCHIVE_BYTES (256 GiB)."""
    from .sft_base import max_base_bytes

    return min(MAX_ARCHIVE_BYTES, CHECKPOINT_COPIES * max(1, members) * max_base_bytes(policy))


def read_checkpoint(path: str | Path, device: torch.device | str = "cpu",
                    keys: frozenset[str] = CHECKPOINT_KEYS, max_bytes: int = MAX_ARCHIVE_BYTES,
                    digest: Any = None, follow_links: bool = True) -> dict[str, Any]:
    """A checkpoint's dict, read with ``weights_only=True``; damage is :class:`DamagedFile`.

    The file must be a regular file (a FIFO or a link to a device is refused before reading; with
    ``follow_links=False`` any link) of at most ``max_bytes`` (:func:`max_checkpoint_bytes`), and its dict
    may hold no key but ``keys``. Why: a handed-over checkpoint's other keys were loaded, kept and walked
    unsaid, as if a run had written them. ``digest`` (a :mod:`hashlib` object) is fed the bytes loaded,
    from the same open file: a reader that records the file's hash hashes what it loaded.
    """
    try:
        with open_regular(path, max_bytes, "delete it to start the run again", follow_links) as handle, \
                warnings.catch_warnings():
            # torch's multi-line note on a pickle of another protocol came before our one-line verdict
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            if digest is not None:
                _feed(digest, handle, path, max_bytes)
            problem = archive_problem(handle)  # torch.load reads changed tensor bytes without a word
            if problem:
                raise DamagedFile(path, problem, "delete it to start the run again")
            blob = torch.load(handle, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise DamagedFile(path, "is missing", "re-run the same command") from None
    except DamagedFile:
        raise
    except Exception as exc:  # noqa: BLE001 - torch and pickle raise many types on a damaged file
        if isinstance(exc, OSError) and exc.errno in UNREADABLE_ERRNOS:  # says nothing of the file: before,
            raise UnreadableFile(path, f"could not be read ({exc.strerror or exc})",  # the run restarted over it
                                 "check the disk and its permissions, then re-run the same command") from None
        raise DamagedFile(path, f"is not a checkpoint searchgym can load ({type(exc).__name__}: "
                                f"{str(exc)[:160]})", "delete it to start the run again") from None
    if not isinstance(blob, dict):
        raise DamagedFile(path, f"holds a {type(blob).__name__}, not a checkpoint's dict",
                          "delete it to start the run again")
    unknown = sorted(safe_repr(key, 40) for key in blob if key not in keys)
    if unknown:
        shown = ", ".join(unknown[:4]) + (f" and {len(unknown) - 4} more" if len(unknown) > 4 else "")
        raise DamagedFile(path, f"holds the key(s) {shown}, which no checkpoint of a searchgym trainer holds "
                          f"(accepted: {', '.join(sorted(keys))})", "delete it to start the run again")
    problem = _implausible(blob)
    if problem:
        raise DamagedFile(path, problem, "delete it to start the run again")
    return blob


def _feed(digest: Any, handle: Any, path: str | Path, max_bytes: int) -> None:
    """Hash the open file whole, then rewind it; one grown past ``max_bytes`` since it was opened is refused."""
    read = 0
    for chunk in iter(lambda: handle.read(1 << 20), b""):
        read += len(chunk)
        if read > max_bytes:
            raise DamagedFile(path, f"holds more than {max_bytes} bytes", "delete it to start the run again")
        digest.update(chunk)
    handle.seek(0)


def _implausible(blob: dict[str, Any]) -> str:
    """Why a checkpoint that loads cannot be one a run wrote (empty: it can). Before: NaN weights ended
    in "probability tensor contains either inf, nan" (a traceback, playing or resuming it), and a
    negative step count in "Seed must be greater or equal to zero"."""
    state = blob.get("state")
    if isinstance(state, dict):
        for key in ("iteration", "env_steps"):
            value = state.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                return f"holds state {key}={str(value)[:40]}, not a count >= 0"
    pending: list[tuple[str, Any]] = [("", blob)]
    while pending:
        where, item = pending.pop()
        if isinstance(item, dict):
            pending.extend((f"{where}/{key}", value) for key, value in item.items())
        elif isinstance(item, list | tuple):
            pending.extend((f"{where}/{i}", value) for i, value in enumerate(item))
        elif isinstance(item, torch.Tensor) and item.is_floating_point() and not bool(torch.isfinite(item).all()):
            return f"holds NaN or infinite numbers (at {where[:120]}), which no run writes"
    return ""


#: Config fields that make a checkpoint another run's: its seed, its env and its policy. Why these alone:
#: a trainer may go on from a checkpoint with other hyperparameters (a larger budget, a KL term: see
#: tests/agents/test_train_kl.py), but a resumed run of another seed, world or policy is neither run.
#: The harness's config.json holds the rest of a run's identity.
RUN_IDENTITY = ("seed", "env_id", "env_kwargs", "policy", "policy_kwargs")
#: Config fields that are no part of what a run trains: where it runs, paths that may have moved, and how
#: the trained policy is scored (``decoding``: the README's argmax scores copy finished checkpoints into a
#: folder run with ``decoding=greedy``).
RUNTIME_FIELDS = frozenset({"budget", "device", "rollout_workers", "init_checkpoint", "decoding"})
OTHER_RUN_REMEDY = ("move the run folder's files away (or choose another --out), or run the command that made "
                    "them, to resume that run")


def _plain(value: Any) -> Any:
    """A config value as JSON holds it (tuples as lists), for comparing a checkpoint's record with a run's."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _differences(there: Any, now: Any, name: str) -> list[str]:
    """``name: X there, Y now`` for each differing leaf (objects compared key by key)."""
    if isinstance(there, dict) and isinstance(now, dict):
        return [line for key in dict.fromkeys([*there, *now]) if there.get(key) != now.get(key)
                for line in _differences(there.get(key), now.get(key), f"{name}.{key}")]
    return [f"{name}: {safe_repr(there, 60)} there, {safe_repr(now, 60)} now"]


def other_run(recorded: Any, mine: dict[str, Any], fields: tuple[str, ...] | None = RUN_IDENTITY) -> list[str]:
    """``name: X there, Y now`` for each of ``fields`` (None: every field but :data:`RUNTIME_FIELDS`) in which
    a checkpoint's recorded config differs from a run's (empty: the same run, or a checkpoint that records
    no config). Why: a run folder whose config.json was missing or damaged resumed any checkpoint of the
    same shape, e.g. seed 0's under `--seed 1`, and its results were recorded as the new command's."""
    if not isinstance(recorded, dict):
        return []
    names = [k for k in mine if k not in RUNTIME_FIELDS] if fields is None else [k for k in fields if k in mine]
    differ = [key for key in names if key in recorded and _plain(recorded[key]) != _plain(mine[key])]
    # a setting given another way that builds the same run (policy_kwargs at the policy's defaults, sft_tasks
    # above the train split) is the same run, as for the harness: before, its re-run was let in there and
    # refused here, so it never resumed
    return [line for key in differ if not built_alike(key, _plain(recorded), _plain(mine))
            for line in _differences(_plain(recorded[key]), _plain(mine[key]), key)]


def _mismatch(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if isinstance(exc, KeyError):
        return f"does not fit this run (no {text!r} in it)"
    return f"does not fit this run ({text[:300]})"


@dataclass
class TrainState:
    """How far a run has got: what the budget loop, the checkpoint and the metrics rows read."""

    iteration: int = 0
    env_steps: int = 0
    wall_seconds: float = 0.0
    #: the last dev success logged: a resumed run's bar shows it before its next evaluation
    last_dev: float | None = None


class TrainerBase:
    """Logging, checkpoints, resume and the budget loop of a trainer (see the module docstring)."""

    config: Any
    state: TrainState
    device: torch.device
    #: the progress bar's label
    progress_label: str = "train"
    #: the config fields a checkpoint must agree on to be resumed (:func:`other_run`; None, with
    #: ``strict_resume``: every field but the runtime ones). The harness asks for every field: its config.json
    #: fixes every option of a run, and when that file is lost or damaged the checkpoint's own record is all
    #: that tells another run's apart (before: a lost config.json let `--option lr=0.01` resume lr 0.003's).
    resume_fields: tuple[str, ...] | None = RUN_IDENTITY
    #: the top-level keys its checkpoints hold (:func:`read_checkpoint` refuses any other)
    checkpoint_keys: frozenset[str] = CHECKPOINT_KEYS

    def init_output(self, out_dir: str | Path | None, log: Callable[[dict], None] | None,
                    strict_resume: bool = False) -> None:
        """Rows go to ``log`` when given, else to ``out_dir/metrics.jsonl``; checkpoints to ``out_dir``;
        ``strict_resume``: a checkpoint is resumed only when it agrees on every option (``resume_fields``)."""
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.log_fn = log
        if strict_resume:
            self.resume_fields = None

    # ------------------------------------------------------------------------------ logging
    def _log(self, row: dict) -> None:
        """One metrics row, numpy scalars as plain floats."""
        row = {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in row.items()}
        dev = row.get("dev_success")
        if isinstance(dev, int | float) and not isinstance(dev, bool):
            self.state.last_dev = float(dev)
        if self.log_fn is not None:
            self.log_fn(row)
        elif self.out_dir is not None:
            append_jsonl(self.out_dir / METRICS, row)

    # -------------------------------------------------------------------------- checkpoints
    def config_record(self) -> dict[str, Any]:
        """The run's config as its checkpoint records it (:func:`~searchgym.agents.train_split.config_record`)."""
        return config_record(self.config)

    def state_dict(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def load_state_dict(self, blob: dict[str, Any]) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def save(self) -> None:
        """Write ``checkpoint.pt`` atomically (temp file + rename): a crash never leaves half a file."""
        if self.out_dir is None:
            return
        atomic_torch_save(self.out_dir / CHECKPOINT, self.state_dict())

    def max_checkpoint_bytes(self) -> int:
        """The largest checkpoint of this run read (:func:`max_checkpoint_bytes` of its policy and members)."""
        population = getattr(self, "population", None)
        members = len(population.unique_members()) if hasattr(population, "unique_members") else 1
        return max_checkpoint_bytes(getattr(self.config, "policy", None), members)

    def load(self, path: str | Path) -> None:
        """Restore everything a checkpoint holds, so the next update is the uninterrupted run's.

        The file is read with ``weights_only=True``: tensors and plain types only, so a pickle
        that would run code is refused, never run. Any damage is :class:`DamagedFile`.
        """
        self.load_checkpoint(path, read_checkpoint(path, self.device, self.checkpoint_keys,
                                                   self.max_checkpoint_bytes()))

    def load_checkpoint(self, path: str | Path, blob: dict[str, Any]) -> None:
        """Restore ``blob``, the checkpoint at ``path`` already read (:func:`read_checkpoint` with this
        trainer's ``checkpoint_keys`` and cap: ``evaluate --agent run`` reads it before the trainer is built)."""
        try:
            self.load_state_dict(blob)
        except CHECKPOINT_MISMATCH as exc:  # a checkpoint of another run's shape, or cut down
            raise DamagedFile(path, _mismatch(exc), "delete it to start the run again") from None

    def resume(self) -> None:
        """Load the run's checkpoint when its folder holds one (an interrupted run goes on).

        A damaged checkpoint is warned about and the run starts again from its beginning (exact:
        a run is a function of its seed), its state first put back as it was before the load. A
        checkpoint whose recorded config is another run's (:func:`other_run`) is :class:`OtherRunsFile`:
        resuming it would mix two runs, and starting again would write over someone's checkpoint.
        """
        if self.out_dir is None:
            return
        path = self.out_dir / CHECKPOINT
        if not (path.exists() or path.is_symlink()):
            return
        fresh = io.BytesIO()
        torch.save(self.state_dict(), fresh)
        try:
            blob = read_checkpoint(path, self.device, self.checkpoint_keys, self.max_checkpoint_bytes())
        except DamagedFile as exc:
            blob, damaged = None, exc
        if blob is not None:  # another run's checkpoint is refused, never loaded nor written over
            differ = other_run(blob.get("config"), asdict(self.config), self.resume_fields) \
                if is_dataclass(self.config) else []
            if differ:
                shown = "; ".join(differ[:6]) + (f"; and {len(differ) - 6} more" if len(differ) > 6 else "")
                raise OtherRunsFile(path, f"was written by another run ({shown})", OTHER_RUN_REMEDY)
            try:
                self.load_state_dict(blob)
                return
            except CHECKPOINT_MISMATCH as exc:  # a checkpoint of another run's shape, or cut down
                damaged = DamagedFile(path, _mismatch(exc), "delete it to start the run again")
        if path.is_dir() or isinstance(damaged, UnreadableFile):  # a folder: no checkpoint can be written over
            raise damaged  # it; unreadable (no permission, an I/O error): it may be intact, so it is kept
        warn_damaged(damaged, "starting the run again from its beginning")
        fresh.seek(0)
        self.load_state_dict(torch.load(fresh, map_location=self.device, weights_only=True))

    # ----------------------------------------------------------------------------- the loop
    def finish_iteration(self, row: dict[str, Any], checkpoint: bool = True) -> None:
        """Log the iteration's row, then checkpoint (this order makes resume exact)."""
        self._log(row)
        if checkpoint:
            self.save()

    def log_start_point(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def train_iteration(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def train(self, progress: bool = True) -> Any:
        """Iterate until the budget is spent (resuming where a checkpoint left off); the final state."""
        budget = self.config.budget
        bar = tqdm(total=budget, initial=min(self.state.env_steps, budget), desc=self.progress_label,
                   disable=not progress, unit="step", leave=False)
        with frozen_heap() as freeze_survivors:
            self.log_start_point()
            # the last dev success measured (before: dev=nan between evaluations, and after a resume)
            last = self.state.last_dev
            shown: dict[str, float] = {"dev": last} if isinstance(last, float) else {}
            while self.state.env_steps < budget:
                freeze_survivors()
                row = self.train_iteration()
                bar.update(min(self.state.env_steps, budget) - bar.n)
                if "dev_success" in row:
                    shown["dev"] = row["dev_success"]
                bar.set_postfix(**shown, train=round(row["train_success"], 2))
        bar.close()
        if self.out_dir is not None and not (self.out_dir / CHECKPOINT).exists():  # a budget of 0: no iteration
            self.save()  # saved the policy it scores; evaluate --agent run found none and said "finish the run"
        return self.state


#: Net allocations of tracked objects between collections of the youngest generation while training
#: (Python's default: 700).
YOUNG_COLLECTION_EVERY = 50_000


@contextlib.contextmanager
def frozen_heap() -> Iterator[Callable[[], None]]:
    """Keep what is alive (the world, its indices, the envs, the caches so far) out of the garbage
    collector's scans while training runs, and hand it back afterwards. Yields a function that
    freezes what has survived since (the loop calls it once per iteration).

    Why: a full collection walks every tracked object; training allocates fast enough to trigger
    one every iteration or two, and each walked the whole world again (about a sixth of the CPU of
    a training run on quick-v2). Training makes no cyclic garbage (its collections free nothing),
    so freezing loses no memory. Nothing is frozen when someone else already froze the heap
    (their freeze is left as it is).

    The youngest generation is also collected less often (every ``YOUNG_COLLECTION_EVERY``
    allocations instead of 700, restored afterwards): each collection walks every young object
    still alive, and a training step keeps thousands alive for a while (observations, features,
    tensors), so the default threshold walked them many times over for nothing."""
    if gc.get_freeze_count():
        yield lambda: None
        return
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], YOUNG_COLLECTION_EVERY), *thresholds[1:])
    try:
        yield gc.freeze
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
