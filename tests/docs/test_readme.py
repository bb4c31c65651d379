"""The README's promises: its tour is real output, its test command is what CI runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import ROOT
from tests.docs.tour import console_steps, fake_cluster, normalised, run_step, tour_env

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def test_the_tour_and_the_pages_it_leads_to_are_the_real_output(tmp_path: Path) -> None:
    """The README's tour (validate, render, submit, jobs), then the status of the job it
    submitted (docs/jobs.md) and preflight (docs/preflight.md), in one directory against
    one stand-in cluster, as a user on a login node would run them."""
    steps = console_steps(README)
    assert [command.split()[1] for command, _ in steps] == ["validate", "render", "submit", "jobs"]
    assert "error[" in steps[0][1] and steps[1][1].startswith("#!/bin/bash\n#SBATCH")
    for page in ("jobs.md", "preflight.md"):
        steps += console_steps((DOCS / page).read_text(encoding="utf-8"))
    (tmp_path / "home").mkdir()
    env = tour_env(fake_cluster(tmp_path / "cluster"), tmp_path / "home")
    # a short directory, as on the page: status cuts a path of over 120 characters
    with tempfile.TemporaryDirectory(prefix="llm-", dir="/tmp") as where:
        cwd = Path(where)
        shutil.copytree(ROOT / "examples", cwd / "examples")
        for command, shown in steps:
            assert normalised(run_step(command, cwd, env), cwd) == normalised(shown), command


def test_the_set_up_command_runs_clean_here() -> None:
    """The README's first command, after its ``pip install .``, on a machine that is no
    cluster node and has no credentials set: it exits 0 and shows the SBATCH script."""
    command = re.search(r"## Set up.*?```bash\n([^\n]+)\n```", README, re.S)
    assert command, "the README has no set-up command"
    install, *steps = command.group(1).split(" && ")
    assert install == "python3 -m pip install ."
    assert [s.split()[:2] for s in steps] == [
        ["automodel-launch", "validate"],
        ["automodel-launch", "render"],
    ]
    outputs = []
    for step in steps:
        done = subprocess.run(
            [sys.executable, "-m", "automodel_launch", *step.split()[1:]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "HOME": str(ROOT)},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append(done.stdout)
    assert "0 errors" in outputs[0]
    assert outputs[1].startswith("#!/bin/bash\n#SBATCH --job-name=llm_finetune\n")


def test_ci_runs_the_readme_test_command() -> None:
    command = re.search(r"Run the tests.*?```bash\n([^\n]+)\n```", README, re.S)
    assert command, "the README names no test command"
    assert command.group(1) in Path(ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()


def test_the_validate_page_shows_the_real_output() -> None:
    steps = console_steps((DOCS / "validate.md").read_text(encoding="utf-8"))
    assert [command for command, _ in steps] == ["automodel-launch validate examples/broken.yaml"]
    for command, shown in steps:
        done = subprocess.run(
            [sys.executable, "-m", "automodel_launch", *command.split()[1:]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin"},
        )
        assert done.stdout == shown


def test_the_preflight_table_names_real_codes() -> None:
    from automodel_launch.diagnostics import CODES

    section = (DOCS / "preflight.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\| `([a-z-]+)`", section, re.M))
    named |= set(re.findall(r"^\| `[a-z-]+`, `([a-z-]+)`", section, re.M))
    assert len(named) >= 14
    assert sorted(named - set(CODES)) == []
