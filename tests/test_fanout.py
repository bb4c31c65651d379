"""Checks spread over forked workers: the answers a serial run gives, in order, whatever
a worker does."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from automodel_launch import fanout
from automodel_launch.settings import resolve_settings
from automodel_launch.validation import validate_paths

PARENT = os.getpid()
EXAMPLES = Path(__file__).parent / "examples"


def square(n: int) -> int:
    return n * n


def test_answers_come_back_in_order_from_every_worker() -> None:
    items = list(range(50))
    assert fanout.fan_out(square, items, workers=3) == [n * n for n in items]


def test_workers_answer_their_own_slices() -> None:
    where = fanout.fan_out(lambda n: (n, os.getpid()), list(range(9)), workers=3)
    assert [n for n, _ in where] == list(range(9))
    pids = [pid for _, pid in where]
    assert pids[:3] == [PARENT] * 3  # the parent checks the first slice itself
    assert len(set(pids[3:6])) == 1 and len(set(pids[6:])) == 1
    assert len({PARENT, pids[3], pids[6]}) == 3


def failing_in_workers(n: int) -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("a worker fails")
    return n * n


def leaving_silently(n: int) -> int:
    if os.getpid() != PARENT:
        os._exit(0)  # ends well but answers nothing
    return n * n


def half_answer(n: int) -> int:
    if os.getpid() != PARENT and n % 2:
        os.kill(os.getpid(), 9)
    return n * n


@pytest.mark.parametrize("check", [failing_in_workers, leaving_silently, half_answer])
def test_a_worker_that_gives_no_whole_answer_has_its_slice_checked_again(check: object) -> None:
    items = list(range(12))
    assert fanout.fan_out(check, items, workers=3) == [n * n for n in items]  # type: ignore[arg-type]


def test_answers_are_slimmed_alike_in_parent_and_workers() -> None:
    answers = fanout.fan_out(
        lambda n: [n, "heavy"], list(range(6)), workers=2, slim=lambda a: a[:1]
    )
    assert answers == [[n] for n in range(6)]


def test_few_items_or_threads_running_check_serially() -> None:
    assert fanout.workers_for(fanout.PER_WORKER - 1) == 1
    cores = len(os.sched_getaffinity(0))
    assert fanout.workers_for(fanout.PER_WORKER * 64) == cores
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert fanout.workers_for(fanout.PER_WORKER * 64) == 1
    finally:
        release.set()
        other.join()


def test_validate_spread_reports_what_a_serial_run_does() -> None:
    settings = resolve_settings()
    paths = [EXAMPLES / "valid", EXAMPLES / "invalid"]
    serial = validate_paths(paths, settings)
    assert len(serial) >= 2 * fanout.PER_WORKER  # enough files for two workers
    spread = validate_paths(paths, settings, spread=True)
    assert [(r.path, r.diagnostics, r.automodel_version) for r in spread] == [
        (r.path, r.diagnostics, r.automodel_version) for r in serial
    ]
    assert any(r.diagnostics for r in spread)
    assert all(r.loaded is None and r.document is None for r in spread)


def test_made_ahead_answers_in_order_the_parent_making_its_share_when_asked() -> None:
    made: list[int] = []

    def noted(n: int) -> tuple[int, int]:
        made.append(n)  # in the parent only: a worker's list is its own copy
        return n, os.getpid()

    answers = fanout.made_ahead(noted, list(range(10)), own=0.3, workers=2)
    assert next(answers) == (0, PARENT)
    assert made == [0]  # the parent's share is made as it is asked for
    rest = list(answers)
    assert [n for n, _ in rest] == list(range(1, 10))
    assert [pid for _, pid in rest[:2]] == [PARENT] * 2
    assert {pid for _, pid in rest[2:]} - {PARENT} and made == [0, 1, 2]


@pytest.mark.parametrize("check", [failing_in_workers, leaving_silently, half_answer])
def test_made_ahead_remakes_what_a_worker_did_not_answer(check: object) -> None:
    answers = fanout.made_ahead(check, list(range(12)), own=0.25, workers=3)  # type: ignore[arg-type]
    assert list(answers) == [n * n for n in range(12)]


def test_made_ahead_waits_for_its_workers_when_the_caller_stops_early(tmp_path: Path) -> None:
    def noted(n: int) -> int:
        (tmp_path / f"{os.getpid()}").touch()  # who made an answer
        return n

    answers = fanout.made_ahead(noted, list(range(8)), own=0.25, workers=2)
    assert next(answers) == 0
    answers.close()  # the worker was waited for: it is no child of this process any more
    (worker,) = [int(p.name) for p in tmp_path.iterdir() if int(p.name) != PARENT]
    with pytest.raises(ChildProcessError):
        os.waitpid(worker, os.WNOHANG)


def test_made_ahead_is_serial_where_forking_is_not_safe() -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        where = list(fanout.made_ahead(lambda n: os.getpid(), list(range(100)), own=0.1))
    finally:
        release.set()
        other.join()
    assert where == [PARENT] * 100
