"""``searchgym compare --executor ray``: each (method, seed) run is a Ray task.

Why Ray: a study of many methods x seeds x suites outgrows one machine, and Ray is the engine
search-agent RL already runs on. The runs themselves are unchanged: a task calls
:func:`searchgym.harness.runner.execute_run_safely`, so it writes the same run folder, with the
same atomic files, as the local executor (the ``--out`` folder must be on a filesystem every
node sees). A killed driver resumes from disk exactly as the local executor does: finished runs
(``DONE``) are skipped and unfinished ones resume from their checkpoints.

- **Resources.** A run asks Ray for what its method declares (a ``resources`` attribute on the
  method callable, e.g. ``{"num_cpus": 2, "num_gpus": 1}``), else one CPU, plus one GPU for a
  learning method when the device is ``cuda`` (or ``auto`` on a cluster that has GPUs). A run the
  cluster can never hold is refused before any run starts (:mod:`searchgym.harness.ray_resources`).
- **The world** of the suite is built once on the driver and put in Ray's object store; each
  task adopts it (:func:`searchgym.world.adopt_world`) instead of generating it again. The search
  index is built once per worker process (Ray reuses worker processes for CPU tasks).
- **Retries.** A run that fails (an exception) or loses its process or node (killed, out of
  memory, node died) is submitted again, up to ``retries`` times; the retry resumes from the
  run's checkpoint. Progress and retries are reported on the driver.
- **The cluster.** ``address=None`` joins ``RAY_ADDRESS`` when it is set, else starts a local cluster
  (``ray.init(num_cpus=N)``) so the same command runs on a laptop; an address (``auto``, ``HOST:PORT``,
  ``ray://host:10001``) joins an existing one, after a TCP check that something answers there.
  An already initialised Ray (``ray.is_initialized()``) is used as it is.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from searchgym.fileio import atomic_write_text
from searchgym.harness.ray_resources import refuse_unplaceable, run_resources
from searchgym.harness.runner import RunOutcome, RunSpec, execute_run_safely

DEFAULT_RETRIES = 2
#: The most extra attempts a failed run gets: a bound on a typo (``--retries 1000000000`` resubmitted a run
#: that always raises for good, a notice line per attempt), not on a flaky cluster.
MAX_RETRIES = 100
#: Seconds to wait for a TCP answer at a ``--ray-address`` before handing it to ``ray.init``, which waits
#: for good on an address where nothing answers (a log line every few seconds).
CONNECT_TIMEOUT = 10.0
RAY_CLIENT_PORT = 10001
ADDRESS_FORMS = "auto, local, HOST:PORT (a head node's GCS, e.g. 10.0.0.1:6379) or ray://HOST[:PORT] (Ray Client)"
RAY_MISSING = "the ray executor needs Ray: pip install 'searchgym[ray]' (or pip install 'ray>=2.9')"


def import_ray():
    """Ray, or a clear error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(RAY_MISSING) from None
    return ray


def parse_address(address: str, source: str = "--ray-address") -> tuple[str, int] | None:
    """The (host, port) that a Ray address names, None for ``auto`` and ``local``; a ValueError saying
    the accepted forms for anything else. Why: ``ray.init`` answered ``foo`` with "Invalid address
    format: foo", an http address with advice about an environment variable the user had not set, and
    ``host:notaport`` after an INFO line."""
    text = address.strip()
    if text in ("auto", "local"):
        return None
    scheme, sep, rest = text.partition("://")
    if sep and scheme != "ray":
        hint = " (that is the dashboard's address, not the cluster's)" if scheme in ("http", "https") else ""
        raise ValueError(f"{source} {address!r} is not one Ray joins{hint}; accepted: {ADDRESS_FORMS}")
    hostport = rest if sep else text
    match = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+)(?::(\d{1,5}))?", hostport)
    port = None if match is None or match.group(2) is None else int(match.group(2))
    if match is None or (port is None and not sep) or (port is not None and not 1 <= port <= 65535):
        raise ValueError(f"{source} {address!r} is not one Ray joins; accepted: {ADDRESS_FORMS}")
    return match.group(1).strip("[]"), RAY_CLIENT_PORT if port is None else port


def probe(address: str, host: str, port: int, timeout: float = CONNECT_TIMEOUT, source: str = "--ray-address") -> None:
    """A ValueError unless something answers at host:port within ``timeout`` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as exc:
        reason = f"no answer in {timeout:g} s" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
    raise ValueError(f"{source} {address}: nothing answers at {host}:{port} ({reason}); start the cluster "
                     f"(ray start --head) or give the address of a running one: {ADDRESS_FORMS}")


@dataclass(frozen=True)
class RayCluster:
    """Where the runs go: ``address`` of an existing cluster, or ``num_cpus`` for a local one."""

    address: str | None = None
    num_cpus: int | None = None

    def __post_init__(self) -> None:
        if self.address is not None and (not isinstance(self.address, str) or not self.address.strip()):
            raise ValueError(f"ray address must be a non-empty string such as 'auto' or 'ray://host:10001', "
                             f"got {self.address!r}")
        if self.address is not None:
            parse_address(self.address)
        if self.num_cpus is not None and (isinstance(self.num_cpus, bool) or not isinstance(self.num_cpus, int)
                                          or self.num_cpus < 1):
            raise ValueError(f"num_cpus of a local Ray cluster must be a positive int, got {self.num_cpus!r}")

    def connect(self) -> bool:
        """Initialise Ray; True when this call started it (and so must shut it down)."""
        ray = import_ray()
        if ray.is_initialized():
            return False
        address, source = self.address, "--ray-address"
        if address is None and os.environ.get("RAY_ADDRESS", "").strip():  # Ray's convention: join it
            address, source = os.environ["RAY_ADDRESS"].strip(), "RAY_ADDRESS"
        if address is not None:
            target = parse_address(address, source)
            if target is not None:
                probe(address, *target, source=source)
        # ray.init puts its own SIGTERM handlers in place (Python's: sys.exit(15); its core worker's: a C
        # stack dump), so SIGTERM left `searchgym compare` with status 1 and a screen of addresses instead
        # of "stopped by SIGTERM ... re-run" and 143. Give the handler back once Ray is up.
        main = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGTERM) if main else None
        quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
        try:
            if address is not None:
                ray.init(address=address, **quiet)
            else:
                ray.init(num_cpus=self.num_cpus or os.cpu_count() or 1, include_dashboard=False, **quiet)
        except ConnectionError as exc:  # auto with no cluster: Ray's text names its own --address flag
            if address is None:
                raise
            raise ValueError(f"{source} {address}: {(str(exc).splitlines() or [''])[0].split('. ')[0]}; check "
                             f"that a cluster runs there and lets this machine join (`ray status` on its head; "
                             f"Ray's log lines above say why not), or give another address: {ADDRESS_FORMS}") from None
        finally:
            if main:  # the caller's Python handler, else Ray's own Python one without the C dump over it
                current = signal.getsignal(signal.SIGTERM)
                restore = previous if callable(previous) else current
                if restore is not None:
                    signal.signal(signal.SIGTERM, restore)
        return True


def check_retries(retries: Any, cli: bool = False) -> int:
    """``retries`` in 0..MAX_RETRIES, refused in the caller's spelling: ``--retries`` for the CLI (``cli``).
    Why: ``compare --retries -1`` said "retries must be ...", the keyword, not the flag given."""
    name = "--retries" if cli else "retries"
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"{name} must be a non-negative int (extra attempts per failed run), got {retries!r}")
    if retries > MAX_RETRIES:  # before: accepted, and a run that always raises was resubmitted for good
        accepted = f"0..{MAX_RETRIES}" if cli else f"--retries 0..{MAX_RETRIES}"
        raise ValueError(f"{name} must be at most {MAX_RETRIES} ({accepted}: extra attempts per failed run), got "
                         f"{retries!r}")
    return retries


def _run_task(spec: RunSpec, world: Any, plugins: Sequence[str] = (),
              driver_tools: Sequence[str] | None = None) -> RunOutcome:
    """The body of one Ray task: import the driver's plugin modules (a task on another machine inherits
    no environment: before, a method of a ``--plugin`` module was unknown there), adopt the shared world,
    limit threads, do the run; refused up front, as a local worker's is, when it lacks a tool of
    ``driver_tools`` (the driver's ``tool_records()``: before, it played without it)."""
    from searchgym.harness.worker_start import run_in_worker
    from searchgym.plugins import import_plugins
    from searchgym.world import adopt_world

    import_plugins(plugins)

    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(spec.threads)
    import torch

    torch.set_num_threads(spec.threads)
    adopt_world(world, spec.suite.world_seed, spec.suite.world_size)
    return execute_run_safely(spec) if driver_tools is None else run_in_worker(spec, driver_tools)


def _failure(spec: RunSpec, error: str) -> RunOutcome:
    """A run that failed outside ``execute_run_safely`` (its process or node lost): error.txt too."""
    written = None
    try:
        spec.run_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(spec.run_dir / "error.txt", error + "\n")
        written = str(spec.run_dir / "error.txt")
    except OSError:
        pass
    return RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "failed", error=error, error_file=written)


def run_on_ray(todo: Sequence[RunSpec], record: Callable[[RunOutcome], None], cluster: RayCluster,
               retries: int = DEFAULT_RETRIES, notice: Callable[[str], None] = print,
               tick: Callable[[], None] | None = None, tick_seconds: float = 1.0) -> None:
    """Do every run of ``todo`` as a Ray task; ``record`` gets each final outcome on the driver, and
    ``tick`` (the progress bar's poll of the runs' metrics) is called every ``tick_seconds`` while they
    work, as the local executor does: without it the bar stood still until a run ended."""
    retries = check_retries(retries)
    if not todo:
        return
    ray = import_ray()
    started = cluster.connect()
    raised: list[BaseException] = []
    handler = _relay_sigterm(raised)
    try:
        _drive(ray, todo, record, retries, notice, tick, tick_seconds)
    except KeyboardInterrupt as exc:
        if raised and raised[-1] is not exc:  # Ray turned the handler's exception into a KeyboardInterrupt
            raise raised[-1] from None
        raise
    finally:
        if handler is not None and signal.getsignal(signal.SIGTERM) is handler[1]:  # else the handler set another
            signal.signal(signal.SIGTERM, handler[0])
        if started:
            ray.shutdown()


def _relay_sigterm(raised: list[BaseException]):
    """Wrap the SIGTERM handler so that the exception it raises is kept: a signal that arrives inside
    ``ray.wait`` or ``ray.get`` comes out of Ray as a bare KeyboardInterrupt, so the CLI's "stopped by
    SIGTERM ... re-run" (status 143) became "interrupted" (130). (handler, wrapper), or None when there
    is no Python handler to wrap (off the main thread, or the default action)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGTERM)
    if not callable(handler):
        return None

    def relay(signum, frame):
        try:
            handler(signum, frame)
        except BaseException as exc:
            raised.append(exc)
            raise

    signal.signal(signal.SIGTERM, relay)
    return handler, relay


def _drive(ray, todo: Sequence[RunSpec], record: Callable[[RunOutcome], None], retries: int,
           notice: Callable[[str], None], tick: Callable[[], None] | None = None,
           tick_seconds: float = 1.0) -> None:
    from searchgym.harness.recorded_registrations import tool_records
    from searchgym.plugins import environment_plugins
    from searchgym.world import shared_world

    plugins = environment_plugins()  # the modules this driver imported for --plugin / SEARCHGYM_PLUGINS
    tools = tool_records()  # what each task must have registered once its plugins and method are imported
    totals = {"num_cpus": float(ray.cluster_resources().get("CPU", 0)),
              "num_gpus": float(ray.cluster_resources().get("GPU", 0))}
    remote = ray.remote(_run_task)
    worlds: dict[tuple[int, Any], Any] = {}
    pending: dict[Any, tuple[RunSpec, int, dict[str, float]]] = {}

    def submit(spec: RunSpec, attempt: int, resources: dict[str, float]) -> None:
        key = (spec.suite.world_seed, spec.suite.world_size)
        if key not in worlds:  # one copy per world in the object store, shared by every task
            worlds[key] = ray.put(shared_world(*key))
        ref = remote.options(max_retries=0, **resources).remote(spec, worlds[key], plugins, tools)
        pending[ref] = (spec, attempt, resources)

    planned = [(spec, run_resources(spec, totals["num_gpus"])) for spec in todo]
    refuse_unplaceable(planned, totals)  # a task no node can hold would wait forever: refused before any starts
    for spec, resources in planned:
        threads = max(1, int(resources["num_cpus"]))
        submit(dataclasses.replace(spec, threads=threads, progress=False), 1, resources)
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=None if tick is None else tick_seconds)
            if tick is not None:
                tick()
            if not ready:
                continue
            spec, attempt, resources = pending.pop(ready[0])
            try:
                outcome = ray.get(ready[0])
            except ray.exceptions.RayError as exc:  # the task's process or node died, or it was cancelled
                first_line = (str(exc).strip().splitlines() or [""])[0]
                outcome = _failure(spec, f"{type(exc).__name__}: {first_line}")
            if outcome.status == "failed" and outcome.resumable and attempt <= retries:  # else it fails the same way
                notice(f"run {spec.method.label}/seed{spec.seed} failed (attempt {attempt} of {retries + 1}): "
                       f"{outcome.error}; retrying")
                submit(spec, attempt + 1, resources)
                continue
            if outcome.status == "failed" and retries and outcome.resumable:
                outcome = dataclasses.replace(outcome, error=f"{outcome.error} (after {attempt} attempts)")
            record(outcome)
    except BaseException:  # Ctrl-C or a failing record(): stop the tasks; finished runs stay on disk
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
