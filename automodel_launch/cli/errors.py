"""One error policy for every command: exit codes, interruptions, output that cannot be written.

==========  ==============================================================================
exit        meaning
==========  ==============================================================================
0           done; no file has an error
1           a config has errors (``--strict``: warnings too), or the job could not be
            written or handed over
2           usage: a bad option or value on the command line
3           the tool could not finish: an operating-system error (one line: what failed),
            or a bug (one line; ``AUTOMODEL_LAUNCH_DEBUG=1`` prints the traceback)
128 + N     stopped by signal N: 130 Ctrl-C (SIGINT), 129 SIGHUP, 143 SIGTERM
141         the reader of standard output went away (``validate ... | head -1``); quiet,
            like any command killed by SIGPIPE
==========  ==============================================================================

No exception reaches the interpreter: a traceback is never the way a user learns
what went wrong. An error the user can fix is a :class:`automodel_launch.errors.LaunchError`
(its class carries the exit code): it is printed here, once, as ``error: MESSAGE`` and
``hint: HINT``; command modules raise it and never print errors themselves.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
from collections.abc import Callable

from automodel_launch.errors import LaunchError
from automodel_launch.interrupts import STOP_SIGNALS, Interrupted, raise_interrupted

OK = 0
CONFIG = 1
USAGE = 2
UNEXPECTED = 3
BROKEN_PIPE = 128 + signal.SIGPIPE
DEBUG_VARIABLE = "AUTOMODEL_LAUNCH_DEBUG"
_STOPPED = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}


def handle_termination() -> None:
    """SIGTERM and SIGHUP end the command like Ctrl-C does (unless the caller ignores them)."""
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, raise_interrupted)


def run(body: Callable[[], int]) -> int:
    """Run a command; whatever happens, return its exit code (see the module's table)."""
    _reopen_closed_streams()
    try:
        code = body()
        sys.stdout.flush()  # the last write may fail only now: report it here, not at exit
        return code
    except LaunchError as exc:
        _silence_stdout_if_broken()
        if str(exc):  # else it is reported already (Reported)
            _say(f"error: {_clean(str(exc))}")
        if exc.hint:
            _say(f"    hint: {_clean(exc.hint)}")
        return exc.exit_code
    except KeyboardInterrupt:
        return _stopped(signal.SIGINT)
    except Interrupted as exc:
        return _stopped(exc.signum)
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE
    except OSError as exc:
        _silence_stdout()
        _say(f"error: {describe_os_error(exc)}")
        return UNEXPECTED
    except Exception as exc:  # a bug: one line, the traceback on request
        _say(f"error: unexpected {type(exc).__name__} (a bug in automodel-launch)")
        if os.environ.get(DEBUG_VARIABLE):
            import traceback

            _say("".join(traceback.format_exception(exc)).rstrip())
        else:
            _say(f"    hint: rerun with {DEBUG_VARIABLE}=1 to see the traceback, and report it")
        return UNEXPECTED


_OUTPUT_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF})
"""What writing to standard output or error fails with (a full disk, a closed stream)."""


def describe_os_error(exc: OSError) -> str:
    """``cannot write the output: No space left on device``, ``DIR: Permission denied``."""
    reason = exc.strerror or type(exc).__name__
    if exc.filename is not None:  # a path from the command line or the config: cleaned
        from automodel_launch.secrets import display

        return f"{display(str(exc.filename))}: {reason}"
    return f"cannot write the output: {reason}" if exc.errno in _OUTPUT_ERRORS else reason


def _clean(text: str) -> str:
    from automodel_launch.secrets import display

    return display(text)


def _silence_stdout_if_broken() -> None:
    """What is left in stdout's buffer is flushed now; if that fails, it is dropped."""
    try:
        sys.stdout.flush()
    except Exception:
        _silence_stdout()


def _stopped(signum: int) -> int:
    _silence_stdout()
    _say(_STOPPED.get(signal.Signals(signum), "stopped"))
    return 128 + signum


def _reopen_closed_streams() -> None:
    """A stream closed by the caller (``2>&-``) is None in Python: make it discard."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives until exit)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def _say(line: str) -> None:
    """A line on stderr, if stderr can still take one."""
    with contextlib.suppress(Exception):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _silence_stdout() -> None:
    """Point stdout at /dev/null: what is left in its buffer must not fail again at exit."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
