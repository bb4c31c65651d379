"""Validate each section on its own model, so one section's mistakes hide nothing else."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from automodel_launch.config.document import SECTION_MODELS, unknown_key_hint
from automodel_launch.diagnostics import Loc, Severity, from_pydantic
from automodel_launch.rules.context import Context, Section, Trap


def validate_sections(ctx: Context) -> None:
    for name, model in SECTION_MODELS.items():
        raw = ctx.data.get(name)
        if raw is None:
            continue
        try:
            ctx.sections[name] = Section(model.model_validate(raw))
        except ValidationError as exc:
            errors = [e for e in exc.errors() if not _explained_by_trap(e, name, ctx.traps)]
            from_pydantic(errors, (name,), ctx.sink, unknown_key_hint)
            partial = _without_failures(model, raw, exc)
            if partial is not None:
                ctx.sections[name] = partial


def _without_failures(model: type[BaseModel], raw: Any, exc: ValidationError) -> Section | None:
    invalid = frozenset(str(e["loc"][0]) for e in exc.errors() if e["loc"])
    if not invalid or not isinstance(raw, dict):
        return None
    try:
        return Section(
            model.model_validate({k: v for k, v in raw.items() if k not in invalid}), invalid
        )
    except ValidationError:
        return None


def _explained_by_trap(error: Any, section: str, traps: dict[Loc, Trap]) -> bool:
    """A type error on an unquoted YAML 1.1 word becomes one yaml11-trap error instead."""
    trap = traps.get((section, *error["loc"]))
    if trap is None:
        return False
    wants = _WANTS.get(error["type"])
    if wants is None:  # refused in the field's own words (a job name read as a number)
        trap.wants = "text"
        return False
    trap.severity = Severity.ERROR
    trap.wants = wants
    return True


_WANTS = {"bool_type": "bool", "bool_parsing": "bool", "int_type": "number", "string_type": "text"}
"""What a field wants, from the type error pydantic raised on the YAML 1.2 value."""
