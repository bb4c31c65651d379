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
