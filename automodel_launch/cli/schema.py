"""``automodel-launch schema [-o FILE]``: the JSON Schema editors use."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer


def command(
    output: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option("--output", "-o", help="Write to FILE instead of standard output."),
    ] = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) for recipe files with launcher sections."""
    from automodel_launch.schema import schema_text

    text = schema_text()
    if output is None:
        sys.stdout.write(text)
        return
    tmp = output.with_name(output.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)
