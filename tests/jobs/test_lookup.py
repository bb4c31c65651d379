"""What JOB names, in process: which kind of reference wins when a text could be several
(a scheduler id that is also a job array's, a sweep's id that is also a job's name, a
directory that is gone), and each ambiguity with its exact message."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from automodel_launch.jobs.lookup import find_job_or_sweep
from automodel_launch.jobs.registry import registry_path
from automodel_launch.jobs.status import JobError
from automodel_launch.jobs.sweeps import Sweep
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep


def _single(root: Path, job_id: str, scheduler_id: str, name: str, **fields: object) -> str:
    made = job(root / job_id, job_id, scheduler_id, name=name, **fields)
    record(made)
    return made.id


def test_an_exact_scheduler_id_wins_over_a_job_array_of_that_id(tmp_path: Path) -> None:
    sweep(tmp_path / "sweeps", 2)  # array 100
    single = _single(tmp_path, "b00000000001", "100", "other")
    found = find_job_or_sweep("100")
    assert not isinstance(found, Sweep) and found.id == single


def test_a_sweeps_array_and_id_win_over_a_start_of_an_id_and_a_name(tmp_path: Path) -> None:
    sweep(tmp_path / "sweeps", 2)
    _single(tmp_path, "100aaaaaaaaa", "7", "x")  # its id starts with the array's id
    _single(tmp_path, "c00000000002", "8", SWEEP)  # named as the sweep's id
    for text in ("100", SWEEP):
        found = find_job_or_sweep(text)
        assert isinstance(found, Sweep) and found.id == SWEEP


def test_a_recorded_directory_that_is_gone_wins_over_a_start_of_a_sweeps_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep(tmp_path / "sweeps", 2)  # id abcdef012345
    gone = job(tmp_path / "abcd", "d00000000003", "9", name="gone")
    record(gone)
    (tmp_path / "abcd" / "manifest.json").unlink()
    monkeypatch.chdir(tmp_path)
    found = find_job_or_sweep("abcd")
    assert not isinstance(found, Sweep) and found.id == gone.id


def test_a_name_is_its_newest_job(tmp_path: Path) -> None:
    _single(tmp_path, "e00000000001", "1", "train", submitted_at="2026-11-01T00:00:00Z")
    newest = _single(tmp_path, "e00000000002", "2", "train", submitted_at="2026-11-02T00:00:00Z")
    found = find_job_or_sweep("train")
    assert not isinstance(found, Sweep) and found.id == newest


def test_a_start_of_two_ids_is_ambiguous_even_when_they_share_a_name(tmp_path: Path) -> None:
    for n in range(6):
        _single(tmp_path, f"f0000000000{n}", str(10 + n), "train" if n < 2 else f"n{n}",
                submitted_at=f"2026-11-0{n + 1}T00:00:00Z")  # fmt: skip
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("f000")
    shown = ", ".join(f"f0000000000{n} (slurm {10 + n})" for n in (5, 4, 3, 2, 1))
    assert str(raised.value) == f"'f000' names 6 jobs: {shown}; give the id"
    for n in range(2, 6):
        (tmp_path / f"f0000000000{n}" / "manifest.json").unlink()
    with sqlite3.connect(registry_path()) as db:
        db.execute("DELETE FROM jobs WHERE name != 'train'")
    db.close()
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("f00")
    assert str(raised.value) == (
        "'f00' names 2 jobs: f00000000001 (slurm 11), f00000000000 (slurm 10); give the id"
    )


def test_a_scheduler_id_of_two_jobs_is_ambiguous(tmp_path: Path) -> None:
    _single(tmp_path, "a10000000001", "11", "one")
    _single(tmp_path, "a10000000002", "11", "two", launcher="skypilot")
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("11")
    assert str(raised.value).startswith("'11' names 2 jobs: ")


def test_a_start_of_sweeps_and_jobs_lists_five_of_each(tmp_path: Path) -> None:
    for n in range(6):  # the sweeps are newer than the jobs: 2026-11-30
        sweep(tmp_path / "sweeps", 1, array=200 + n, sweep_id=f"ab{n}000000000")
        _single(tmp_path, f"ab11111111{n}1", str(300 + n), f"j{n}",
                submitted_at=f"2026-11-0{n + 1}T00:00:00Z")  # fmt: skip
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("ab")
    sweeps = ", ".join(f"sweep ab{n}000000000" for n in (5, 4, 3, 2, 1))
    singles = ", ".join(f"ab11111111{n}1 (slurm {300 + n})" for n in (5, 4, 3, 2, 1))
    assert str(raised.value) == (f"'ab' names 12 jobs or sweeps: {sweeps}, {singles}; give the id")


def test_a_start_of_a_sweeps_id_and_of_another_sweeps_point_is_ambiguous(
    tmp_path: Path,
) -> None:
    sweep(tmp_path / "one", 1, sweep_id="c0ffee000000", array=500)
    record(job(tmp_path / "two" / "p0", "c0aaaa000000", "600_0", name="lr",
               sweep="0123456789ab", point=0))  # fmt: skip
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("c0")
    assert str(raised.value) == (
        "'c0' names 2 jobs or sweeps: sweep c0ffee000000, c0aaaa000000 (slurm 600_0); give the id"
    )


def test_a_sweep_whose_records_hold_no_manifest(tmp_path: Path) -> None:
    sweep(tmp_path, 1)
    with sqlite3.connect(registry_path()) as db:
        db.execute("UPDATE jobs SET manifest = '{bad'")
    db.close()
    with pytest.raises(JobError) as raised:
        find_job_or_sweep(SWEEP)
    assert str(raised.value) == (
        f"the records of sweep {SWEEP} cannot be read; `automodel-launch jobs` says why"
    )


def test_a_home_that_does_not_exist_is_a_name(tmp_path: Path) -> None:
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("~no-such-user-here/x")
    assert str(raised.value) == (
        "no job or sweep is '~no-such-user-here/x' (an id, scheduler id, job directory or "
        "name); `automodel-launch jobs` lists them"
    )


def test_a_directory_without_a_manifest_is_looked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(JobError, match=r"^no job or sweep is 'plain' "):
        find_job_or_sweep("plain")
