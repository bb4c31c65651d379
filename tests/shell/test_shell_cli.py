"""``automodel-launch shell`` as a user runs it, with a stand-in ``salloc`` and ``srun``
first on PATH (their words are logged; each runs what follows them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from automodel_launch.launchers.slurm.shell import WHOLE_NODE_NOTE
from tests.shell.test_job_shell import RECIPE, TOKEN
from tests.support.fake_slurm import FakeSlurm

ROOT = Path(__file__).resolve().parents[2]
SALLOC = 'while [ "$1" != srun ]; do shift; done\nexec "$@"\n'
SRUN = 'while [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n'
CONFIG = RECIPE + (
    "slurm:\n  container_image: null\n  env_vars:\n    HF_TOKEN: ${HF_TOKEN}\n"
    "    GREETING: hello from ${USER}\n"
)


def shell(
    fake_slurm: FakeSlurm, tmp_path: Path, *args: str, config: str = CONFIG
) -> subprocess.CompletedProcess[str]:
    fake_slurm.tool("salloc", SALLOC)
    fake_slurm.tool("srun", SRUN)
    fake_slurm.in_front()
    (tmp_path / "job.yaml").write_text(config)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_TOKEN": TOKEN, "USER": "ada"}
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", "shell", "job.yaml", *args],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60, check=False,
    )  # fmt: skip


def test_the_command_runs_in_the_allocation_with_the_recipes_variables(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    script = f'echo "$GREETING"; [ "${{#HF_TOKEN}}" = {len(TOKEN)} ] && echo token-there; exit 7'
    done = shell(fake_slurm, tmp_path, "--", "sh", "-c", script)
    assert (done.returncode, done.stdout) == (7, "hello from ada\ntoken-there\n")
    assert done.stderr == WHOLE_NODE_NOTE + "\n"  # gpus_per_node: null, the default
    salloc = ["salloc", "--job-name=automodel-launch-shell", "--nodes=1", "--ntasks-per-node=1",
              "--time=04:00:00", "--exclusive"]  # fmt: skip
    srun = ["srun", "--export=ALL", "--ntasks-per-node=1", "--", "sh", "-c", script]
    # salloc's words (srun's as salloc runs it among them), then srun's
    assert fake_slurm.argv() == [[*salloc, *srun], srun]
    # the token reached the command by name (its environment), on no command line
    assert TOKEN not in "\n".join(fake_slurm.calls)


def test_nodes_and_set_reach_salloc(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    done = shell(
        fake_slurm, tmp_path, "--nodes", "2", "--set", "slurm.partition=debug", "--", "true"
    )
    assert done.returncode == 0, done.stderr
    [words, _] = fake_slurm.argv()
    assert "--nodes=2" in words and "--partition=debug" in words


def test_a_config_with_errors_starts_nothing(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    done = shell(fake_slurm, tmp_path, "--", "touch", "ran", config=RECIPE + "slurm:\n  nodes: 0\n")
    assert done.returncode == 1
    assert "error[" in done.stderr and "slurm.nodes" in done.stderr
    assert not (tmp_path / "ran").exists() and fake_slurm.calls == []


def test_a_skypilot_recipe_is_refused(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    config = RECIPE + "skypilot:\n  cloud: aws\n  accelerators: A100:8\n"
    done = shell(fake_slurm, tmp_path, "--", "touch", "ran", config=config)
    assert done.returncode == 1
    assert "error: shell does not open SkyPilot clusters" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "ran").exists()


def test_a_token_written_in_the_recipe_starts_nothing_and_is_never_shown(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    config = RECIPE + f"slurm:\n  container_image: null\n  env_vars:\n    HF_TOKEN: {TOKEN}\n"
    done = shell(fake_slurm, tmp_path, "--", "touch", "ran", config=config)
    assert done.returncode == 1
    assert "secret-in-plain-text" in done.stderr and "Traceback" not in done.stderr
    assert TOKEN not in done.stdout + done.stderr
    assert not (tmp_path / "ran").exists() and fake_slurm.calls == []
