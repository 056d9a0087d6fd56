"""The tiny-LM recipe's SFT data: the reader's transcripts on train tasks of several worlds, played
in parallel processes and kept as one file per world.

Why: distinct episodes are what a from-scratch model lacks (docs/llm.md), and a GPU trains on tens
of thousands of them in minutes while one process plays about 15 a second. The per-world files let
a recipe cut short, or a second recipe with other training settings, reuse what was played: a file
is used only when the settings it was played with (suite, world, tasks, seeds, rollout format and
the tokenizer's fingerprint) are the ones asked for; otherwise that world is played again.

A file is gzip-compressed JSON lines: a header ``{"format", "version", "settings"}``, then one
transcript per line. It is read as untrusted (bounded, checked field by field); a damaged one is
a warning naming it, and that world is played again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import multiprocessing
import os
import sys
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from searchgym.damaged import DamagedFile, open_regular, warn_damaged
from searchgym.fileio import atomic_write_bytes

from .llm_rollout import RolloutConfig
from .lm_sft import Transcript

FORMAT = "searchgym-sft-transcripts"
VERSION = 1
#: Largest world file read back, compressed and decompressed (a 1,090-task world is about 0.5 MB / 9 MB).
MAX_BYTES = 256 * 1024 * 1024
#: A kept transcript is at most this many times its settings' ``max_episode_tokens`` long. The stream stops
#: before a reader's turn once fewer than ``min_turn_tokens`` remain, but that turn is added whole, so a
#: transcript can pass the cap by one turn (the reader's turns measured at most 30 tokens: a transcript of
#: 1,022 tokens under a cap of 1,000). Why: a 233 KB file decompressed to a row of 60,000,000 token ids,
#: accepted after 14 s and 1.65 GB.
ROW_TOKENS_PER_CAP = 2
#: Bytes of the decompressed text per token of a transcript (its id and comma, its loss-mask entry and the
#: guided ids allowed there): the rows of 300 tasks of searchqa-text-v2 measured at most 7.6, their mean
#: 10 KB a task (3.0 MB for the file) under the default cap of 4,096 tokens. What a file may decompress
#: to is its header and this many bytes for each task's ``max_episode_tokens`` (64 KiB a task at the
#: default cap, 6x the mean); one row, for each token of its own cap above.
BYTES_PER_TOKEN = 16
#: Bytes of a row besides its tokens (task id, success and the keys).
ROW_FIXED_BYTES = 4096
REMEDY = "playing that world again"


def tokenizer_fingerprint(tokenizer: Any) -> str:
    """A hash of the tokenizer's whole definition: transcripts are token ids, valid for this tokenizer only."""
    text = tokenizer.backend_tokenizer.to_str() if hasattr(tokenizer, "backend_tokenizer") else repr(tokenizer)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def world_settings(suite: str, world_seed: int, tasks: int, pick_seed: int, seed: int, guided: bool,
                   rollout: RolloutConfig, fingerprint: str) -> dict[str, Any]:
    """What a world's transcripts depend on; a file made with other settings is played again."""
    settings = {"suite": suite, "world_seed": int(world_seed), "tasks": int(tasks), "pick_seed": int(pick_seed),
                "seed": int(seed), "guided": bool(guided), "rollout": asdict(rollout), "tokenizer": fingerprint}
    return json.loads(json.dumps(settings))  # as a file's header reads back (tuples become lists)


def world_file(folder: Path, world_seed: int) -> Path:
    return Path(folder) / f"world-{int(world_seed)}.jsonl.gz"


def play_world(settings: dict[str, Any], tokenizer: Any, path: Path | None = None) -> list[Transcript]:
    """The reader's transcripts on ``settings["tasks"]`` train tasks of one world (a fixed random
    pick of them), written to ``path`` when given. Train tasks only: no dev or test question is seen,
    and another seed's world's facts are not the test world's."""
    from searchgym.suites import get_suite, make_env

    from .lm_sft import reader_transcripts

    suite = get_suite(settings["suite"])
    env = make_env(suite, "train", world_seed=settings["world_seed"]).unwrapped
    train = [t.id for t in env.tasks.tasks("train")]
    picks = np.random.default_rng(settings["pick_seed"]).permutation(len(train))[: settings["tasks"]]
    transcripts = reader_transcripts(env, [train[int(i)] for i in picks], tokenizer,
                                     RolloutConfig(**settings["rollout"]), seed=settings["seed"],
                                     guided=settings["guided"])
    if path is not None:
        write_world(path, settings, transcripts)
    return transcripts


def _play_world_in_worker(settings: dict[str, Any], tokenizer: Any, path: str) -> str:
    play_world(settings, tokenizer, Path(path))
    return path


def write_world(path: Path, settings: dict[str, Any], transcripts: Sequence[Transcript]) -> Path:
    lines = [json.dumps({"format": FORMAT, "version": VERSION, "settings": settings}, separators=(",", ":"))]
    lines += [json.dumps({"task_id": t.task_id, "token_ids": t.token_ids, "loss_mask": t.loss_mask,
                          "success": t.success, "allowed": [[k, list(v)] for k, v in t.allowed.items()]},
                         separators=(",", ":")) for t in transcripts]
    return atomic_write_bytes(path, gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), compresslevel=6, mtime=0))


def _header_line(settings: dict[str, Any]) -> bytes:
    return json.dumps({"format": FORMAT, "version": VERSION, "settings": settings}, separators=(",", ":")).encode()


def read_world(path: Path, settings: dict[str, Any], vocab: int | None = None) -> list[Transcript] | None:
    """The transcripts of a world file played with ``settings`` (from :func:`world_settings`); None when it
    is missing or was made with other settings. A damaged file raises :class:`DamagedFile` (one line naming
    it), and so does a token id outside ``vocab`` (the tokenizer's size; before: an id of 10**6 was an
    IndexError traceback from the embedding, and 10**30 "Overflow when unpacking long long", naming no
    file), a file that decompresses to more than ``settings``' tasks need (:data:`BYTES_PER_TOKEN`) or a
    row longer than a transcript of them (:data:`ROW_TOKENS_PER_CAP`)."""
    try:
        with open_regular(path, MAX_BYTES, REMEDY) as handle:
            packed = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    ours = _header_line(settings)
    header_cap = min(MAX_BYTES, 2 * len(ours) + 1024)  # the same settings written with other spacing
    cap = int(settings["rollout"]["max_episode_tokens"])
    tasks = int(settings["tasks"])
    try:
        decompressor = zlib.decompressobj(wbits=31)  # gzip; bounded, so a small bomb cannot fill memory
        text = decompressor.decompress(packed, header_cap + 1)
        end = text.find(b"\n")
        if end < 0 and len(text) <= header_cap and not decompressor.eof:
            raise DamagedFile(path, "is cut short (its gzip stream ends early)", REMEDY)
        if not text.strip():
            raise DamagedFile(path, "is empty", REMEDY)
        if end < 0 and len(text) > header_cap:
            if text.lstrip().startswith(b"{") and f'"{FORMAT}"'.encode() in text[:256]:
                return None  # a header too long to hold these settings: made with other ones
            raise DamagedFile(path, f"does not start with a {FORMAT} header", REMEDY)
        header = _json_line(path, [text[:end if end >= 0 else len(text)].decode("utf-8")], 0)
        if not (isinstance(header, dict) and header.get("format") == FORMAT):
            raise DamagedFile(path, f"does not start with a {FORMAT} header", REMEDY)
        if header.get("version") != VERSION or header.get("settings") != settings:
            return None
        limit = min(MAX_BYTES, max(end, 0) + 1 + tasks * cap * BYTES_PER_TOKEN)
        if len(text) <= limit:
            text += decompressor.decompress(decompressor.unconsumed_tail, limit + 1 - len(text))
        if len(text) > limit:
            raise DamagedFile(path, f"decompresses to more than {limit} bytes, more than a world of {tasks} tasks "
                              f"within max_episode_tokens {cap} writes ({BYTES_PER_TOKEN} bytes a token)", REMEDY)
        if not decompressor.eof:
            raise DamagedFile(path, "is cut short (its gzip stream ends early)", REMEDY)
        lines = text.decode("utf-8").splitlines()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise DamagedFile(path, f"is not a gzip-compressed text file ({exc})", REMEDY) from None
    if len(lines) - 1 > tasks:
        raise DamagedFile(path, f"holds {len(lines) - 1} transcripts, more than its {tasks} tasks", REMEDY)
    max_tokens = ROW_TOKENS_PER_CAP * cap
    max_line = max_tokens * BYTES_PER_TOKEN + ROW_FIXED_BYTES
    transcripts = []
    for i in range(1, len(lines)):
        if len(lines[i]) > max_line:
            raise DamagedFile(path, f"line {i + 1} is {len(lines[i])} characters long, more than a transcript of "
                              f"at most {max_tokens} tokens writes ({max_line})", REMEDY)
        transcripts.append(_transcript(path, _json_line(path, lines, i), i + 1, vocab, max_tokens))
    return transcripts


def _json_line(path: Path, lines: list[str], i: int) -> Any:
    if i >= len(lines):
        raise DamagedFile(path, "is empty", REMEDY)
    try:
        return json.loads(lines[i])
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise DamagedFile(path, f"line {i + 1} is not JSON ({str(exc)[:60]})", REMEDY) from None


def _ints(value: Any, end: int | None = None) -> bool:
    """A list of ints in ``0..end - 1`` (``end`` None: any int >= 0)."""
    return isinstance(value, list) and all(type(x) is int and x >= 0 and (end is None or x < end) for x in value)


def _transcript(path: Path, row: Any, line: int, vocab: int | None = None,
                max_tokens: int | None = None) -> Transcript:
    def bad(what: str) -> DamagedFile:
        return DamagedFile(path, f"line {line}: {what}", REMEDY)

    if not isinstance(row, dict):
        raise bad("is not an object")
    ids, mask, allowed = row.get("token_ids"), row.get("loss_mask"), row.get("allowed")
    if not isinstance(row.get("task_id"), str) or type(row.get("success")) is not bool:
        raise bad("needs a string task_id and a boolean success")
    ids_are = "integers >= 0" if vocab is None else f"integers in 0..{vocab - 1}, the tokenizer's ids"
    if not _ints(ids, vocab) or not _ints(mask) or len(mask) != len(ids) or any(m > 1 for m in mask):
        raise bad(f"needs token_ids ({ids_are}) and a loss_mask of 0 and 1 as long")
    if max_tokens is not None and len(ids) > max_tokens:
        raise bad(f"holds {len(ids)} token ids, more than the {max_tokens} of a transcript within its settings' "
                  "max_episode_tokens")
    if not isinstance(allowed, list) or not all(
            isinstance(a, list) and len(a) == 2 and type(a[0]) is int and 0 <= a[0] < len(ids) and _ints(a[1], vocab)
            for a in allowed):
        raise bad(f"needs allowed as [token index, [ids]] pairs inside the row ({ids_are})")
    return Transcript(row["task_id"], ids, mask, row["success"], allowed={k: tuple(v) for k, v in allowed})


def _read_back(path: Path, settings: dict[str, Any], vocab: int) -> list[Transcript]:
    transcripts = read_world(path, settings, vocab)
    if transcripts is None:
        raise DamagedFile(path, "was just written by a worker but holds other settings", "re-run the command")
    return transcripts


def spawn_cannot_import_main() -> str | None:
    """The main program's ``__file__`` when spawned workers could not load it, else None.

    Why: a spawned worker re-runs the parent's main file (``multiprocessing.spawn``'s
    ``get_preparation_data`` / ``_fixup_main_from_path``): a main run as a module (``python -m``) is
    imported by name, one without ``__file__`` (``python -c``, a notebook) is left alone, but a
    ``__file__`` that is no readable file (``python - <<EOF`` gives ``<stdin>``) kills every worker."""
    main = sys.modules.get("__main__")
    if main is None or getattr(getattr(main, "__spec__", None), "name", None) is not None:
        return None
    path = getattr(main, "__file__", None)
    if path is None:
        return None
    full = path if os.path.isabs(path) else os.path.join(multiprocessing.process.ORIGINAL_DIR or "", path)
    return None if os.path.isfile(full) else str(path)


def sft_transcripts(worlds: Sequence[dict[str, Any]], tokenizer: Any, folder: Path, workers: int = 1,
                    log: Callable[[str], None] = print) -> list[Transcript]:
    """Every world's transcripts, in the order of ``worlds`` (settings from :func:`world_settings`):
    read from ``folder`` where a file was played with the same settings, else played (by ``workers``
    processes in parallel when more than one world is missing) and written there."""
    folder, vocab = Path(folder), len(tokenizer)
    found: dict[int, list[Transcript]] = {}
    missing = []
    for k, settings in enumerate(worlds):
        path = world_file(folder, settings["world_seed"])
        try:
            transcripts = read_world(path, settings, vocab)
        except DamagedFile as error:
            warn_damaged(error, REMEDY)
            transcripts = None
        if transcripts is None:
            missing.append(k)
        else:
            found[k] = transcripts
    processes = min(workers, len(missing))
    if processes > 1 and (main := spawn_cannot_import_main()) is not None:
        log(f"sft data: warning: playing in this process, not {processes} workers: spawned workers cannot "
            f"load the main program ({main}); run it from a .py file to play in parallel")
        processes = 1
    if missing:
        log(f"sft data: playing {len(missing)} world(s) of {worlds[missing[0]]['tasks']} train tasks "
            f"({len(worlds) - len(missing)} read back), {processes} process(es)")
    if processes > 1:
        context = multiprocessing.get_context("spawn")  # the parent holds torch and tokenizer threads: no fork
        with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
            jobs = {k: pool.submit(_play_world_in_worker, worlds[k], tokenizer,
                                   str(world_file(folder, worlds[k]["world_seed"]))) for k in missing}
            for k, job in jobs.items():
                found[k] = _read_back(Path(job.result()), worlds[k], vocab)
    else:
        for k in missing:
            found[k] = play_world(worlds[k], tokenizer, world_file(folder, worlds[k]["world_seed"]))
    return [t for k in range(len(worlds)) for t in found[k]]
