"""The README's profile tour is real output."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _tour() -> list[tuple[str, str]]:
    part = README.split("## Profiles, overrides", 1)[1]
    block = re.search(r"```console\n(.*?)```", part, re.S)
    assert block, "the README has no profile tour"
    steps: list[tuple[str, str]] = []
    for chunk in re.split(r"^\$ ", block.group(1), flags=re.M)[1:]:
        command, _, output = chunk.partition("\n")
        steps.append((command, output))
    return steps


def test_the_tour_shows_a_profile_a_set_and_init() -> None:
    commands = [command for command, _ in _tour()]
    assert any("--profile" in c and "--set" in c for c in commands)
    assert any(c.startswith("automodel-launch init ") for c in commands)


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
