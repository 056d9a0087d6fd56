"""``compare --executor ray`` as a user meets it: a bad or unreachable ``--ray-address`` and an
out-of-range ``--retries`` are one line naming what is accepted (an unreachable address waited for
good), SIGTERM stops the driver as it does the local executor (143, "re-run"), and the progress
callback is called while runs work. The address and retries checks need no Ray."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from searchgym.harness.ray_executor import (
    MAX_RETRIES,
    RayCluster,
    check_retries,
    parse_address,
    probe,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address, expected", [
    ("auto", None), ("local", None), ("10.0.0.1:6379", ("10.0.0.1", 6379)), ("head:6379", ("head", 6379)),
    ("ray://head", ("head", 10001)), ("ray://head:10002", ("head", 10002)), ("[::1]:6379", ("::1", 6379)),
])
def test_accepted_addresses(address, expected):
    assert parse_address(address) == expected
    RayCluster(address)


@pytest.mark.parametrize("address", ["foo", "http://localhost:8265", "host:notaport", "host:70000", "ray://",
                                     "ray://a:b", "s3://bucket", "host:0"])
def test_a_malformed_address_is_one_line_naming_the_accepted_forms(address):
    with pytest.raises(ValueError) as caught:
        RayCluster(address)
    message = str(caught.value)
    assert "\n" not in message and repr(address) in message and "accepted: auto, local, HOST:PORT" in message


def test_an_address_where_nothing_answers_is_refused_at_once():
    port = closed_port()
    start = time.monotonic()
    with pytest.raises(ValueError, match=rf"--ray-address 127.0.0.1:{port}: nothing answers at 127.0.0.1:{port}"):
        probe(f"127.0.0.1:{port}", "127.0.0.1", port)
    assert time.monotonic() - start < 5


def test_retries_are_bounded():
    assert check_retries(0) == 0 and check_retries(MAX_RETRIES) == MAX_RETRIES
    for bad in (MAX_RETRIES + 1, 10**12):
        with pytest.raises(ValueError, match=rf"retries must be at most {MAX_RETRIES} \(--retries 0..{MAX_RETRIES}:"):
            check_retries(bad)
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="retries must be a non-negative int"):
            check_retries(bad)


# ---- with Ray -------------------------------------------------------------------------------------


def test_connect_to_an_unreachable_address_fails_in_seconds_without_starting_ray():
    """Before: ray.init(address='127.0.0.1:1') waited for good, printing a log line every few seconds."""
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process (connect would use it)")
    port = closed_port()
    start = time.monotonic()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(ValueError, match="nothing answers"):
            RayCluster(address).connect()
    assert time.monotonic() - start < 10 and not ray.is_initialized()


def _cli(out: Path, *extra: str, env: dict[str, str]) -> subprocess.Popen:
    command = [sys.executable, "-c", "import sys; from searchgym.cli import main; sys.exit(main())",
               "compare", "--suite", "searchqa-hard-v2", "--methods", "fast=harness_helpers:fast_learner",
               "--seeds", "1", "--budget", "8", "--workers", "2", "--no-progress", "--executor", "ray",
               "--out", str(out), *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=out.parent, start_new_session=True)


def test_sigterm_stops_a_ray_driver_as_it_does_the_local_one_and_the_same_command_resumes(tmp_path):
    """Before: ray.init's handlers took SIGTERM over: status 1 and a C stack dump ("*** SIGTERM received
    at time=..."), never the CLI's "stopped by SIGTERM; re-run the same command to resume" and 143."""
    pytest.importorskip("ray")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "SEARCHGYM_TEST_SLEEP": "3"}
    env.pop("RAY_ADDRESS", None)
    out = tmp_path / "out"
    process = _cli(out, env=env)
    started = out / "runs" / "fast" / "seed0" / "config.json"
    deadline = time.monotonic() + 120
    while not started.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert started.exists(), process.communicate(timeout=30)
    process.send_signal(signal.SIGTERM)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    assert process.returncode == 143, stderr[-2000:]
    assert "stopped by SIGTERM; re-run the same command to resume" in stderr
    assert "SIGTERM received" not in stderr and "Traceback" not in stderr
    assert not (out / "runs" / "fast" / "seed0" / "DONE").exists()

    env["SEARCHGYM_TEST_SLEEP"] = "0"
    again = _cli(out, env=env)
    stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr[-2000:]
    assert "1 done now" in stdout and (out / "runs" / "fast" / "seed0" / "DONE").exists()


def test_run_on_ray_calls_tick_while_runs_work(tmp_path):
    """The local executor polls the runs' metrics every second for the progress bar; run_on_ray takes
    the same callback (before: the bar stood still until a run ended)."""
    ray = pytest.importorskip("ray")
    from harness_helpers import start_local_ray

    from searchgym.harness.methods import parse_methods
    from searchgym.harness.ray_executor import run_on_ray
    from searchgym.harness.runner import RunSpec
    from searchgym.suites import get_suite

    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process")
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    start_local_ray(runtime_env={"env_vars": {"PYTHONPATH": path, "SEARCHGYM_TEST_SLEEP": "1"}})
    try:
        spec = RunSpec(get_suite("searchqa-hard-v2"), parse_methods("fast=harness_helpers:fast_learner")[0], 0, 4,
                       tmp_path, device="cpu")
        ticks: list[float] = []
        outcomes = []
        run_on_ray([spec], outcomes.append, RayCluster(), retries=0, notice=lambda line: None,
                   tick=lambda: ticks.append(time.monotonic()), tick_seconds=0.2)
        assert [o.status for o in outcomes] == ["done"], outcomes
        assert len(ticks) >= 5  # four chunks of a second each: ticks came while it worked
    finally:
        ray.shutdown()


def test_a_sigterm_inside_ray_wait_keeps_the_handlers_exception(tmp_path):
    """Ray turns an exception raised by a signal handler inside ray.wait into a bare KeyboardInterrupt;
    run_on_ray gives the handler's own back (the CLI's Terminated, which it reports as SIGTERM)."""
    ray = pytest.importorskip("ray")
    from harness_helpers import start_local_ray

    from searchgym.harness.methods import parse_methods
    from searchgym.harness.ray_executor import run_on_ray
    from searchgym.harness.runner import RunSpec
    from searchgym.suites import get_suite

    if ray.is_initialized() or threading.current_thread() is not threading.main_thread():
        pytest.skip("needs the main thread and no Ray initialised in this process")

    class Stop(KeyboardInterrupt):
        pass

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Stop

    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    start_local_ray(runtime_env={"env_vars": {"PYTHONPATH": path, "SEARCHGYM_TEST_SLEEP": "2"}})
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        spec = RunSpec(get_suite("searchqa-hard-v2"), parse_methods("fast=harness_helpers:fast_learner")[0], 0, 8,
                       tmp_path, device="cpu")
        timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGTERM))
        timer.start()
        with pytest.raises(KeyboardInterrupt) as caught:  # (a bare one would end the test session)
            run_on_ray([spec], lambda o: None, RayCluster(), retries=0, notice=lambda line: None)
        timer.join()
        assert type(caught.value) is Stop
    finally:
        signal.signal(signal.SIGTERM, previous)
        ray.shutdown()
