"""A stop signal as an exception, shared by every place that must clean up after one.

SIGTERM and SIGHUP are raised where the program is, like Ctrl-C's KeyboardInterrupt, so
``finally`` blocks run (a half-written job directory is removed); the CLI's error
handler turns the exception into the exit status a shell reports (128 + N).
"""

from __future__ import annotations

from types import FrameType


class Interrupted(BaseException):
    """A terminating signal. A BaseException, like KeyboardInterrupt: no ``except
    Exception`` turns it into a diagnostic, and click lets it through."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def raise_interrupted(signum: int, _frame: FrameType | None) -> None:
    """A signal handler: raise :class:`Interrupted` where the program is."""
    raise Interrupted(signum)
