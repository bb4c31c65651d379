"""Where ``repo_root`` is on this host, the one the snapshot is taken on.

``repo_root`` names the directory as the job sees it. Without a container, and with one
when it is mounted at its own path, that is the same path here (``~`` and ``${VAR}``
resolved with the submitting environment, as the job's shell resolves them on a cluster
that shares the home directories). Under a ``nemo_mount`` or an ``extra_mounts`` entry
(``repo_root: /opt/Automodel`` with ``nemo_mount: /src/Automodel:/opt/Automodel``) the
code is the mount's source: that is what is snapshotted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.snapshot import SnapshotError

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
ADVICE = "or submit with --no-snapshot to run the live tree"


def host_root(cfg: SlurmConfig, environ: Mapping[str, str]) -> Path | None:
    """The directory to snapshot for ``cfg.repo_root`` (None: the section names none)."""
    if cfg.repo_root is None:
        return None
    path = cfg.repo_root
    if cfg.container_image is not None:
        path = _mount_source(cfg, path)
    resolved = _resolve(path, environ)
    if not resolved.is_dir():
        raise SnapshotError(
            f"slurm.repo_root: {resolved} is not a directory on this host, so its code cannot "
            "be snapshotted",
            hint=f"submit from a host that sees the checkout, {ADVICE}",
        )
    return Path(os.path.realpath(resolved))


def _mount_source(cfg: SlurmConfig, path: str) -> str:
    """The host side of ``path`` when a mount other than its own carries it."""
    mounts = [*cfg.extra_mounts, *([cfg.nemo_mount] if cfg.nemo_mount else [])]
    for mount in mounts:
        dest = mount.dest.rstrip("/")
        if path == mount.dest or path.startswith(dest + "/"):
            return mount.source + path[len(dest) :]  # a doubled "/" is one in a Path
    return path


def _resolve(path: str, environ: Mapping[str, str]) -> Path:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise SnapshotError(
                f"slurm.repo_root: ${{{name}}} is not set here, so the checkout to snapshot "
                "is unknown",
                hint=f"set {name} where you submit, {ADVICE}",
            )
        return environ[name]

    text = _REFERENCE.sub(value, path)
    if text == "~" or text.startswith("~/"):
        text = environ.get("HOME", str(Path.home())) + text[1:]
    return Path(text)
