"""``automodel-launch explain FIELD``: what a field means, takes, defaults to and is checked by."""

from __future__ import annotations

import sys
from typing import Annotated

import typer


def command(
    field: Annotated[str, typer.Argument(help="Dotted field path, e.g. slurm.time.")],
) -> None:
    """Describe one field: type, accepted forms, default and the rules (codes) that involve it."""
    from automodel_launch.explain import explain

    sys.stdout.write(explain(field))  # an unknown field: UnknownField, a usage error (exit 2)
