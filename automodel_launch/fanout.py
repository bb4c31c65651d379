"""Spreading many independent checks over the machine's cores, answers in order.

``validate`` over a directory of recipes spends nearly all its time per file (loading,
the rules), and a pre-commit run or a CI gate often hands it hundreds. Forked workers
share everything the parent already imported and loaded (no second start-up, as a
spawned pool would pay), each takes a contiguous slice of the files, and sends its
answers back whole through a pipe. The parent checks the first slice itself.

Nothing is lost when a worker is: a worker that dies, or answers something that is not
one answer per item, has its slice checked again by the parent, so the result is always
what a serial run gives. Forking is used only where it is cheap and safe (a POSIX
system, a process with one thread) and only for enough items to pay for it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Answer = TypeVar("Answer")

PER_WORKER = 24
"""Items a worker must have at least: fewer cost more to fork and send than they save."""


def forking_is_safe() -> bool:
    """A POSIX system, and a process with one thread (a forked child gets one thread of a
    locked world)."""
    if not hasattr(os, "fork") or sys.platform not in {"linux", "darwin"}:
        return False
    return threading.active_count() <= 1


def workers_for(count: int) -> int:
    """How many processes check ``count`` items: 1 unless forking pays."""
    if not forking_is_safe():
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, count // PER_WORKER))


def fan_out(
    check: Callable[[Item], Answer],
    items: Sequence[Item],
    *,
    slim: Callable[[Answer], Answer] = lambda answer: answer,
    workers: int | None = None,
) -> list[Answer]:
    """``[check(item) for item in items]``, on up to ``workers`` processes.

    ``slim`` drops what a worker's answer need not carry back (it must pickle); every
    answer is slimmed, wherever it was made, so they all look alike.
    """
    count = workers_for(len(items)) if workers is None else workers
    if count <= 1:
        return [slim(check(item)) for item in items]
    size = -(-len(items) // count)
    slices = [items[i : i + size] for i in range(0, len(items), size)]
    started = [_start(check, part, slim) for part in slices[1:]]
    answers = [slim(check(item)) for item in slices[0]]
    for (pid, pipe), part in zip(started, slices[1:], strict=True):
        answers += _collect(pid, pipe, len(part)) or [slim(check(item)) for item in part]
    return answers


def made_ahead(
    check: Callable[[Item], Answer],
    items: Sequence[Item],
    *,
    own: float,
    workers: int | None = None,
) -> Iterator[Answer]:
    """``check(item)`` of each item, in order, as they are needed: the parent makes the
    first ``own`` share of them when asked, while the other workers make the rest ahead.

    For a caller that does serial work of its own with each answer (parsing what the
    answer holds): that work on the first answers overlaps the workers'. Every worker is
    waited for, even when the caller stops early.
    """
    count = workers_for(len(items)) if workers is None else workers
    if count <= 1:
        yield from map(check, items)
        return
    cut = max(1, min(len(items), round(len(items) * own)))
    rest = items[cut:]
    size = -(-len(rest) // (count - 1)) if rest else 1
    slices = [rest[i : i + size] for i in range(0, len(rest), size)]
    started = [_start(check, part, _same) for part in slices]
    try:
        yield from map(check, items[:cut])
        for index, ((pid, pipe), part) in enumerate(zip(started, slices, strict=True)):
            answers: list[Answer] | None = _collect(pid, pipe, len(part))
            started[index] = (None, None)
            yield from [check(item) for item in part] if answers is None else answers
    finally:
        for pid, pipe in started:
            _collect(pid, pipe, 0)


def _same(answer: Answer) -> Answer:
    return answer


def _start(
    check: Callable[[Item], Answer], part: Sequence[Item], slim: Callable[[Answer], Answer]
) -> tuple[int | None, int | None]:
    """A worker checking ``part``: its pid and the pipe it answers on (None: none started)."""
    try:
        read, write = os.pipe()
    except OSError:
        return None, None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None, None
    if pid:
        os.close(write)
        return pid, read
    # the worker: answer, and leave without running the parent's exit handlers or
    # flushing its buffered output a second time
    code = 1
    try:
        os.close(read)
        import pickle

        data = pickle.dumps([slim(check(item)) for item in part], pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        code = 0
    finally:
        os._exit(code)


def _collect(pid: int | None, pipe: int | None, count: int) -> list[Answer] | None:
    """The worker's answers, or None when it gave no whole answer."""
    if pid is None or pipe is None:
        return None
    with os.fdopen(pipe, "rb") as source:
        data = source.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    import pickle

    try:
        answers = pickle.loads(data)
    except Exception:  # a truncated or garbled answer: check the slice here
        return None
    return answers if isinstance(answers, list) and len(answers) == count else None
