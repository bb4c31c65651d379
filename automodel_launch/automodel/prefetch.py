"""A tree named on the command line, read while the rest of ``validate`` starts.

``validate --automodel-source DIR`` reads DIR cold in about 1.5 s, and the process spends
a further third of a second importing what validation needs before it gets there. A
forked worker started first (:func:`start`) reads the tree meanwhile and leaves what it
read in the cache (:mod:`automodel_launch.automodel.cache`); when validation reaches the
tree, :func:`wait` waits for that worker and the cache answers. Nothing depends on the
worker: one that fails, or cannot write the cache, leaves the tree to be read as without
it; one still running when the process ends is stopped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

_STARTED: dict[str, int] = {}
"""The package directory (resolved) -> the worker reading it."""


def start(root: str, read: Callable[[], object]) -> None:
    """Run ``read`` (reading the package at ``root``, leaving it in the cache) in a forked
    worker; nothing when forking is not safe here or one already reads it."""
    from automodel_launch.fanout import forking_is_safe

    if root in _STARTED or not forking_is_safe():
        return
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        if not _STARTED:
            import atexit

            atexit.register(_stop)
        _STARTED[root] = pid
        return
    code = 1
    try:
        read()
        code = 0
    except BaseException:  # the parent reads the tree itself
        pass
    finally:
        os._exit(code)


def wait(root: Path) -> None:
    """Wait for the worker reading the package at ``root``, if one was started."""
    pid = _STARTED.pop(str(root), None)
    if pid is not None:
        _reap(pid)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError, InterruptedError):
        os.waitpid(pid, 0)


def _stop() -> None:
    import signal

    for pid in list(_STARTED.values()):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        _reap(pid)
    _STARTED.clear()
