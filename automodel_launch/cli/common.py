"""What several commands share: settings from flags, usage errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from automodel_launch.settings import Settings


def load_settings(**flags: Any) -> Settings:
    """Settings with the flags the user actually gave on top (see settings.py)."""
    from pydantic import ValidationError

    from automodel_launch.settings import Settings

    given = {key: value for key, value in flags.items() if value is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise typer.BadParameter(problems) from None
