"""The typer-free validate path accepts exactly what the typer command accepts."""

from __future__ import annotations

from pathlib import Path

import typer.main

from automodel_launch.cli import fast
from automodel_launch.cli.app import app


def _validate_options() -> set[str]:
    command = typer.main.get_command(app).commands["validate"]  # type: ignore[attr-defined]
    names: set[str] = set()
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names - {"--help"}


def test_fast_path_knows_every_validate_option() -> None:
    assert set(fast.SWITCHES) | set(fast.VALUED) == _validate_options()


def test_anything_unusual_goes_to_typer() -> None:
    assert fast.parse([]) is None
    assert fast.parse(["--help"]) is None
    assert fast.parse(["--no-such-option", "a.yaml"]) is None
    assert fast.parse(["--format"]) is None
    assert fast.parse(["-f", "json", "--strict", "a.yaml", "--", "-b.yaml"]) == (
        {"format": "json", "strict": True},
        [Path("a.yaml"), Path("-b.yaml")],
    )
