"""A stop signal as an exception, shared by every place that must clean up after one.

SIGTERM and SIGHUP are raised where the program is, like Ctrl-C's KeyboardInterrupt, so
``finally`` blocks run (a half-written job directory is removed); the CLI's error
handler turns the exception into the exit status a shell reports (128 + N).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end a command the way Ctrl-C does."""


class Interrupted(BaseException):
    """A terminating signal. A BaseException, like KeyboardInterrupt: no ``except
    Exception`` turns it into a diagnostic, and click lets it through."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def raise_interrupted(signum: int, _frame: FrameType | None) -> None:
    """A signal handler: raise :class:`Interrupted` where the program is."""
    raise Interrupted(signum)


class _Once:
    """Raises the first stop signal as :class:`Interrupted`; later ones wait, so the
    clean-up that the first one started is not cut short."""

    def __init__(self) -> None:
        self.raised = False

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        if not self.raised:
            self.raised = True
            raise Interrupted(signum)


@contextmanager
def stop_signals_raise_once() -> Iterator[None]:
    """For the duration of a write that must be whole or absent: a stop signal raises
    once, then waits. A signal the caller ignores (``nohup``) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; it also gets the signals
        return
    handler = _Once()
    caught = [sig for sig in STOP_SIGNALS if signal.getsignal(sig) is not signal.SIG_IGN]
    previous = {sig: signal.signal(sig, handler) for sig in caught}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
