"""Host checks: what only this machine can tell (paths exist, variables are set).

Kept apart from the models so editors and pre-commit validate the same config
offline (``--no-check-paths``), while the CLI checks the host before submitting.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch import secrets
from automodel_launch.config.environment import UNREFERENCED_FIELDS, strings
from automodel_launch.diagnostics import Collector, Loc, Severity
from automodel_launch.loading import env

if TYPE_CHECKING:
    from collections.abc import Mapping

    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.settings import Settings


def check_host(
    document: LaunchDocument,
    sink: Collector,
    settings: Settings,
    environ: Mapping[str, str] | None = None,
    *,
    submitting: bool = False,
) -> None:
    """``submitting``: an unset reference is an error, the job would start without it."""
    environ = os.environ if environ is None else environ
    if settings.check_paths and document.slurm is not None:
        _check_slurm_paths(document, sink, environ)
    if settings.check_env:
        _check_unset(document, sink, environ, Severity.ERROR if submitting else Severity.WARNING)


def _check_slurm_paths(
    document: LaunchDocument, sink: Collector, environ: Mapping[str, str]
) -> None:
    slurm = document.slurm
    assert slurm is not None
    mounts: list[tuple[Loc, str]] = [
        (("slurm", "extra_mounts", i, "source"), m.source) for i, m in enumerate(slurm.extra_mounts)
    ]
    if slurm.nemo_mount is not None:
        mounts.append((("slurm", "nemo_mount", "source"), slurm.nemo_mount.source))
    mounts += [
        (("slurm", "repo_root"), m.source) for n, m in slurm.named_mounts() if n == "repo_root"
    ]
    if slurm.container_image is not None and _is_image_path(slurm.container_image):
        mounts.append((("slurm", "container_image"), slurm.container_image))
    for loc, text in mounts:
        path, missing = env.expand(text, environ)
        if missing or Path(path).exists():
            continue
        sink.add(
            "path-missing",
            loc,
            f"{_shown(text, environ)} does not exist on this host",
            "create it, fix the path, or pass --no-check-paths when this host is not a "
            "cluster node",
        )


def _shown(text: str, environ: Mapping[str, str]) -> str:
    """The path with its references resolved, except secret-named ones (kept as written)."""
    visible = {
        ref.name: f"${{{ref.name}}}" if secrets.is_secret_name(ref.name) else environ[ref.name]
        for ref in env.scan(text).references
        if ref.name in environ
    }
    return env.expand(text, visible)[0]


def _is_image_path(image: str) -> bool:
    return image.startswith(("/", "./", "../")) or image.endswith(".sqsh")


def _check_unset(
    document: LaunchDocument, sink: Collector, environ: Mapping[str, str], severity: Severity
) -> None:
    cfg = document.launcher_section
    if cfg is None:
        return
    raw = cfg.model_dump(mode="python", exclude_defaults=True)
    for loc, text in strings(raw, (document.launcher,)):
        if loc[1] in UNREFERENCED_FIELDS:
            continue
        for ref in env.scan(text).references:
            if (
                ref.default is None
                and ref.name not in environ
                and not env.is_runtime_variable(ref.name)
            ):
                sink.add(
                    "env-unset",
                    loc,
                    f"${{{ref.name}}} is not set here",
                    f"export {ref.name} before {cfg.references_resolved}",
                    severity=severity,
                )


def local_gpu_count() -> int:
    """GPUs this process may use: CUDA_VISIBLE_DEVICES, else ``nvidia-smi -L``, else 1."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return max(1, len([d for d in visible.split(",") if d.strip() and d.strip() != "-1"]))
    import shutil
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return 1
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return 1
    return max(1, sum(line.startswith("GPU ") for line in listing.stdout.splitlines()))
