"""What bounds a job's training, recorded at submit in the manifest's ``details`` and read
back by ``status``: ``max_steps`` or ``num_epochs``, the checkpoint interval, and where
the checkpoint directory is on the host that reads it.

Recorded once, from the validated recipe, so ``status`` and ``jobs`` never parse YAML. A
sweep records its recipe's values; a point's own swept value (``values``) wins. The
directory is the launcher's answer (its working directory, its container's mounts): a
relative path is relative to the job directory; when the launcher cannot place it (on a
cloud VM, relative to a container's working directory), ``checkpoint_note`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.config.mounts import Mount
    from automodel_launch.jobs.manifest import Manifest

DEFAULT_CHECKPOINT_DIR = "checkpoints/"
"""AutoModel's ``CheckpointingConfig.checkpoint_dir`` when the recipe names none."""
_SWEPT = {
    "step_scheduler.max_steps": "max_steps",
    "step_scheduler.num_epochs": "num_epochs",
    "step_scheduler.ckpt_every_steps": "ckpt_every_steps",
    "step_scheduler.checkpoint_interval": "ckpt_every_steps",
}


def recipe_details(document: LaunchDocument) -> dict[str, Any]:
    """``max_steps``, ``num_epochs``, ``ckpt_every_steps`` and ``checkpoints`` (whether any
    are written) as the recipe gives them: what every launcher records."""
    found: dict[str, Any] = {}
    scheduler = document.step_scheduler
    if scheduler is not None:
        extra = scheduler.model_extra or {}
        for key in ("max_steps", "num_epochs"):
            value = extra.get(key)
            if type(value) is int and value > 0:
                found[key] = value
        if scheduler.interval is not None:
            found["ckpt_every_steps"] = scheduler.interval[1]
    checkpoint = document.checkpoint
    found["checkpoints"] = checkpoint is None or checkpoint.enabled is not False
    return found


def checkpoint_text(document: LaunchDocument) -> str:
    """The checkpoint directory as the job sees it (AutoModel's default when unnamed)."""
    given = document.checkpoint.checkpoint_dir if document.checkpoint is not None else None
    return given or DEFAULT_CHECKPOINT_DIR


def placed(path: str, workdir: str | None, mounts: list[Mount] | None) -> dict[str, Any]:
    """``checkpoint_dir`` as the host sees it: through ``mounts`` when the job runs in a
    container (None: no container), relative to ``workdir`` (None: the job directory)."""
    if "${" in path or path.startswith("~"):
        return {"checkpoint_note": f"checkpoint_dir {path!r} is resolved by the job's shell"}
    if mounts is not None:
        if not path.startswith("/"):
            return {"checkpoint_note": f"checkpoint_dir {path!r} is relative to the "
                    "container's working directory"}  # fmt: skip
        for mount in mounts:
            dest = PurePosixPath(mount.dest)
            inside = PurePosixPath(path)
            if inside == dest or dest in inside.parents:
                return _kept(str(PurePosixPath(mount.source) / inside.relative_to(dest)))
        return {"checkpoint_note": f"checkpoint_dir {path} is inside the container only "
                "(no mount holds it)"}  # fmt: skip
    if workdir is not None and not path.startswith("/"):
        return _kept(str(PurePosixPath(workdir) / path))
    return _kept(path)


def _kept(path: str) -> dict[str, Any]:
    from automodel_launch.jobs.manifest import MAX_DETAIL_CHARS

    if len(path) > MAX_DETAIL_CHARS:
        return {"checkpoint_note": "checkpoint_dir is longer than a manifest keeps"}
    return {"checkpoint_dir": path}


@dataclass(frozen=True)
class Bounds:
    """What ``status`` reads back: each None when the recipe did not say."""

    max_steps: int | None = None
    num_epochs: int | None = None
    ckpt_every_steps: int | None = None
    checkpoints: bool = True
    checkpoint_dir: Path | None = None
    note: str | None = None
    """Why the checkpoint directory is not read (None when it is)."""


def bounds_of(manifest: Manifest) -> Bounds:
    details = dict(manifest.details)
    for key, name in _SWEPT.items():
        if key in manifest.values:
            details[name] = manifest.values[key]
    for key in ("checkpoint.checkpoint_dir",):
        value = manifest.values.get(key)
        if isinstance(value, str):
            details.pop("checkpoint_note", None)
            details["checkpoint_dir"] = value
    place = details.get("checkpoint_dir")
    note = details.get("checkpoint_note")
    directory = None
    if isinstance(place, str) and place:
        directory = Path(manifest.job_dir) / place  # an absolute place stays itself
    elif not isinstance(note, str):
        note = "the manifest records no checkpoint directory (an older submit)"
    return Bounds(
        max_steps=_whole(details.get("max_steps")),
        num_epochs=_whole(details.get("num_epochs")),
        ckpt_every_steps=_whole(details.get("ckpt_every_steps")),
        checkpoints=details.get("checkpoints") is not False,
        checkpoint_dir=directory,
        note=note if directory is None and isinstance(note, str) else None,
    )


def _whole(value: object) -> int | None:
    return value if type(value) is int and value > 0 else None
