"""What every rule receives: the file's data, the validated sections, where to report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from automodel_launch.diagnostics import Collector, Loc, Severity

if TYPE_CHECKING:
    from automodel_launch.automodel.which import Choice, Explicit
    from automodel_launch.settings import Settings

M = TypeVar("M", bound=BaseModel)

Purpose = Literal["validate", "render", "submit"]
"""What the check is for: a job directory must never hold a credential (render, submit),
and an unset reference stops a submission (submit)."""


@dataclass(frozen=True)
class Section:
    """A validated section; ``invalid`` names keys left out because they failed, so
    cross-field rules still run on the rest (every problem in one run)."""

    model: BaseModel
    invalid: frozenset[str] = frozenset()


@dataclass
class Trap:
    """An unquoted scalar that YAML 1.1 reads as ``value_11``."""

    text: str
    value_11: Any
    value_12: Any = None
    severity: Severity = Severity.WARNING
    wants: str | None = None
    """"bool", "number" or "text" when the field rejected the YAML 1.2 value."""


@dataclass
class Context:
    data: dict[str, Any]
    sink: Collector
    settings: Settings
    purpose: Purpose = "validate"
    traps: dict[Loc, Trap] = field(default_factory=dict)
    text: str = ""
    """The file's text, for what lives outside the data (comments)."""
    path: str = ""
    """The file's path as given (a relative ``_target_`` module is looked for beside it)."""
    tags: dict[Loc, str] = field(default_factory=dict)
    """Explicit tags the loader could not read as plain values, as written."""
    sections: dict[str, Section] = field(default_factory=dict)
    """Filled by the section rule; later rules read the models from here."""
    finished: bool = False
    """Set by a rule after which no other applies (a file that is no recipe at all)."""
    explicit: Explicit | None = None
    """The AutoModel release ``--set``, the profile or the settings name (None: none)."""
    automodel: Choice | None = None
    """The AutoModel release the job runs, as found (:mod:`automodel_launch.rules.release`)."""

    def release(self) -> Choice:
        """The release found, or (before it is looked for, or for a file that is no
        recipe) the one named, else the default."""
        if self.automodel is None:
            from automodel_launch.automodel.which import Choice

            named = self.explicit
            if named is not None:
                return Choice(named.version, named.found, named.why)
            return Choice(self.settings.automodel_version, "default", "the default")
        return self.automodel

    def section(self, name: str, model: type[M]) -> M | None:
        found = self.sections.get(name)
        return found.model if found is not None and isinstance(found.model, model) else None

    def invalid(self, name: str) -> frozenset[str]:
        found = self.sections.get(name)
        return found.invalid if found is not None else frozenset()
