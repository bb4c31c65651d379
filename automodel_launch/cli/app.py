"""The Typer application; each command lives in its own module."""

from __future__ import annotations

import typer

from automodel_launch.cli import render, schema, submit, validate

app = typer.Typer(
    name="automodel-launch",
    help="Validate, render and submit NeMo AutoModel launcher configs (Slurm, SkyPilot, torchrun).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("validate")(validate.command)
app.command("render")(render.command)
app.command("schema")(schema.command)
app.command("submit")(submit.command)
