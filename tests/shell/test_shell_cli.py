"""``automodel-launch shell`` as a user runs it, with a stand-in ``salloc`` and ``srun``
first on PATH (they record their words, then run what follows them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from automodel_launch.launchers.slurm.shell import WHOLE_NODE_NOTE
from tests.shell.test_job_shell import RECIPE, TOKEN

ROOT = Path(__file__).resolve().parents[2]
SALLOC = (
    '#!/bin/sh\nprintf "%s\\n" salloc "$@" >> "$WORDS"\n'
    'while [ "$1" != srun ]; do shift; done\nexec "$@"\n'
)
SRUN = (
    '#!/bin/sh\nprintf "%s\\n" srun "$@" >> "$WORDS"\n'
    'while [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n'
)
CONFIG = RECIPE + (
    "slurm:\n  container_image: null\n  env_vars:\n    HF_TOKEN: ${HF_TOKEN}\n"
    "    GREETING: hello from ${USER}\n"
)


def shell(tmp_path: Path, *args: str, config: str = CONFIG) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("salloc", SALLOC), ("srun", SRUN)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (tmp_path / "job.yaml").write_text(config)
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HF_TOKEN": TOKEN, "USER": "ada", "WORDS": str(tmp_path / "words"),
    }  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", "shell", "job.yaml", *args],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60, check=False,
    )  # fmt: skip


def test_the_command_runs_in_the_allocation_with_the_recipes_variables(tmp_path: Path) -> None:
    script = f'echo "$GREETING"; [ "${{#HF_TOKEN}}" = {len(TOKEN)} ] && echo token-there; exit 7'
    done = shell(tmp_path, "--", "sh", "-c", script)
    assert (done.returncode, done.stdout) == (7, "hello from ada\ntoken-there\n")
    assert done.stderr == WHOLE_NODE_NOTE + "\n"  # gpus_per_node: null, the default
    salloc = ["salloc", "--job-name=automodel-launch-shell", "--nodes=1", "--ntasks-per-node=1",
              "--time=04:00:00", "--exclusive"]  # fmt: skip
    srun = ["srun", "--export=ALL", "--ntasks-per-node=1", "--", "sh", "-c", script]
    # salloc's words, then srun's as salloc ran it, then as srun logged them
    assert (tmp_path / "words").read_text().splitlines() == [*salloc, *srun, *srun]
    # the token reached the command by name (its environment), on no command line
    assert TOKEN not in (tmp_path / "words").read_text()


def test_nodes_and_set_reach_salloc(tmp_path: Path) -> None:
    done = shell(tmp_path, "--nodes", "2", "--set", "slurm.partition=debug", "--", "true")
    assert done.returncode == 0, done.stderr
    words = (tmp_path / "words").read_text().splitlines()
    assert "--nodes=2" in words and "--partition=debug" in words


def test_a_config_with_errors_starts_nothing(tmp_path: Path) -> None:
    done = shell(tmp_path, "--", "touch", "ran", config=RECIPE + "slurm:\n  nodes: 0\n")
    assert done.returncode == 1
    assert "error[" in done.stderr and "slurm.nodes" in done.stderr
    assert not (tmp_path / "ran").exists() and not (tmp_path / "words").exists()


def test_a_skypilot_recipe_is_refused(tmp_path: Path) -> None:
    config = RECIPE + "skypilot:\n  cloud: aws\n  accelerators: A100:8\n"
    done = shell(tmp_path, "--", "touch", "ran", config=config)
    assert done.returncode == 1
    assert "error: shell does not open SkyPilot clusters" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "ran").exists()


def test_a_token_written_in_the_recipe_starts_nothing_and_is_never_shown(tmp_path: Path) -> None:
    config = RECIPE + f"slurm:\n  container_image: null\n  env_vars:\n    HF_TOKEN: {TOKEN}\n"
    done = shell(tmp_path, "--", "touch", "ran", config=config)
    assert done.returncode == 1
    assert "secret-in-plain-text" in done.stderr and "Traceback" not in done.stderr
    assert TOKEN not in done.stdout + done.stderr
    assert not (tmp_path / "ran").exists() and not (tmp_path / "words").exists()
