"""``--after`` in process: the dependency written for a job, a sweep and a sweep's point,
and each refusal (no such job, an empty one, a job that cannot be waited for, a job of
another cluster) with its exact message."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.jobs.origins import RemoteRecord
from automodel_launch.plan.after import AfterError, dependency
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep


def _lab(name: str = "lab") -> RemoteRecord:
    return RemoteRecord(name=name, host=f"{name}-login", job_dir=f"/scratch/{name}/j")


@pytest.fixture
def jobs(tmp_path: Path) -> Path:
    """A Slurm job (``train``, 4242), a sweep of 2 points (array 100, named ``lr``), a
    Slurm job of cluster ``lab`` (``far``, 4343), a local run and a Slurm job that never
    got an id."""
    sweep(tmp_path / "jobs", 2)
    record(
        job(tmp_path / "jobs" / "train", "a00000000001", "4242", name="train"),
        job(tmp_path / "jobs" / "far", "b00000000002", "4343", name="far", remote=_lab()),
        job(tmp_path / "jobs" / "here", "c00000000003", "77", name="here",
            launcher="interactive"),
        job(tmp_path / "jobs" / "none", "d00000000004", None, name="none"),
    )  # fmt: skip
    return tmp_path


def test_the_dependency_of_each_kind_of_job(jobs: Path) -> None:
    assert dependency([]) is None
    assert dependency(["train"]) == "afterok:4242"
    assert dependency(["a00000000001:any"]) == "afterany:4242"
    assert dependency(["4242:ok"]) == "afterok:4242"
    assert dependency([str(jobs / "jobs" / "train")]) == "afterok:4242"
    # a sweep by its id, its name or one point: its whole array, once
    assert dependency([SWEEP, "lr:any"]) == "afterok:100,afterany:100"
    assert dependency(["abcdef000001"]) == "afterok:100"
    assert dependency(["train", "abcdef000000"]) == "afterok:4242,afterok:100"
    assert dependency(["far"], "lab") == "afterok:4343"


def test_a_colon_that_is_no_mode_is_part_of_the_job(jobs: Path) -> None:
    with pytest.raises(AfterError) as raised:
        dependency(["train:soon"])
    assert str(raised.value) == (
        "--after train:soon: no job or sweep is 'train:soon' (an id, scheduler id, job "
        "directory or name); `automodel-launch jobs` lists them"
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [("", "--after '': the job reference '' is empty"),
     (" ", "--after ' ': the job reference ' ' is only blanks"),
     (":any", "--after ':any': the job reference '' is empty"),
     (" :ok", "--after ' :ok': the job reference ' ' is only blanks")],
)  # fmt: skip
def test_an_empty_job_is_refused_before_anything_is_looked_up(
    jobs: Path, given: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(jobs / "jobs" / "train")  # "" as a path: this job's directory
    with pytest.raises(AfterError) as raised:
        dependency(["train", given])
    assert str(raised.value) == (
        f"{said}: give a job's id (or a unique start of it), its scheduler id, its job "
        "directory or its name"
    )
    assert raised.value.hint == (
        "`automodel-launch jobs` lists them; an unset shell variable gives an empty argument"
    )


def test_jobs_that_cannot_be_waited_for(jobs: Path) -> None:
    with pytest.raises(AfterError) as raised:
        dependency(["here"])
    assert (str(raised.value), raised.value.hint) == (
        "--after here: job c00000000003 ran with interactive; only a Slurm job can wait for "
        "another, and only for a Slurm job",
        "submit it when that job has ended",
    )
    with pytest.raises(AfterError) as raised:
        dependency(["none:any"])
    assert str(raised.value) == "--after none:any: job d00000000004 has no Slurm job id to wait for"
    assert raised.value.hint is None


@pytest.mark.parametrize(
    ("given", "cluster", "said", "hint"),
    [("far", None, "job b00000000002 ran on cluster lab, and this job goes to this host's Slurm",
      "to cluster lab (--remote lab)"),
     ("train", "lab", "job a00000000001 ran on this host's Slurm, and this job goes to cluster "
      "lab", "here (without --remote)"),
     ("lr", "lab", "job abcdef000000 ran on this host's Slurm, and this job goes to cluster lab",
      "here (without --remote)"),
     ("far", "big", "job b00000000002 ran on cluster lab, and this job goes to cluster big",
      "to cluster lab (--remote lab)")],
)  # fmt: skip
def test_a_job_of_another_cluster_is_refused(
    jobs: Path, given: str, cluster: str | None, said: str, hint: str
) -> None:
    with pytest.raises(AfterError) as raised:
        dependency(["train" if cluster is None else "far", given], cluster)
    job_id = said.split()[1]
    assert (str(raised.value), raised.value.hint) == (
        f"--after {given}: {said}; a Slurm dependency only names jobs of the same cluster",
        f"submit this job {hint} as well, or submit it once job {job_id} has ended "
        f"(`automodel-launch status {job_id}` says when)",
    )


def test_a_sweep_by_anything_status_takes(jobs: Path) -> None:
    """Its array's id and a unique start of its id name it, as for ``status``."""
    assert dependency(["100", f"{SWEEP[:8]}:any"]) == "afterok:100,afterany:100"


def test_only_a_sweeps_point_waits_for_its_whole_array(jobs: Path) -> None:
    record(job(jobs / "jobs" / "task", "e00000000005", "500_2", name="task"))
    assert dependency(["task"]) == "afterok:500_2"  # a single job: its own id


def test_the_points_of_several_arrays_are_each_waited_for(jobs: Path) -> None:
    sweep(jobs / "mixed", 1, array=300, sweep_id="0123456789ab")
    record(job(jobs / "mixed" / "p1", "012345000001", "400_1", name="lr2",
               sweep="0123456789ab", point=1))  # fmt: skip
    assert dependency(["0123456789ab:any"]) == "afterany:300:400"


def test_the_mode_is_after_the_last_colon(jobs: Path) -> None:
    odd = job(jobs / "jobs" / "d:1", "f00000000006", "600", name="odd")
    record(odd)
    assert dependency([f"{odd.job_dir}:any"]) == "afterany:600"
    assert dependency([odd.job_dir]) == "afterok:600"
