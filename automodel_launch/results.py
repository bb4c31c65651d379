"""What a check of one file produced: its diagnostics, and what later steps need.

Reporters read this and nothing else of the validator: it sits beside
:mod:`automodel_launch.diagnostics` on the bottom floor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from automodel_launch.diagnostics import Diagnostic
from automodel_launch.secrets import display

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.loading import LoadedFile


@dataclass
class FileReport:
    """One file's result. ``loaded`` and ``document`` are set when the file loaded and,
    for ``document``, validated without errors (render and submit use them)."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    loaded: LoadedFile | None = None
    document: LaunchDocument | None = None
    automodel_version: str | None = None
    """The AutoModel release the file was checked against (None: it did not load)."""
    automodel_found: str | None = None
    """How it was found: ``source``, ``set``, ``profile``, ``setting``, ``repo_root``,
    ``image``, ``installed`` or ``default`` (:mod:`automodel_launch.automodel.which`)."""
    automodel_why: str | None = None
    """The words the summary adds (``installed here``, ``image tag 26.04``, ``repo_root at
    3f2a9c1, dirty``); None where the release was named or is the default."""

    def __post_init__(self) -> None:
        # shown in every report, as its diagnostics are: cleaned where it is made
        self.path = display(self.path)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def failed(self, strict: bool) -> bool:
        return any(d.is_problem for d in self.diagnostics) if strict else not self.ok
