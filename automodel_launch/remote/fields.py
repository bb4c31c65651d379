"""The values of a named cluster that a job's manifest keeps too: its name, host, port and
a path there. One type each, used by the profile file's definition
(:class:`~automodel_launch.remote.clusters.Remote`) and by the manifest
(:class:`~automodel_launch.jobs.origins.RemoteRecord`), so a value the manifest accepts is
one the cluster's definition accepts: a manifest holding another is not a manifest.

The host reaches ssh's command line and a path there reaches ``#SBATCH`` lines and the
cluster's shell: a host may not read as an option, a path holds only what a job
directory may hold (:func:`automodel_launch.config.names.unsafe_path_char`, imported when
a path is checked: ``jobs`` reads manifests without the config models).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Annotated

from pydantic import AfterValidator, Field

NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
_HOST = re.compile(r"^(?:[A-Za-z0-9._+-]{1,64}@)?[A-Za-z0-9_.:%\[\]-]{1,253}$")
MAX_DIR = 1024
"""Characters of a cluster's ``remote_dir``."""
MAX_PATH = 4096
"""Characters of a job directory there (``remote_dir`` and the job's own names)."""


def host(value: str) -> str:
    if value.startswith("-") or not _HOST.fullmatch(value):
        raise ValueError("is not a host: write user@host, host, or a Host alias of ~/.ssh/config")
    return value


def cluster_path(value: str) -> str:
    """An absolute path on the cluster that an ``#SBATCH`` line carries as it is (Slurm
    splits ``--output`` at a blank), tidied (``//`` and a trailing ``/`` dropped)."""
    from automodel_launch.config.names import unsafe_path_char

    if not value.startswith("/"):
        raise ValueError("must be an absolute path on the cluster (/lustre/me/jobs)")
    bad = unsafe_path_char(value)
    if bad is not None:
        raise ValueError(
            f"contains {bad!r}, which an #SBATCH line cannot carry safely: choose a path of "
            "letters, digits, '/', '_', '-', '.'"
        )
    return str(PurePosixPath(value))


ClusterName = Annotated[str, Field(pattern=NAME)]
Host = Annotated[str, AfterValidator(host)]
"""``user@host``, ``host`` or a ``Host`` alias of ``~/.ssh/config``; never an option."""
Port = Annotated[int, Field(ge=1, le=65535)]
RemoteDir = Annotated[str, Field(max_length=MAX_DIR), AfterValidator(cluster_path)]
"""Where a cluster's job directories are made."""
RemotePath = Annotated[str, Field(max_length=MAX_PATH), AfterValidator(cluster_path)]
"""A job directory on the cluster."""
