"""The pieces of submitting to a named cluster that need no network: the credentials a
job takes along, where its directory goes, the last state kept, the job's record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from pydantic import ValidationError

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.origins import RemoteRecord
from automodel_launch.jobs.status import JobStatus
from automodel_launch.launchers.slurm.submit import referenced_credentials
from automodel_launch.remote.clusters import Remote
from automodel_launch.remote.last_seen import LAST_SEEN, keep, recalled
from automodel_launch.remote.place import Placement
from automodel_launch.remote.session import RemoteSession, for_jobs

ROOT = Path(__file__).resolve().parents[2]


def manifest(job_dir: Path, remote: dict[str, Any] | None = None) -> Manifest:
    return Manifest(
        id="abc123", name="job", launcher="slurm", job_dir=str(job_dir),
        submitted_at="2026-11-30T16:49:19Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch", "submit", "x.yaml"), artifacts=("job.sbatch",),
        scheduler_id="3", remote=remote,
    )  # fmt: skip


def test_only_referenced_credentials_set_here_are_taken() -> None:
    files = [
        'export HF_TOKEN="${HF_TOKEN}"\nexport DATA="${DATA_DIR}"',
        "key: ${oc.env:WANDB_API_KEY}",
    ]
    environ = {"HF_TOKEN": "hf_x", "WANDB_API_KEY": "w", "DATA_DIR": "/d",
               "AWS_SECRET_ACCESS_KEY": "a", "GITHUB_TOKEN": ""}  # fmt: skip
    files.append("${GITHUB_TOKEN}")
    assert referenced_credentials(files, environ) == {"HF_TOKEN": "hf_x", "WANDB_API_KEY": "w"}


def test_placement_maps_job_directories_and_their_points(tmp_path: Path) -> None:
    placed = Placement(tmp_path / "here", PurePosixPath("/lustre/me"))
    assert placed.remote(tmp_path / "here" / "job_1") == "/lustre/me/job_1"
    assert (
        placed.remote(tmp_path / "here" / "job_1" / "points" / "3") == "/lustre/me/job_1/points/3"
    )
    with pytest.raises(ValueError):
        placed.remote(tmp_path / "elsewhere")


def test_a_session_knows_where_each_job_is(tmp_path: Path) -> None:
    session = RemoteSession(Remote(name="lab", host="h", remote_dir="/r"))
    session.place(tmp_path / "a", "/r/a")
    session.place(tmp_path / "a" / "points" / "1", "/other/p1")
    assert session.where(str(tmp_path / "a" / "job.sbatch")) == "/r/a/job.sbatch"
    assert session.where(str(tmp_path / "a" / "points" / "1")) == "/other/p1"
    with pytest.raises(Exception, match="is no job directory of lab"):
        session.where(str(tmp_path / "b"))


def test_jobs_find_their_cluster_by_name_else_by_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    record = {"name": "lab", "host": "me@login", "port": 2222, "job_dir": "/r/job"}
    session = for_jobs([manifest(tmp_path, record), manifest(tmp_path / "local")])
    assert session is not None
    assert (session.remote.host, session.remote.port) == ("me@login", 2222)
    assert session.where(str(tmp_path / "x.out")) == "/r/job/x.out"
    assert for_jobs([manifest(tmp_path)]) is None


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "-x", "host": "h", "job_dir": "/r"},
        {"name": "lab", "host": "-oProxyCommand=x", "job_dir": "/r"},
        {"name": "lab", "host": "h", "job_dir": "relative"},
        {"name": "lab", "host": "h", "job_dir": "/r\nx"},
        {"name": "lab", "host": "h", "port": 0, "job_dir": "/r"},
    ],
)
def test_a_record_that_does_not_fit_is_no_manifest(tmp_path: Path, bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        manifest(tmp_path, bad)
    assert RemoteRecord.model_validate({"name": "lab", "host": "h", "job_dir": "/r"}).port is None


def test_the_last_state_is_kept_and_recalled(tmp_path: Path) -> None:
    job = manifest(tmp_path)
    keep(JobStatus(job, "RUNNING"))
    seen = json.loads((tmp_path / LAST_SEEN).read_text())
    assert seen["state"] == "RUNNING"
    keep(JobStatus(job, "UNKNOWN", note="cannot reach lab"))  # not kept: no answer
    shown = recalled(JobStatus(job, "UNKNOWN", note="cannot reach lab (h): connection refused"))
    assert shown.state == "RUNNING"
    assert shown.note is not None and shown.note.startswith(
        "cannot reach lab (h): connection refused; last seen RUNNING at "
    )
    assert recalled(JobStatus(job, "PENDING")).state == "PENDING"


@pytest.mark.parametrize(
    "text",
    [
        '{"state": "EXPLODED", "at": 1}',
        '{"state": "RUNNING"}',
        "not json",
        '{"state": "RUNNING", "at": -1}',
    ],
)
def test_a_last_state_that_does_not_fit_is_ignored(tmp_path: Path, text: str) -> None:
    (tmp_path / LAST_SEEN).write_text(text)
    assert recalled(JobStatus(manifest(tmp_path), "UNKNOWN", note="n")).state == "UNKNOWN"


def test_a_last_state_that_is_a_pipe_is_ignored(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / LAST_SEEN)
    assert recalled(JobStatus(manifest(tmp_path), "UNKNOWN", note="n")).state == "UNKNOWN"


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "PYTHONPATH": str(ROOT),
           "AUTOMODEL_LAUNCH_STATE_DIR": str(tmp_path / "state")}  # fmt: skip
    return subprocess.run([sys.executable, "-m", "automodel_launch", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip


def _profiles(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "config" / "automodel-launch"
    folder.mkdir(parents=True)
    (folder / "profiles.yaml").write_text(text)


RECIPE = (
    'slurm:\n  job_name: look\n  time: "00:10:00"\n  container_image: null\n'
    "step_scheduler:\n  max_steps: 1\n"
)


def test_render_names_the_cluster_paths_without_connecting(tmp_path: Path) -> None:
    _profiles(
        tmp_path,
        "clusters:\n  lab:\n    host: nobody@nowhere.invalid\n    remote_dir: /lustre/me\n",
    )
    (tmp_path / "r.yaml").write_text(RECIPE)
    done = _cli(tmp_path, "render", "r.yaml", "--remote", "lab", "--job-dir", "out/look")
    assert done.returncode == 0, done.stderr
    script = (tmp_path / "out" / "look" / "job.sbatch").read_text()
    assert "JOB_DIR=/lustre/me/look" in script
    assert "#SBATCH --output=/lustre/me/look/%x_%j.out" in script
    assert str(tmp_path) not in script
    missing = _cli(tmp_path, "render", "r.yaml", "--remote", "lab")
    assert missing.returncode == 2 and "--remote lab: give --job-dir too" in missing.stderr


@pytest.mark.parametrize(
    ("profiles", "args", "said", "code"),
    [
        (
            "clusters:\n  lab:\n    host: h\n    remote_dir: /r\n",
            ("--remote", "lba"),
            "no cluster 'lba'; did you mean lab?",
            2,
        ),
        (
            "clusters:\n  lab:\n    host: h\n    remote_dir: r\n",
            ("--remote", "lab"),
            "clusters.lab.remote_dir: must be an absolute path",
            2,
        ),
        ("{}\n", ("--remote", "lab"), "no cluster 'lab': no profile file defines clusters:", 2),
        (
            "clusters:\n  lab:\n    host: h\n    remote_dir: /lustre/my jobs\n",
            ("--remote", "lab"),
            "profiles.yaml: clusters.lab.remote_dir: contains ' ', which an #SBATCH line cannot "
            "carry safely: choose a path of letters, digits, '/', '_', '-', '.'",
            2,
        ),
    ],
)
def test_a_cluster_that_cannot_be_used_is_one_line(
    tmp_path: Path, profiles: str, args: tuple[str, ...], said: str, code: int
) -> None:
    _profiles(tmp_path, profiles)
    (tmp_path / "r.yaml").write_text(RECIPE)
    done = _cli(tmp_path, "submit", "r.yaml", *args)
    assert done.returncode == code, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert len([line for line in done.stderr.splitlines() if line.startswith("error:")]) == 1


def test_remote_is_refused_for_a_recipe_without_slurm(tmp_path: Path) -> None:
    _profiles(tmp_path, "clusters:\n  lab:\n    host: h\n    remote_dir: /r\n")
    (tmp_path / "r.yaml").write_text("step_scheduler:\n  max_steps: 1\n")
    done = _cli(tmp_path, "submit", "r.yaml", "--remote", "lab")
    assert done.returncode == 2, done.stderr
    assert "--remote lab: only slurm: jobs are submitted to a named cluster" in done.stderr


def test_a_remote_shell_puts_no_credential_on_the_command_line() -> None:
    from automodel_launch.remote.job_shell import split_environment

    there = {"HF_TOKEN": "cluster-side-value-123", "PATH": "/usr/bin", "HOME": "/h"}
    env = {**there, "OMP_NUM_THREADS": "1", "MY_COPY": "cluster-side-value-123",
           "WANDB_API_KEY": "w", "SHAPED": "hf_" + "a" * 34}  # fmt: skip
    given, held = split_environment(env, there)
    assert given == {"OMP_NUM_THREADS": "1"}
    assert held == ["MY_COPY", "SHAPED", "WANDB_API_KEY"]
