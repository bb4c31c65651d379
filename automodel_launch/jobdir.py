"""Writing a job directory: all files or none.

Files are written into a hidden sibling directory and renamed into place in one
step, so an interrupted or failed write never leaves a half-written job directory.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

EXECUTABLE_SUFFIXES = (".sh", ".sbatch")
_UNSAFE = re.compile(r"[\s#%\"'\\$`;&|<>(){}*?!\[\]]")


class JobDirError(Exception):
    """A job directory that cannot be used; the message says why and what to do."""


def check_job_dir(path: Path) -> str:
    """The absolute path as it will appear in the script; refuses what #SBATCH can't carry."""
    absolute = str(path.expanduser().absolute())
    bad = _UNSAFE.search(absolute)
    if bad:
        raise JobDirError(
            f"job directory {absolute!r} contains {bad.group()!r}, which an #SBATCH line "
            "cannot carry safely; choose a path of letters, digits, '/', '_', '-', '.'"
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
