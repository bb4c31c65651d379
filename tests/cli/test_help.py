"""Every command's --help as a user sees it: each option explained, no value type shown
for a flag, and help texts whole (rich's markup takes ``[a, ...]`` for a style)."""

from __future__ import annotations

from typing import Any

import pytest
from typer import rich_utils

from automodel_launch.cli.app import command, run_app

ROOT = command()


def walk(cmd: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    """Every command and group, with the words that name it."""
    found = [(path, cmd)]
    for name, sub in getattr(cmd, "commands", {}).items():
        found += walk(sub, [*path, name])
    return found


COMMANDS = walk(ROOT, [])


def help_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert run_app([*args, "--help"]) == 0
    return capsys.readouterr().out


@pytest.fixture(autouse=True)
def wide_plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """One line an option (no wrapping to compare), no colour codes."""
    monkeypatch.setattr(rich_utils, "MAX_WIDTH", 2000)
    monkeypatch.setattr(rich_utils, "FORCE_TERMINAL", False)


def test_every_command_is_rendered() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "submit", "render", "config", "config show", "status", "shell"} <= names
    assert len(names) == 17


@pytest.mark.parametrize(("path", "cmd"), COMMANDS, ids=[" ".join(p) or "-" for p, _ in COMMANDS])
def test_each_option_has_its_whole_help_and_no_flag_a_type(
    path: list[str], cmd: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = help_of(path, capsys)
    assert "<bool>" not in shown
    rows = [" ".join(line.strip(" │").split()).removeprefix("* ") for line in shown.splitlines()]
    for param in cmd.params:
        text = getattr(param, "help", None)
        assert text, f"{' '.join(path)} {param.opts or param.name} has no help"
        written = " ".join(text.replace("\\[", "[").split())
        row = next((r for r in rows if r.startswith(param.opts[0])), None)
        if param.param_type_name == "argument":
            row = next((r for r in rows if written in r), None)
        assert row is not None and written in row, (param.opts, written, row)
    assert any(r.startswith("--help Show this message and exit.") for r in rows), rows


@pytest.mark.parametrize("name", ["render", "submit"])
def test_the_sweep_example_survives(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert "a value with a comma goes in a YAML list: 'KEY=[a, \"b,c\"]'." in help_of(
        [name], capsys
    )


def test_command_and_domain_are_explained(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [" ".join(line.strip(" │").split()) for line in help_of(["submit"], capsys).splitlines()]
    assert any(r.startswith("--command <str> AutoModel 0.1.0 to 0.3.0: the command") for r in rows)
    assert any(r.startswith("--domain <str> AutoModel 0.1.0 to 0.3.0: the domain") for r in rows)
    assert any(r.startswith("--dry-run Check with the scheduler") for r in rows), rows
