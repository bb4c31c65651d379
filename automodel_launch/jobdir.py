"""Writing a job directory: all files or none.

Files are written into a hidden sibling directory and renamed into place in one
step, so an interrupted or failed write never leaves a half-written job directory.
Each file's text passes :func:`automodel_launch.written.job_file` on its way in.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from automodel_launch.config.names import JOB_DIR_ADVICE, unsafe_path_char
from automodel_launch.errors import LaunchError
from automodel_launch.interrupts import stop_signals_raise_once
from automodel_launch.written import job_file

EXECUTABLE_SUFFIXES = (".sh", ".sbatch")


class JobDirError(LaunchError):
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


@dataclass(frozen=True)
class Written:
    """What :func:`write_job_dir` made: its files, and the directories it created (deepest
    first; the job directory itself unless it already existed)."""

    target: Path
    files: tuple[str, ...]
    created: tuple[Path, ...]


def claim_job_dir(base: Path, name: str) -> tuple[Path, tuple[Path, ...]]:
    """A new, empty ``base/name_YYYYmmdd-HHMMSS`` (``-2``, ``-3``... when taken), made by
    one ``mkdir``: two submits in the same second never get the same one. Returns it and
    the directories made (deepest first), for :func:`write_job_dir` to remove on failure."""
    created: list[Path] = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    counter = 1
    with stop_signals_raise_once():
        try:
            _make_parents(base, created)
            while True:
                suffix = "" if counter == 1 else f"-{counter}"
                candidate = base / f"{name}_{stamp}{suffix}"
                try:
                    candidate.mkdir()
                    break
                except FileExistsError:
                    counter += 1
        except OSError as exc:
            _remove_empty(created)
            raise JobDirError(f"cannot create a job directory in {base}: {exc.strerror}") from None
        except BaseException:
            _remove_empty(created)
            raise
    return candidate, (candidate, *created)


def write_job_dir(
    target: Path,
    files: dict[str, str],
    claimed: tuple[Path, ...] = (),
    fill: Callable[[Path], list[str]] | None = None,
) -> Written:
    """Write ``files`` into ``target`` whole, or leave nothing behind; ``fill`` writes
    more into the staging directory it is given (the code snapshot) and returns the names.

    Nothing behind means no staging directory and no parent directory this call
    created (nor those of ``claimed``, from :func:`claim_job_dir`), whether the write
    fails (a full disk) or the process is told to stop (Ctrl-C, SIGTERM, SIGHUP) while
    it writes.
    """
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise JobDirError(f"{target} already exists and is not empty; pick a new job directory")
    if target.is_dir() and not claimed:
        _check_writable(target)
    existed = target.exists() and not claimed
    created: list[Path] = list(claimed)
    staging: Path | None = None
    with stop_signals_raise_once():
        try:
            _make_parents(target.parent, created)
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
            for name, content in files.items():
                file = staging / _relative(name)
                if file.parent != staging:
                    file.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                file.write_text(job_file(name, content), encoding="utf-8")
                file.chmod(0o755 if name.endswith(EXECUTABLE_SUFFIXES) else 0o644)
            filled = fill(staging) if fill is not None else []
            staging.chmod(0o755)
            os.replace(staging, target)  # onto an empty directory too (POSIX rename)
        except BaseException:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            _remove_empty(created)
            raise
    return Written(target, (*files, *filled), (*(() if existed else (target,)), *created))


def _relative(name: str) -> str:
    """A file of the job directory: a name, or a path below it (a sweep's ``points/3/...``)."""
    parts = name.split("/")
    if name.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{name!r} is not a path inside the job directory")
    return name


def _check_writable(target: Path) -> None:
    """An existing empty directory is used only if its owner may write to it: renaming the
    staged files over it would otherwise replace a read-only directory with a writable one
    (the check is on the mode, so it holds for root too)."""
    import stat

    if target.is_symlink():
        raise JobDirError(f"{target} is a link; give the directory it points to, or a new one")
    if not target.stat().st_mode & stat.S_IWUSR or not os.access(target, os.W_OK):
        raise JobDirError(
            f"{target} is read-only; make it writable (chmod u+w) or pick a new job directory"
        )


def remove_job_dir(written: Written) -> None:
    """Undo :func:`write_job_dir` for a job that did not start (refused, or a dry run):
    remove its files, then the directories it created when nothing else is in them."""
    inner: set[Path] = set()
    for name in written.files:
        file = written.target / name
        file.unlink(missing_ok=True)
        inner.update(p for p in file.parents if written.target in p.parents)
    deepest_first = sorted(inner, key=lambda p: len(p.parts), reverse=True)
    _remove_empty([*deepest_first, *written.created])


def _make_parents(directory: Path, created: list[Path]) -> None:
    """``mkdir -p``, recording each directory made (deepest first) as soon as it exists."""
    missing: list[Path] = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue  # a parallel submit made it first: theirs, not ours to remove
        created.insert(0, path)


def _remove_empty(directories: list[Path]) -> None:
    for directory in directories:
        try:
            directory.rmdir()
        except FileNotFoundError:
            continue  # already removed (a claimed directory is also the target)
        except OSError:
            return  # not empty (something else is in it): keep the rest
