"""What the typer command accepts, for the tests of the paths that parse without it."""

from __future__ import annotations

import typer.main

from automodel_launch.cli.app import app


def typer_options(command_name: str) -> set[str]:
    """Every option the typer command ``command_name`` takes (both spellings), less
    ``--help``."""
    command = typer.main.get_command(app).commands[command_name]  # type: ignore[attr-defined]
    names: set[str] = set()
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names - {"--help"}
