"""The manifest: what a job directory says about the job in it (``manifest.json``).

Written with the rest of the job directory (all files or none), before the job is
handed over; once the scheduler has answered, its id is added by replacing the file
in one rename (:func:`automodel_launch.jobs.files.write_job_file`), so a reader never
sees half a manifest. The job directories are the source of truth: the registry is an
index of these files and can be rebuilt from them. Nothing secret goes in: the command
line and every other text are masked by :mod:`automodel_launch.written`.

A manifest comes back from a directory anyone could have written to, so it is a model
with a bound on every field: what does not fit is not a manifest (a clear error naming
the file and the field). The bounds are such that the largest manifest the writer can
produce fits :data:`MAX_BYTES`, the reader's limit, even with every character escaped:
the command line is shortened when written (:func:`capped_command_line`), never refused.
A point of a sweep also holds its swept keys and values (:data:`MAX_VALUES` of them, each
key at most :data:`MAX_VALUE_KEY_CHARS` characters, each value a detail): at most about
90 KB more, escaped, so the worst manifest stays under half of :data:`MAX_BYTES`.
"""

from __future__ import annotations

import calendar
import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from automodel_launch.errors import LaunchError
from automodel_launch.jobs.origins import (
    MAX_ORIGINS,
    MAX_OVERRIDES,
    EntryRecord,
    OriginKey,
    OverrideRecord,
    ProfileRecord,
    RemoteRecord,
    Text,
)
from automodel_launch.launcher_names import launched_here
from automodel_launch.launchers.ids import is_scheduler_id
from automodel_launch.layout import MANIFEST
from automodel_launch.snapshot.record import CodeRecord
from automodel_launch.version import __version__

FORMAT = 1
MAX_BYTES = 1024 * 1024
"""The reader's limit; the bounds below keep every manifest the writer makes under it."""
MAX_ARGS = 64
"""Arguments of the command line kept in the manifest (the rest are counted)."""
MAX_ARG_CHARS = 512
"""Characters of one argument kept in the manifest (``--set`` values are in the job's
``job_config.yaml`` whole)."""
MAX_PATH_CHARS = 4096
MAX_ARTIFACTS = 64
MAX_DETAILS = 32
MAX_DETAIL_CHARS = 256
MAX_VALUES = 32
"""Swept keys of one sweep point."""
MAX_VALUE_KEY_CHARS = 200
MAX_POINTS = 100_000
"""Points of one sweep (Slurm's largest MaxArraySize is 4,000,001; none sweeps that far)."""
STAMP = "%Y-%m-%dT%H:%M:%SZ"
_STAMP = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"

_NAME = r"^[^/\x00-\x1f\x7f]{1,255}$"
"""One file-name component (the Slurm log is ``{name}_{scheduler_id}.out`` in the job dir)."""


def _detail(value: Any) -> Any:
    """A detail is a JSON scalar: a boolean, a 64-bit integer, a finite number, a short text."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and -(2**63) <= value <= 2**63:
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and len(value) <= MAX_DETAIL_CHARS:
        return value
    raise ValueError(
        f"should be a boolean, an integer, a number or a text of at most {MAX_DETAIL_CHARS} "
        "characters"
    )


def _launched_here(name: str) -> str:
    """A launcher that runs jobs here, a plugged one too; refused in the words pydantic has
    for a ``Literal`` of the shipped ones."""
    names = [f"'{n}'" for n in launched_here()]
    if name not in launched_here():
        expected = " or ".join([", ".join(names[:-1]), names[-1]])
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )
    return name


def _not_dots(name: str) -> str:
    if name in (".", ".."):
        raise ValueError("is not a file name")
    return name


Id = Annotated[str, Field(pattern=r"^[0-9a-f]{6,32}$")]
Name = Annotated[str, Field(pattern=_NAME), AfterValidator(_not_dots)]
AbsolutePath = Annotated[str, Field(pattern=r"^/[^\x00]*$", max_length=MAX_PATH_CHARS)]
"""Its length bounded apart: a pattern of 4,096 counted characters takes pydantic longer
to compile (about 20 ms, on every start of a job command) than reading 300 manifests."""
Short = Annotated[str, Field(max_length=255)]
Argument = Annotated[str, Field(max_length=MAX_ARG_CHARS)]
DetailKey = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
DetailValue = Annotated[Any, AfterValidator(lambda value: _detail(value))]
_VALUE_KEY = rf"^[^\x00-\x1f\x7f]{{1,{MAX_VALUE_KEY_CHARS}}}$"
ValueKey = Annotated[str, Field(pattern=_VALUE_KEY)]
"""A swept key as ``--sweep`` names it (``optimizer.lr``, ``slurm.nodes``)."""


def value_problem(key: str, value: Any) -> str | None:
    """Why a sweep point's manifest could not record ``key: value`` (None: it can), by the
    bounds above: what ``--sweep`` is checked against before anything is written."""
    import re

    if re.fullmatch(_VALUE_KEY, key) is None:
        return f"a point records keys of at most {MAX_VALUE_KEY_CHARS} characters"
    try:
        _detail(value)
    except ValueError as exc:
        return str(exc)
    return None


class ManifestError(LaunchError):
    """A manifest that cannot be read; the message names the file and why."""


class Manifest(BaseModel):
    """What ``manifest.json`` holds (format 1). Fields are only ever added: one this
    version does not know is ignored."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    id: Id
    """Ours, given at submit: 12 hex digits (6 to 32 are read), stable across reindexing."""
    name: Name
    launcher: Annotated[str, AfterValidator(_launched_here)]
    job_dir: AbsolutePath
    submitted_at: Annotated[str, Field(pattern=_STAMP)]
    """ISO 8601, UTC."""
    config_path: AbsolutePath
    config_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    command_line: Annotated[tuple[Argument, ...], Field(max_length=MAX_ARGS)]
    artifacts: Annotated[tuple[Name, ...], Field(max_length=MAX_ARTIFACTS)]
    tool_version: Annotated[str, Field(max_length=64)] = __version__
    scheduler_id: Annotated[str, Field(max_length=32)] | None = None
    """Checked against the launcher's grammar: it goes on a command line (``scancel ID``)."""
    cluster: Short | None = None
    details: Annotated[dict[DetailKey, DetailValue], Field(max_length=MAX_DETAILS)] = Field(
        default_factory=dict
    )
    """Per launcher: Slurm time limit, nodes, GPUs per node and partition, SkyPilot managed
    or not, a local pid."""
    sweep: Id | None = None
    """The sweep this job is a point of (ids as :attr:`id`); None for a single job."""
    point: Annotated[int, Field(ge=0, lt=MAX_POINTS)] | None = None
    """The point's index in its sweep: set exactly when :attr:`sweep` is."""
    values: Annotated[dict[ValueKey, DetailValue], Field(max_length=MAX_VALUES)] = Field(
        default_factory=dict
    )
    """The swept keys and this point's values (``{"optimizer.lr": 2e-05}``)."""
    code: CodeRecord | None = None
    """The code snapshot the job runs and where it came from (None: the live tree, or no
    ``repo_root``): :mod:`automodel_launch.snapshot`."""
    automodel_version: Annotated[str, Field(max_length=64)] | None = None
    """The AutoModel release the recipe was checked against."""
    profile: ProfileRecord | None = None
    """The profile that applied (None: none did): :mod:`automodel_launch.jobs.origins`."""
    overrides: Annotated[tuple[OverrideRecord, ...], Field(max_length=MAX_OVERRIDES)] = ()
    """The ``--set`` (and a sweep point's ``--sweep``) values that applied."""
    more_overrides: Annotated[int, Field(ge=0, le=2**31)] = 0
    """Those beyond :data:`~automodel_launch.jobs.origins.MAX_OVERRIDES`, counted."""
    origins: Annotated[dict[OriginKey, Text], Field(max_length=MAX_ORIGINS)] = Field(
        default_factory=dict
    )
    """Each launcher value that is not the recipe's own, and where it came from
    (``{"slurm.nodes": "--set slurm.nodes=2"}``)."""
    more_origins: Annotated[int, Field(ge=0, le=2**31)] = 0
    image: Text | None = None
    """The container image as written (Slurm ``container_image``, SkyPilot ``image_id``)."""
    entry: EntryRecord | None = None
    """What each rank runs, and ``--nproc-per-node`` (None: a job from before it was kept)."""
    rerun_of: Id | None = None
    """The job this one runs again (``rerun``): its config and code (None: a new job)."""
    remote: RemoteRecord | None = None
    """The named cluster it was submitted to over SSH (None: submitted on this host)."""
    format: Literal[1] = 1

    @field_validator("submitted_at")
    @classmethod
    def _a_real_time(cls, value: str) -> str:
        try:
            _epoch(value)  # 2026-13-45T99:00:00Z has the shape, not the meaning
        except ValueError:
            raise ValueError("is not a real date and time") from None
        return value

    @model_validator(mode="after")
    def _ids_of_its_launcher(self) -> Manifest:
        if self.scheduler_id is not None and not is_scheduler_id(self.launcher, self.scheduler_id):
            raise ValueError(f"scheduler_id is not a {self.launcher} job id")
        pid = self.details.get("pid")
        if pid is not None and (type(pid) is not int or pid < 2 or str(pid) != self.scheduler_id):
            raise ValueError("details.pid is not the run's process group (its scheduler_id)")
        if (self.sweep is None) != (self.point is None):
            raise ValueError("point and sweep go together: a sweep's point has both, a job neither")
        if self.values and self.sweep is None:
            raise ValueError("values are a sweep point's: a job outside a sweep has none")
        return self

    def to_json(self) -> str:
        return self.model_dump_json(indent=2) + "\n"

    def with_scheduler(self, scheduler_id: str | None, **details: Any) -> Manifest:
        cluster = details.get("cluster", self.cluster)
        merged = {**self.details, **details}
        update = {"scheduler_id": scheduler_id, "cluster": cluster, "details": merged}
        return manifest_from_values({**self.model_dump(), **update}, "the job's manifest")

    @property
    def submitted_epoch(self) -> float:
        return _epoch(self.submitted_at)


def new_manifest(
    *,
    name: str,
    launcher: str,
    job_dir: Path,
    config: Path,
    argv: Sequence[str],
    artifacts: Sequence[str],
    environ: Mapping[str, str],
    cluster: str | None = None,
    details: Mapping[str, Any] | None = None,
    sweep: str | None = None,
    point: int | None = None,
    values: Mapping[str, Any] | None = None,
    code: CodeRecord | None = None,
    automodel_version: str | None = None,
    settings: Mapping[str, Any] | None = None,
    job_id: str | None = None,
) -> Manifest:
    """A new job's manifest; a point of a sweep gives ``sweep``, ``point`` and ``values``;
    ``settings``: the profile, overrides, origins and image
    (:func:`automodel_launch.jobs.origins.run_settings`); ``job_id``: the id given already
    (a rerun's checkpoint directory names it), else one is drawn. Its texts pass
    :func:`automodel_launch.written.manifest_fields`: a secret variable's value of
    ``environ`` or a token shape is written masked."""
    import hashlib

    from automodel_launch.written import manifest_fields

    fields = {
        "id": job_id or os.urandom(6).hex(),
        "name": name,
        "launcher": launcher,
        "job_dir": str(job_dir),
        "submitted_at": time.strftime(STAMP, time.gmtime()),
        "config_path": str(config.absolute()),
        "config_sha256": hashlib.sha256(config.read_bytes()).hexdigest(),
        "command_line": tuple(argv),
        "artifacts": tuple(artifacts),
        "cluster": cluster,
        "details": dict(details or {}),
        "sweep": sweep,
        "point": point,
        "values": dict(values or {}),
        "code": code,
        "automodel_version": automodel_version,
        **(settings or {}),
    }
    masked = manifest_fields(fields, environ)
    masked["command_line"] = capped_command_line(masked["command_line"])
    return manifest_from_values(masked, "the job's manifest")


def capped_command_line(argv: Iterable[str]) -> tuple[str, ...]:
    """The command line as the manifest keeps it: at most :data:`MAX_ARGS` arguments of
    at most :data:`MAX_ARG_CHARS` characters; what is cut says how much."""
    kept: list[str] = []
    for arg in argv:
        if len(arg) > MAX_ARG_CHARS:
            cut = f"...(+{len(arg) - (MAX_ARG_CHARS - 24)} chars)"
            arg = arg[: MAX_ARG_CHARS - 24] + cut
        kept.append(arg)
    if len(kept) > MAX_ARGS:
        kept[MAX_ARGS - 1 :] = [f"...(+{len(kept) - MAX_ARGS + 1} arguments)"]
    return tuple(kept)


def read_manifest(job_dir: Path) -> Manifest:
    """The manifest of ``job_dir`` (read by :mod:`automodel_launch.jobs.files`' reader);
    its ``job_dir`` is the directory it was read from, whatever the file says, so a moved
    tree keeps working and a manifest naming another directory never sends the tool there."""
    from automodel_launch.jobs.files import Unreadable, read_job_file

    job_dir = job_dir.absolute()
    path = job_dir / MANIFEST
    try:
        text = read_job_file(job_dir, MANIFEST, MAX_BYTES)
    except Unreadable as exc:
        raise ManifestError(str(exc)) from None
    if text is None:
        raise ManifestError(f"{job_dir} has no {MANIFEST}: it is not a submitted job")
    try:
        manifest = manifest_from_json(text, "it")
    except ManifestError as exc:
        raise ManifestError(
            f"cannot read {path}: {exc}; submit writes this file: restore it, or move the job "
            "directory away if it holds no job"
        ) from None
    if manifest.job_dir == str(job_dir):
        return manifest
    return manifest.model_copy(update={"job_dir": str(job_dir)})


def manifest_from_json(text: str | bytes, where: str) -> Manifest:
    """The manifest ``text`` holds; a :class:`ManifestError` naming ``where``, the first
    field that is wrong and how to fix it, when it holds none."""
    try:
        return Manifest.model_validate_json(text)
    except ValidationError as exc:
        raise ManifestError(f"{where} is not a job manifest ({_first(exc)})") from None


def manifest_from_values(values: Mapping[str, Any], where: str) -> Manifest:
    """The manifest of ``values``; a :class:`ManifestError` naming ``where`` and the first
    field that does not fit."""
    try:
        return Manifest.model_validate(values)
    except ValidationError as exc:
        raise ManifestError(f"cannot record {where}: {_first(exc)}") from None


def _first(exc: ValidationError) -> str:
    """``id: Input should be a valid string`` (and how many more): never the value."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    more = f"; {len(errors) - 1} more" if len(errors) > 1 else ""
    return f"{where}: {message}{more}" if where else f"{message}{more}"


def _epoch(stamp: str) -> float:
    return float(calendar.timegm(time.strptime(stamp, STAMP)))


def update_manifest(manifest: Manifest) -> None:
    """Replace the job directory's manifest in one rename; a failed or interrupted
    write leaves the old manifest and no staging file; a link named ``manifest.json`` is
    replaced, never written through."""
    from automodel_launch.jobs.files import write_job_file

    write_job_file(Path(manifest.job_dir), MANIFEST, manifest.to_json())
