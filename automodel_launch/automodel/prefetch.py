"""A tree named on the command line, read while the rest of ``validate`` starts.

``validate --automodel-source DIR`` reads DIR cold in about 1.5 s, and the process spends
a further third of a second importing what validation needs before it gets there. A
forked worker started first (:func:`start`) reads the tree meanwhile and leaves what it
read in the cache (:mod:`automodel_launch.automodel.cache`); when validation reaches the
tree, :func:`wait` waits for that worker and the cache answers. Nothing depends on the
worker: one that fails, or cannot write the cache, leaves the tree to be read as without
it; one still running when the process ends is stopped. A tree the cache already holds,
or that cannot be listed, starts none.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_STARTED: dict[str, int] = {}
"""The package directory (resolved) -> the worker reading it."""


def start(directory: str) -> None:
    """Begin reading the ``nemo_automodel`` package in ``directory`` (nothing when there is
    none, or forking is not safe here)."""
    from automodel_launch.automodel import cache, source, which
    from automodel_launch.fanout import forking_is_safe

    package = source.package_in(Path(directory))
    if package is None or not forking_is_safe():
        return
    root = os.path.realpath(package)
    if root in _STARTED:
        return
    try:
        key = cache.key(source.listing(Path(root)))
    except source.Unreadable:
        return  # validation says why, when it gets there
    if key in which._MEMO:
        return
    entry = cache.load(key)
    if entry is not None:
        which._MEMO[key] = entry  # read before: the cache answers, once
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
        which.read_tree(source.listing(Path(root)), None)
        code = 0
    except BaseException:
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
