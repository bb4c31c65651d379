"""The profile tour of docs/profiles.md is real output."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from tests.conftest import ROOT
from tests.docs.tour import console_steps

PAGE = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")


def _tour() -> list[tuple[str, str]]:
    steps = console_steps(PAGE)
    assert steps, "docs/profiles.md has no profile tour"
    return steps


def test_the_tour_shows_a_profile_a_set_init_and_explain() -> None:
    commands = [command for command, _ in _tour()]
    assert any("--profile" in c and "--set" in c for c in commands)
    assert any(c.startswith("automodel-launch init ") for c in commands)
    assert any(c.startswith("automodel-launch explain ") for c in commands)


def test_the_profile_tour_is_the_real_output() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOMODEL_LAUNCH_")}
    env |= {"PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": "/nonexistent"}
    env.pop("HF_TOKEN", None)
    program = f"{shlex.quote(sys.executable)} -m automodel_launch"
    for command, shown in _tour():
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            env[name] = value
            continue
        script = re.sub(r"^automodel-launch\b", program, command)
        done = subprocess.run(
            ["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60
        )
        assert done.stdout == shown, command
