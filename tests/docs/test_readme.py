"""The README's promises: its tour is real output, its test command is what CI runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_validate_tour_is_the_real_output() -> None:
    block = re.search(r"```console\n\$ automodel-launch (validate [^\n]+)\n(.*?)```", README, re.S)
    assert block, "the README has no validate tour"
    args, shown = block.group(1).split(), block.group(2)
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.stdout == shown


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


def test_the_preflight_table_names_real_codes() -> None:
    from automodel_launch.diagnostics import CODES

    section = README.split("## Live preflight", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| `([a-z-]+)`", section, re.M))
    named |= set(re.findall(r"^\| `[a-z-]+`, `([a-z-]+)`", section, re.M))
    assert len(named) >= 14
    assert sorted(named - set(CODES)) == []
