"""The Ray executor resubmits a failed run only where running it again can help: a run refused because
its folder holds another run, or whose base changed after it was built, fails the same way on every
attempt (before: it was resubmitted ``--retries`` times and reported "after N attempts"). A failure a
re-run may mend (a crash, a lost node) is still retried. A fake Ray plays the tasks in this process."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from searchgym.endpoint.reply_checks import SAME_FAILURE
from searchgym.harness import ray_executor
from searchgym.harness.methods import parse_methods
from searchgym.harness.rerun_advice import rerun_advice
from searchgym.harness.runner import RunNotFinished, RunOutcome, RunSpec
from searchgym.suites import get_suite


class FakeRay:
    """What ``_drive`` uses of Ray, run in turn: each task's result is ``play(spec)``."""

    class exceptions:  # noqa: N801 - Ray's module name
        RayError = RuntimeError

    def __init__(self, play):
        self.play, self.results, self.submitted = play, {}, 0

    def cluster_resources(self):
        return {"CPU": 2.0}

    def put(self, value):
        return value

    def remote(self, fn):
        def submit(spec, world, plugins=(), tools=None):  # as _run_task takes them
            self.submitted += 1
            ref = object()
            self.results[ref] = self.play(spec)
            return ref
        return SimpleNamespace(options=lambda **_: SimpleNamespace(remote=submit))

    def wait(self, refs, num_returns, timeout):
        return refs[:1], refs[1:]

    def get(self, ref):
        return self.results.pop(ref)


def _drive(tmp_path, outcome: RunOutcome):
    spec = RunSpec(get_suite("searchqa-hard-v2"), parse_methods("random")[0], 0, 4, tmp_path, device="cpu")
    ray, recorded, notices = FakeRay(lambda spec: outcome), [], []
    ray_executor._drive(ray, [spec], recorded.append, 3, notices.append)
    return ray.submitted, recorded, notices


def test_a_failure_a_rerun_cannot_mend_is_not_resubmitted(tmp_path):
    hopeless = RunOutcome("random", 0, str(tmp_path), "failed", error="DifferentRun: ...", resumable=False,
                          advice="the folder holds another run's files")
    submitted, recorded, notices = _drive(tmp_path, hopeless)
    assert submitted == 1 and notices == []
    assert recorded == [hopeless]  # as it came: no "(after N attempts)"


def test_a_failure_a_rerun_may_mend_is_still_retried(tmp_path):
    crash = RunOutcome("random", 0, str(tmp_path), "failed", error="RuntimeError: boom")
    submitted, recorded, notices = _drive(tmp_path, crash)
    assert submitted == 4 and len(notices) == 3 and "retrying" in notices[0]
    assert recorded[0].error == "RuntimeError: boom (after 4 attempts)"


@pytest.mark.parametrize(("reason", "helps"), [
    (f"8 of 8 requests to http://x/v1/chat/completions got HTTP 401 (e.g. ...); check --model; {SAME_FAILURE}", False),
    ("8 of 8 requests to http://x/v1/chat/completions got no reply (e.g. timed out); check --base-url", True),
])
def test_an_unfinished_run_says_whether_a_rerun_can_help(reason, helps):
    """An endpoint run that measured nothing: a server that refused every request is refused again."""
    exc = RunNotFinished(reason)
    assert (rerun_advice(exc) is None) is helps
    assert (rerun_advice(pickle.loads(pickle.dumps(exc))) is None) is helps  # a worker's, pickled
