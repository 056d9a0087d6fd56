"""``searchgym serve``: a scripted OpenAI-compatible chat endpoint on 127.0.0.1, as a stand-in model.

It answers ``POST /v1/chat/completions`` with the recorded actions of the oracle (or the random
baseline, or the non-privileged reader playing live, or a misbehaving server) for the suite's tasks (:mod:`searchgym.endpoint.scripted_endpoint`),
in the OpenAI response format, streamed when asked. Point a framework's OpenAI client at it to
check a pipeline end to end before a real model is in the loop: following the oracle, an agent
must score 1.0. It listens on the loopback interface only, until interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import threading

from searchgym.commands import check_at_least, check_seed
from searchgym.endpoint import check_port
from searchgym.endpoint.scripted_endpoint import (
    BEHAVIOURS,
    MAX_STALL,
    SCRIPTED,
    ScriptedEndpoint,
    check_stall,
)
from searchgym.suites import Suite, get_suite, list_suites, observation_kind

DEFAULT_STALL = 2.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", required=True, help="a text-mode suite id (searchgym suites), e.g. searchqa-text-v2")
    parser.add_argument("--behaviour", choices=BEHAVIOURS, default="oracle",
                        help="what the replies do: replay the oracle or the random baseline, play the reader "
                             "(non-privileged, reads only the conversation), or misbehave")
    parser.add_argument("--port", type=int, default=8000, help="loopback port to listen on (0: any free port)")
    parser.add_argument("--native", action="store_true", help="reply with OpenAI tool_calls instead of text actions")
    parser.add_argument("--splits", default="test,dev", help="comma-separated splits whose tasks are scripted")
    parser.add_argument("--limit", type=int, default=None, help="script only the first N tasks of each split")
    parser.add_argument("--seed", type=int, default=0, help="seed of the recorded episodes (as `evaluate --seed`)")
    parser.add_argument("--stall", type=float, default=None,
                        help=f"seconds each reply waits, at most {MAX_STALL:g} (--behaviour stall only; default "
                             f"{DEFAULT_STALL:g})")


def check_text_suite(suite_id: str) -> None:
    """One error line, before anything is printed or recorded, unless ``suite_id`` is a text-mode
    suite. Why: only ``--behaviour oracle|random`` found out (after playing a task), so
    ``--behaviour reader`` (or prose, hostile, stall) served a candidate-mode suite such as quick-v2,
    whose tasks no chat client can play."""
    suite = get_suite(suite_id)
    if not _text_mode(suite):
        text = ", ".join(s.id for s in list_suites() if _text_mode(s))
        raise ValueError(f"suite {suite.id!r} is not in text mode (its agents choose candidate indices); "
                         f"serve a text suite: {text}")


def _text_mode(suite: Suite) -> bool:
    return observation_kind(suite) == "text"


def _stall(args: argparse.Namespace) -> float:
    """``--stall`` checked: only with ``--behaviour stall`` (before: ignored by the others, which
    replied at once to a user who asked for slow replies) and at most :data:`MAX_STALL` seconds."""
    if args.stall is None:
        return DEFAULT_STALL
    if args.behaviour != "stall":
        raise ValueError(f"--stall is for --behaviour stall (the {args.behaviour} replies never wait); "
                         f"drop --stall or give --behaviour stall")
    check_stall(args.stall, "--stall")  # at most MAX_STALL (--stall 1e308 made every reply an HTTP 500)
    return args.stall


def _port_error(port: int, exc: OSError) -> ValueError | None:
    """The one line for a port this process cannot listen on (None for any other OSError)."""
    if exc.errno == errno.EADDRINUSE:
        return ValueError(f"port {port} on 127.0.0.1 is in use (another server?); choose another --port, "
                          "or --port 0 for any free one")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return ValueError(f"port {port} on 127.0.0.1 may not be opened by this user (ports below 1024 need "
                          "privileges); choose a --port from 1024 to 65535, or --port 0 for any free one")
    return None


def check_port_free(port: int) -> None:
    """Refuse a port that is taken or not ours, before the replies are recorded. Why: the endpoint
    binds only after recording them, so `serve --port <a taken port>` printed "recording ..." and
    worked for seconds (the longer, the more tasks) before it said the port was in use, and a
    port below 1024 ended in "Permission denied; ... choose another --out" (serve has no --out)."""
    if port == 0:
        return
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds (allow_reuse_address)
        probe.bind(("127.0.0.1", port))
    except OSError as exc:
        error = _port_error(port, exc)
        if error is None:
            raise
        raise error from exc
    finally:
        probe.close()


def run(args: argparse.Namespace) -> int:
    check_seed(args)
    check_text_suite(args.suite)
    check_port(args.port, "--port")  # before: the endpoint's "port must be ..." after "recording ..."
    stall = _stall(args)  # likewise
    if args.limit is not None:
        check_at_least((("--limit", args.limit, 1, "tasks per split"),))
    # blanks around a name are no split of their own ("dev, test" was "unknown split(s) [' test']"), and
    # a split named twice is recorded once (it was recorded twice)
    splits = tuple(dict.fromkeys(s.strip() for s in args.splits.split(",") if s.strip()))
    unknown = [s for s in splits if s not in ("train", "dev", "test")]
    if unknown:
        raise ValueError(f"unknown split(s) {unknown} in --splits; accepted: train, dev, test")
    if not splits:  # before: "--splits ," served an endpoint that knew no task
        raise ValueError(f"--splits {args.splits!r} names no split; give a comma list of train, dev, test")
    check_port_free(args.port)
    if args.behaviour in SCRIPTED:
        print(f"recording the {args.behaviour} replies for {args.suite} ({', '.join(splits) or 'no splits'}) ...",
              flush=True)
    else:
        print(f"starting the {args.behaviour} endpoint for {args.suite} ...", flush=True)
    endpoint = ScriptedEndpoint(args.suite, args.behaviour, native=args.native, stall=stall, seed=args.seed,
                                splits=splits, port=args.port, limit=args.limit)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with endpoint:
            print(f"serving {args.suite} ({args.behaviour}) at {endpoint.base_url}  "
                  f"(POST /chat/completions, GET /models; Ctrl-C stops)", flush=True)
            while not stop.wait(0.5):
                pass
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # taken after check_port_free (another server started meanwhile)
        error = _port_error(args.port, exc)
        if error is None:
            raise
        raise error from exc
    finally:
        signal.signal(signal.SIGTERM, previous)
    print("stopped", flush=True)
    return 0
