"""What a job on a named cluster keeps on this host: where its directory is (here and
there) and the last state the cluster gave."""

from __future__ import annotations

import json
import time
from pathlib import Path, PurePosixPath

import pytest

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.remote.last_seen import LAST_SEEN, keep, recalled
from automodel_launch.remote.place import Placement, local_home


def _manifest(job_dir: Path) -> Manifest:
    return Manifest(
        id="abc123", name="job", launcher="slurm", job_dir=str(job_dir),
        submitted_at="2026-11-30T16:49:19Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch", "submit", "x.yaml"), artifacts=("job.sbatch",),
        scheduler_id="3",
    )  # fmt: skip


def test_relative_paths_are_placed_from_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    placed = Placement(Path("here"), PurePosixPath("/lustre/me"))
    assert placed.remote(tmp_path / "here" / "j") == "/lustre/me/j"
    assert placed.remote("here/j/x.out") == "/lustre/me/j/x.out"
    assert placed.remote(Path("here")) == "/lustre/me"


def test_cluster_job_directories_live_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert local_home("lab") == tmp_path / "automodel-launch" / "remote" / "lab"


def test_the_state_kept_is_the_clusters_with_the_time(tmp_path: Path) -> None:
    before = int(time.time())
    keep(JobStatus(_manifest(tmp_path), "RUNNING"))
    seen = json.loads((tmp_path / LAST_SEEN).read_text())
    assert seen["state"] == "RUNNING" and before <= seen["at"] <= time.time()


@pytest.mark.parametrize(
    ("state", "note"), [("UNKNOWN", None), ("RUNNING", "cannot reach lab"), ("UNKNOWN", "x")]
)
def test_no_answer_is_not_kept(tmp_path: Path, state: str, note: str | None) -> None:
    keep(JobStatus(_manifest(tmp_path), state, note=note))  # type: ignore[arg-type]
    assert not (tmp_path / LAST_SEEN).exists()


def test_a_directory_that_cannot_take_it_is_no_error(tmp_path: Path) -> None:
    keep(JobStatus(_manifest(tmp_path / "gone"), "RUNNING"))
    assert not (tmp_path / "gone").exists()


def test_the_state_recalled_says_when(tmp_path: Path) -> None:
    (tmp_path / LAST_SEEN).write_text('{"state": "PENDING", "at": 1795000000}')
    job = _manifest(tmp_path)
    alone = recalled(JobStatus(job, "UNKNOWN"))
    assert (alone.state, alone.note) == ("PENDING", "last seen PENDING at 2026-11-18 11:06 UTC")
    said = recalled(JobStatus(job, "UNKNOWN", note="cannot reach lab"))
    assert said.note == "cannot reach lab; last seen PENDING at 2026-11-18 11:06 UTC"
    answered = JobStatus(job, "FAILED", note="exit 1")
    assert recalled(answered) is answered
    missing = JobStatus(_manifest(tmp_path / "none"), "UNKNOWN", note="n")
    assert recalled(missing) is missing


def test_the_latest_time_kept_is_two_to_the_fortieth(tmp_path: Path) -> None:
    (tmp_path / LAST_SEEN).write_text('{"state": "PENDING", "at": 1099511627776}')
    assert recalled(JobStatus(_manifest(tmp_path), "UNKNOWN")).state == "PENDING"
    (tmp_path / LAST_SEEN).write_text('{"state": "PENDING", "at": 0}')
    assert recalled(JobStatus(_manifest(tmp_path), "UNKNOWN")).note == (
        "last seen PENDING at 1970-01-01 00:00 UTC"
    )


def test_the_state_file_is_read_up_to_four_kilobytes(tmp_path: Path) -> None:
    text = '{"state": "PENDING", "at": 1}'
    (tmp_path / LAST_SEEN).write_text(text + " " * (4096 - len(text)))
    assert recalled(JobStatus(_manifest(tmp_path), "UNKNOWN")).state == "PENDING"
    (tmp_path / LAST_SEEN).write_text(text + " " * (4097 - len(text)))
    assert recalled(JobStatus(_manifest(tmp_path), "UNKNOWN")).state == "UNKNOWN"


@pytest.mark.parametrize(
    "text",
    [
        '{"state": "PENDING", "at": "1"}',
        '{"state": "PENDING", "at": 1.5}',
        '{"state": "PENDING", "at": 1099511627777}',
        '{"state": "PENDING", "at": -1}',
        '{"state": "PENDING", "at": 1, "more": 1}',
    ],
)
def test_a_state_file_out_of_shape_is_ignored(tmp_path: Path, text: str) -> None:
    (tmp_path / LAST_SEEN).write_text(text)
    assert recalled(JobStatus(_manifest(tmp_path), "UNKNOWN")).state == "UNKNOWN"
