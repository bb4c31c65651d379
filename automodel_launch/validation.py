"""Validate one recipe file: load, check every section, run the rules, collect everything.

Sections are validated one by one, so a mistake in ``slurm:`` does not hide the
spot rules of ``skypilot:`` or a bad ``step_scheduler``: every diagnostic of a file
comes out of one run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from automodel_launch import checks
from automodel_launch.config import environment, recipe_secrets
from automodel_launch.config.document import (
    LAUNCHER_SECTIONS,
    LAUNCHERS,
    SECTION_MODELS,
    UNSUPPORTED_LAUNCHERS,
    LaunchDocument,
    unknown_key_hint,
)
from automodel_launch.config.recipe import (
    Checkpoint,
    RestoreFrom,
    StepScheduler,
    check_spot,
    checkpointing_enabled,
)
from automodel_launch.config.skypilot import SkyPilotConfig, check_skypilot
from automodel_launch.config.slurm import SlurmConfig, check_slurm
from automodel_launch.diagnostics import (
    Collector,
    Diagnostic,
    Loc,
    Severity,
    from_pydantic,
    sort_key,
)
from automodel_launch.loading import LoadedFile, load_file
from automodel_launch.loading.yaml11 import differs
from automodel_launch.settings import Settings

M = TypeVar("M", bound=BaseModel)


@dataclass
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    loaded: LoadedFile | None = None
    document: LaunchDocument | None = None

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def failed(self, strict: bool) -> bool:
        return bool(self.diagnostics) if strict else not self.ok


def expand_paths(paths: list[Path]) -> list[Path]:
    """Directories stand for the YAML files below them, in a stable order."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(
                p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
            )
        else:
            out.append(path)
    return out


Purpose = Literal["validate", "render", "submit"]
"""What the check is for: a job directory must never hold a credential (render, submit),
and an unset reference stops a submission (submit)."""


def validate_path(
    path: str | Path, settings: Settings, *, purpose: Purpose = "validate"
) -> FileReport:
    result = load_file(path)
    if result.loaded is None:
        return FileReport(str(path), sorted(result.diagnostics, key=sort_key))
    report = validate_loaded(result.loaded, settings, purpose=purpose)
    report.diagnostics = sorted(result.diagnostics + report.diagnostics, key=sort_key)
    return report


def validate_loaded(
    loaded: LoadedFile, settings: Settings, *, purpose: Purpose = "validate"
) -> FileReport:
    sink = loaded.collector()
    data = loaded.data
    sink.hide = environment.redactor(data, loaded.plain)
    traps = _yaml11_traps(loaded)
    _check_launcher_keys(data, sink)
    sections = _validate_sections(data, sink, traps)
    for name in ("slurm", "skypilot"):
        if isinstance(data.get(name), dict):
            environment.check_references(name, data[name], sink)
            environment.check_secrets(name, data[name], sink)
    _run_rules(data, sections, sink, settings)
    recipe_secrets.check_recipe_secrets(
        data, sink, Severity.WARNING if purpose == "validate" else Severity.ERROR
    )
    recipe_secrets.check_comment_secrets(loaded.text, sink)
    _report_traps(traps, sink)
    document = None
    if not any(d.is_error for d in sink.items):
        fields: dict[str, Any] = {n: sec.model for n, sec in sections.items()}
        fields["recipe"] = data.get("recipe")
        document = LaunchDocument.model_construct(**fields)
        if settings.check_paths or settings.check_env:
            checks.check_host(document, sink, settings, submitting=purpose == "submit")
    return FileReport(loaded.path, sink.items, loaded, document)


@dataclass(frozen=True)
class Section:
    """A validated section; ``invalid`` names keys left out because they failed, so
    cross-field rules still run on the rest (every problem in one run)."""

    model: BaseModel
    invalid: frozenset[str] = frozenset()


def _validate_sections(
    data: dict[str, Any], sink: Collector, traps: dict[Loc, Trap]
) -> dict[str, Section]:
    valid: dict[str, Section] = {}
    for name, model in SECTION_MODELS.items():
        raw = data.get(name)
        if raw is None:
            continue
        try:
            valid[name] = Section(model.model_validate(raw))
        except ValidationError as exc:
            errors = [e for e in exc.errors() if not _explained_by_trap(e, name, traps)]
            from_pydantic(errors, (name,), sink, unknown_key_hint)
            partial = _without_failures(model, raw, exc)
            if partial is not None:
                valid[name] = partial
    return valid


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


def _check_launcher_keys(data: dict[str, Any], sink: Collector) -> None:
    present = [name for name in LAUNCHERS if data.get(name) is not None]
    if len(present) > 1:
        sink.add(
            "multiple-launchers",
            (present[1],),
            "both slurm: and skypilot: are present; a recipe has one launcher",
            "keep one of them (or none, to run torchrun on this node)",
            at_key=True,
        )
    for name, advice in UNSUPPORTED_LAUNCHERS.items():
        if name in data:
            sink.add(
                "unsupported-launcher",
                (name,),
                f"{name}: is not launched by automodel-launch",
                advice,
                at_key=True,
            )


def _run_rules(
    data: dict[str, Any], sections: dict[str, Section], sink: Collector, settings: Settings
) -> None:
    checkpoint = _section(sections, "checkpoint", Checkpoint)
    slurm = _section(sections, "slurm", SlurmConfig)
    sky = _section(sections, "skypilot", SkyPilotConfig)
    if slurm is not None:
        invalid = sections["slurm"].invalid
        check_slurm(
            slurm, data["slurm"], sink, settings, checkpointing_enabled(checkpoint), invalid
        )
    if sky is not None:
        # a failed skypilot field falls back to a default that no rule acts on
        check_skypilot(sky, sink)
        scheduler = _section(sections, "step_scheduler", StepScheduler)
        restore = _section(sections, "restore_from", RestoreFrom)
        check_spot(sky, scheduler, checkpoint, restore, sink, settings)
    if data.get("fault_tolerance") is not None and data.get("slurm") is None:
        where = "next to skypilot:" if data.get("skypilot") is not None else "without a launcher"
        hint = (
            "SkyPilot recovers with skypilot.job_recovery (managed jobs)"
            if data.get("skypilot") is not None
            else "add a slurm: section, or remove it"
        )
        sink.add(
            "fault-tolerance-needs-slurm",
            ("fault_tolerance",),
            f"fault_tolerance works only with Slurm, not {where}",
            hint,
            at_key=True,
        )


def _section(sections: dict[str, Section], name: str, model: type[M]) -> M | None:
    found = sections.get(name)
    return found.model if found is not None and isinstance(found.model, model) else None


@dataclass
class Trap:
    """An unquoted scalar that YAML 1.1 reads as ``value_11``."""

    text: str
    value_11: Any
    severity: Severity = Severity.WARNING


def _yaml11_traps(loaded: LoadedFile) -> dict[Loc, Trap]:
    traps: dict[Loc, Trap] = {}
    for loc, text in loaded.plain.items():
        if not loc or loc[0] not in LAUNCHER_SECTIONS:
            continue
        other = differs(text, _value_at(loaded.data, loc))
        if other is not None:
            traps[loc] = Trap(text, other)
    return traps


def _report_traps(traps: dict[Loc, Trap], sink: Collector) -> None:
    for loc, trap in traps.items():
        value = trap.value_11
        if isinstance(value, bool) and trap.severity is Severity.ERROR:
            hint = f"write {str(value).lower()}"
        else:
            hint = f'quote it: {loc[-1]}: "{trap.text}"'
        sink.add(
            "yaml11-trap",
            loc,
            f"unquoted {trap.text} is read by AutoModel's YAML 1.1 "
            f"loader as {_reading(value)}" + _consequence(loc, value),
            hint,
            severity=trap.severity,
        )


def _reading(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    kinds = {int: "integer", float: "number", str: "text"}
    return f"the {kinds.get(type(value), 'value')} {value!r}"


def _consequence(loc: Loc, value_11: Any) -> str:
    if loc[-1] == "time" and isinstance(value_11, int) and not isinstance(value_11, bool):
        return f", which Slurm takes as {value_11} minutes"
    return ""


def _value_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        data = data[part]
    return data
