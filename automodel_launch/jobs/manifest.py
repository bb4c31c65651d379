"""The manifest: what a job directory says about the job in it (``manifest.json``).

Written with the rest of the job directory (all files or none), before the job is
handed over; once the scheduler has answered, its id is added by replacing the file
in one rename, so a reader never sees half a manifest. The job directories are the
source of truth: the registry is an index of these files and can be rebuilt from them.
Nothing secret goes in: the command line is cleaned by :mod:`automodel_launch.secrets`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from automodel_launch import __version__
from automodel_launch.errors import LaunchError
from automodel_launch.secrets import Redactor, is_secret_name

MANIFEST = "manifest.json"
FORMAT = 1
MAX_BYTES = 1024 * 1024
"""A manifest is a few kilobytes; anything far larger is not one."""


class ManifestError(LaunchError):
    """A manifest that cannot be read; the message names the file and why."""


@dataclass(frozen=True)
class Manifest:
    id: str
    """Ours, given at submit: short, unique, stable across reindexing."""
    name: str
    launcher: str
    job_dir: str
    submitted_at: str
    """ISO 8601, UTC."""
    config_path: str
    config_sha256: str
    command_line: tuple[str, ...]
    artifacts: tuple[str, ...]
    tool_version: str = __version__
    scheduler_id: str | None = None
    cluster: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """Per launcher: Slurm time limit and nodes, SkyPilot managed or not, a local pid."""
    format: int = FORMAT

    def to_json(self) -> str:
        data = asdict(self)
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def with_scheduler(self, scheduler_id: str | None, **details: Any) -> Manifest:
        cluster = details.get("cluster", self.cluster)
        merged = {**self.details, **details}
        return replace(self, scheduler_id=scheduler_id, cluster=cluster, details=merged)

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
) -> Manifest:
    hide = Redactor(v for k, v in environ.items() if is_secret_name(k))
    return Manifest(
        id=os.urandom(6).hex(),
        name=name,
        launcher=launcher,
        job_dir=str(job_dir),
        submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        config_path=str(config.absolute()),
        config_sha256=hashlib.sha256(config.read_bytes()).hexdigest(),
        command_line=tuple(hide(arg) for arg in argv),
        artifacts=tuple(artifacts),
        cluster=cluster,
        details=dict(details or {}),
    )


def read_manifest(job_dir: Path) -> Manifest:
    from automodel_launch.loading.files import NotRegular, TooLarge, read_regular

    path = job_dir / MANIFEST
    try:
        data = json.loads(read_regular(path, MAX_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{job_dir} has no {MANIFEST}: it is not a submitted job") from None
    except NotRegular as exc:
        raise ManifestError(f"cannot read {path}: it is {exc.kind}, not a file") from None
    except TooLarge as exc:
        raise ManifestError(f"cannot read {path}: {exc.size} bytes is not a manifest") from None
    except (OSError, ValueError) as exc:
        raise ManifestError(f"cannot read {path}: {exc}") from None
    return manifest_from(data, str(path))


def manifest_from(data: Any, where: str) -> Manifest:
    known = {f.name for f in fields(Manifest)}
    try:
        values = {k: v for k, v in data.items() if k in known}
        values["command_line"] = tuple(values.get("command_line", ()))
        values["artifacts"] = tuple(values.get("artifacts", ()))
        manifest = Manifest(**values)
        _epoch(manifest.submitted_at)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ManifestError(f"{where} is not a job manifest ({exc})") from None
    return manifest


def update_manifest(manifest: Manifest) -> None:
    """Replace the job directory's manifest in one rename; a failed or interrupted
    write leaves the old manifest and no staging file."""
    from automodel_launch.interrupts import stop_signals_raise_once

    target = Path(manifest.job_dir) / MANIFEST
    staging = target.with_name(f".{MANIFEST}.{os.getpid()}")
    with stop_signals_raise_once():
        try:
            staging.write_text(manifest.to_json(), encoding="utf-8")
            os.replace(staging, target)
        except BaseException:
            staging.unlink(missing_ok=True)
            raise


def _epoch(stamp: str) -> float:
    import calendar

    return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")))
