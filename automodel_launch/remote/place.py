"""Where a job submitted to a named cluster is written: here, and there.

The job directory is written on this host (``local_base``: the cluster's folder of this
tool's data directory, or ``--job-dir``'s parent) and copied to the cluster
(``remote_base``: the recipe's ``slurm.job_dir``, else the cluster's ``remote_dir``). The
script names the cluster's paths, since that is where it runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Placement:
    local_base: Path
    remote_base: PurePosixPath

    def remote(self, local: Path | str) -> str:
        """The cluster's path of ``local``, a path under :attr:`local_base`."""
        relative = Path(local).absolute().relative_to(self.local_base.absolute())
        return str(self.remote_base / relative.as_posix())


def local_home(name: str) -> Path:
    """Where job directories of cluster ``name`` are kept on this host."""
    import platformdirs

    return platformdirs.user_data_path("automodel-launch") / "remote" / name
