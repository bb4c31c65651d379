"""What the manifest keeps of a job's code: where it came from, which commit, how dirty.

A bounded model, as the whole manifest is: a manifest comes back from a directory anyone
could write to. Names (the root, the branch, untracked and left-out files) are written
redacted (:class:`~automodel_launch.secrets.Redactor`): files are copied as they are,
but the records hold no credential.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

MAX_NAMES = 200
"""Untracked or left-out files named in the record (the rest are counted)."""
MAX_NAME_CHARS = 1024

Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
Names = Annotated[tuple[Name, ...], Field(max_length=MAX_NAMES)]
Count = Annotated[int, Field(ge=0, le=2**62)]


class CodeRecord(BaseModel):
    """The ``code`` object of a manifest and of ``status --format json``."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    root: Annotated[str, Field(max_length=4096)]
    """The directory snapshotted, on the submitting host."""
    snapshot: Annotated[str, Field(max_length=4096)]
    """The copy the job runs (``code/`` in the job directory, of a sweep the sweep's)."""
    commit: Annotated[str, Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")] | None = None
    """HEAD when the root is a git tree (None: it is not)."""
    branch: Annotated[str, Field(max_length=255)] | None = None
    dirty: bool = False
    """A tracked file differed from HEAD, or untracked files were included."""
    diff: Annotated[str, Field(max_length=4096)] | None = None
    """The file holding ``git diff HEAD`` (binary form) when the tree was dirty."""
    diff_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    untracked: Names = ()
    """Untracked files (not ignored) under the root, by name."""
    untracked_included: bool = False
    skipped: Names = ()
    """Files left out: over the size limit per file, submodules, job directories."""
    more_names: Count = 0
    """Names beyond :data:`MAX_NAMES` not listed in ``untracked`` and ``skipped``."""
    files: Count = 0
    bytes: Count = 0
