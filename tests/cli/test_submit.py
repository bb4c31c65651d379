"""``automodel-launch submit``: a job directory is removed only when nothing ran in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.fake_slurm import FakeSlurm

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
LOCAL = f"{RECIPE}model:\n  name: tiny\n"
SLURM = f'slurm:\n  time: "04:00:00"\n{RECIPE}model:\n  name: tiny\n'


def fake_tool(bin_dir: Path, name: str, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / name
    tool.write_text("#!/bin/bash\n" + body)
    tool.chmod(0o755)


def submit(*args: str, cwd: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", "submit", *args, "--no-check-paths"],
        capture_output=True, text=True, cwd=cwd, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{bin_dir}:{os.environ['PATH']}"},
    )  # fmt: skip


def test_a_failed_local_run_keeps_its_job_directory(tmp_path: Path) -> None:
    # the run wrote a log (and could have written checkpoints) before it failed
    fake_tool(tmp_path / "bin", "automodel", 'echo "step 1 loss 2.3" > train.log\nexit 3\n')
    (tmp_path / "local.yaml").write_text(LOCAL)
    job = tmp_path / "jobs" / "run1"
    done = submit("local.yaml", "--job-dir", str(job), cwd=tmp_path, bin_dir=tmp_path / "bin")
    assert done.returncode == 1
    assert done.stderr.endswith(
        f"\nerror: the run exited with status 3; its logs and files are kept in {job}\n"
    )
    assert sorted(p.name for p in job.iterdir()) == [
        "errors",  # where torch's agent would record a rank's failure
        "exit_code",
        "job_config.yaml",
        "launch.yaml",
        "manifest.json",
        "run.sh",
        "train.log",
    ]
    assert (job / "exit_code").read_text() == "3\n"
    assert (job / "train.log").read_text() == "step 1 loss 2.3\n"


def test_a_refused_submission_removes_what_it_wrote(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("sbatch", stderr="sbatch: error: invalid account\n", code=1)
    fake_slurm.in_front()
    (tmp_path / "slurm.yaml").write_text(SLURM)
    (tmp_path / "jobs").mkdir()
    job = tmp_path / "jobs" / "new" / "run1"
    args = ("slurm.yaml", "--no-preflight", "--job-dir", str(job))
    done = submit(*args, cwd=tmp_path, bin_dir=fake_slurm.bin)
    assert done.returncode == 1
    assert done.stderr.endswith("\nerror: sbatch refused the job: sbatch: error: invalid account\n")
    assert list((tmp_path / "jobs").iterdir()) == []  # "new" was created by submit: gone too


@pytest.mark.parametrize(
    ("recipe", "version", "command"),
    [
        (LOCAL, "0.7.0", "automodel"),
        ("model:\n  name: tiny\n", "0.3.0", "automodel finetune llm -c"),  # the 2025 form
    ],
)
def test_a_dry_run_removes_what_it_wrote(
    tmp_path: Path, recipe: str, version: str, command: str
) -> None:
    (tmp_path / "local.yaml").write_text(recipe)
    job = tmp_path / "new" / "run1"
    done = submit(
        "local.yaml", "--dry-run", "--job-dir", str(job), "--set", f"automodel_version={version}",
        cwd=tmp_path, bin_dir=tmp_path / "bin",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"would run: {command} {job}/job_config.yaml\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["local.yaml"]


def test_a_home_relative_job_dir_is_expanded(tmp_path: Path) -> None:
    fake_tool(tmp_path / "bin", "automodel", "exit 0\n")
    (tmp_path / "local.yaml").write_text(LOCAL)
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "submit", "local.yaml", "--job-dir", "~/x"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home),
             "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"run finished; files in {home}/x\nrecorded as job ")
    assert not (tmp_path / "~").exists()
    assert sorted(p.name for p in (home / "x").iterdir()) == [
        "errors",
        "exit_code",
        "job_config.yaml",
        "launch.yaml",
        "manifest.json",
        "run.sh",
    ]


def test_a_literal_under_a_secret_named_recipe_key_stops_a_submission(tmp_path: Path) -> None:
    # validate only warns; a submission would carry the password in job_config.yaml
    (tmp_path / "local.yaml").write_text(LOCAL + "wandb:\n  password: correct-horse\n")
    job = tmp_path / "run1"
    for dry_run in ((), ("--dry-run",)):
        done = submit(
            "local.yaml", *dry_run, "--job-dir", str(job), cwd=tmp_path, bin_dir=tmp_path / "bin"
        )
        assert done.returncode == 1
        assert "error[secret-in-recipe] wandb.password" in done.stderr
        assert "correct-horse" not in done.stderr + done.stdout
        assert not job.exists()
    checked = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", "local.yaml"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert checked.returncode == 0
    assert "warning[secret-in-recipe] wandb.password" in checked.stdout
