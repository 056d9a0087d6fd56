"""After a first SIGTERM has started a command's clean-up, a second one is ignored by the resumable
commands (stopping their workers must finish) and kills the others at once (an evaluation's clean-up
waits for requests in flight up to their timeouts; before, every command ignored it, so a
supervisor's second SIGTERM could not stop ``searchgym evaluate``)."""

from __future__ import annotations

import os
import signal

import pytest

from searchgym.cli import Terminated, _on_sigterm


@pytest.mark.parametrize(("command", "after"), [("compare", signal.SIG_IGN), ("train", signal.SIG_IGN),
                                                ("evaluate", signal.SIG_DFL), ("report", signal.SIG_DFL)])
def test_what_a_second_sigterm_does(command, after):
    previous = _on_sigterm(command)
    try:
        with pytest.raises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs before the next line
            signal.pthread_sigmask(signal.SIG_BLOCK, [])
        assert signal.getsignal(signal.SIGTERM) == after
    finally:
        signal.signal(signal.SIGTERM, previous)
