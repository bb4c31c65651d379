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
    if trap is not None and error["type"] in (
        "bool_type",
        "bool_parsing",
        "int_type",
        "string_type",
    ):
        trap.severity = Severity.ERROR
        return True
    return False
