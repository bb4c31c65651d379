"""``automodel-launch diff JOB JOB``: what differs between two jobs, one line a difference
(``key: old -> new``), or one JSON object (docs/json-output.md)."""

from __future__ import annotations

from typing import Annotated

import typer


def command(
    old: Annotated[str, typer.Argument(help="Job: id, scheduler id, job directory or name.")],
    new: Annotated[str, typer.Argument(help="The job to compare it with.")],
    output_format: Annotated[
        str, typer.Option("--format", help="text (key: old -> new) or json.")
    ] = "text",
) -> None:
    """Show what differs between two jobs: settings, --set values, code, recipe values."""
    import json
    import sys

    from automodel_launch import api

    if output_format not in ("text", "json"):
        raise typer.BadParameter("use text or json", param_hint="--format")
    compared = api.diff(old, new)
    if output_format == "json":
        sys.stdout.write(json.dumps(compared.to_json(), indent=2) + "\n")
        return
    typer.echo("\n".join(compared.lines()))
