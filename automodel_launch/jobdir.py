"""Writing a job directory: all files or none.

Files are written into a hidden sibling directory and renamed into place in one
step, so an interrupted or failed write never leaves a half-written job directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from automodel_launch.config.types import JOB_DIR_ADVICE, unsafe_path_char

EXECUTABLE_SUFFIXES = (".sh", ".sbatch")


class JobDirError(Exception):
    """A job directory that cannot be used; the message says why and what to do."""


def check_job_dir(path: Path) -> Path:
    """The job directory, absolute with ``~`` expanded: where it is written and what the
    script names. Refuses what #SBATCH can't carry (the rule of the ``job_dir`` fields)."""
    try:
        absolute = path.expanduser().absolute()
    except RuntimeError as exc:  # ~user without such a user
        raise JobDirError(f"job directory {str(path)!r}: {exc}") from None
    bad = unsafe_path_char(str(absolute))
    if bad is not None:
        raise JobDirError(
            f"job directory {str(absolute)!r} contains {bad!r}, which an #SBATCH line "
            f"cannot carry safely; {JOB_DIR_ADVICE}"
        )
    return absolute


def write_job_dir(target: Path, files: dict[str, str]) -> None:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise JobDirError(f"{target} already exists and is not empty; pick a new job directory")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, content in files.items():
            file = staging / name
            file.write_text(content, encoding="utf-8")
            file.chmod(0o755 if name.endswith(EXECUTABLE_SUFFIXES) else 0o644)
        staging.chmod(0o755)
        if target.exists():
            target.rmdir()
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def remove_job_dir(target: Path) -> None:
    """Undo :func:`write_job_dir` for a job that did not start (refused, or a dry run)."""
    shutil.rmtree(target, ignore_errors=True)
