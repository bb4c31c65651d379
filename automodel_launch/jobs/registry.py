"""The job registry: an index of job manifests in SQLite (standard library), WAL mode.

It lives in the user's state directory (``platformdirs``), or in
``$AUTOMODEL_LAUNCH_STATE_DIR``. Parallel submits each add a row in one short
transaction; a writer waits up to ``$AUTOMODEL_LAUNCH_REGISTRY_TIMEOUT`` seconds (30)
for another. The job directories stay the source of truth: :meth:`Registry.reindex`
rebuilds the rows of a tree of job directories from their manifests. Every fault (a
locked, corrupt or unwritable registry) is a :class:`RegistryError` that says what to do.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

from automodel_launch.errors import LaunchError
from automodel_launch.jobs.manifest import (
    MANIFEST,
    Manifest,
    ManifestError,
    manifest_from,
    read_manifest,
)

STATE_DIR_VARIABLE = "AUTOMODEL_LAUNCH_STATE_DIR"
TIMEOUT_VARIABLE = "AUTOMODEL_LAUNCH_REGISTRY_TIMEOUT"
FILE = "jobs.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    launcher TEXT NOT NULL,
    scheduler_id TEXT,
    job_dir TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    manifest TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_submitted ON jobs (submitted_at);
CREATE INDEX IF NOT EXISTS jobs_scheduler ON jobs (scheduler_id);
CREATE INDEX IF NOT EXISTS jobs_name ON jobs (name);
"""


class RegistryError(LaunchError):
    """The registry cannot be used; the message says why and what to do."""


def registry_path() -> Path:
    explicit = os.environ.get(STATE_DIR_VARIABLE)
    if explicit:
        return Path(explicit).expanduser() / FILE
    import platformdirs

    return Path(platformdirs.user_state_dir("automodel-launch")) / FILE


def _timeout() -> float:
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_VARIABLE, "30")))
    except ValueError:
        return 30.0


class Registry:
    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    def add(self, manifest: Manifest) -> None:
        with self._errors(), self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    manifest.id,
                    manifest.name,
                    manifest.launcher,
                    manifest.scheduler_id,
                    manifest.job_dir,
                    manifest.submitted_at,
                    json.dumps(asdict(manifest)),
                ),
            )

    def jobs(self, launcher: str | None = None, since: float | None = None) -> list[Manifest]:
        """Newest first."""
        query, params = "SELECT manifest FROM jobs WHERE 1", []
        if launcher is not None:
            query += " AND launcher = ?"
            params.append(launcher)
        if since is not None:
            query += " AND submitted_at >= ?"
            params.append(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)))
        return self._manifests(query + " ORDER BY submitted_at DESC, rowid DESC", params)

    def find(self, text: str) -> list[Manifest]:
        """Jobs that JOB names: our id (or a unique start of it), a scheduler id, a job
        directory, a job name; the first kind that matches wins, newest first."""
        order = " ORDER BY submitted_at DESC, rowid DESC"
        directory = str(Path(text).expanduser().absolute())
        for query, param in (
            ("SELECT manifest FROM jobs WHERE id = ?", text),
            ("SELECT manifest FROM jobs WHERE scheduler_id = ?", text),
            ("SELECT manifest FROM jobs WHERE job_dir = ?", directory),
            ("SELECT manifest FROM jobs WHERE name = ?", text),
            ("SELECT manifest FROM jobs WHERE id LIKE ? ESCAPE '\\'", _prefix(text)),
        ):
            found = self._manifests(query + order, [param])
            if found:
                return found
        return []

    def reindex(self, directory: Path) -> tuple[int, list[str]]:
        """Rebuild the rows of the job directories under ``directory`` from their
        manifests: (how many were recorded, the manifests that could not be read)."""
        root = directory.expanduser().absolute()
        found: list[Manifest] = []
        problems: list[str] = []
        for path in sorted(root.rglob(MANIFEST)):
            try:
                found.append(read_manifest(path.parent))
            except ManifestError as exc:
                problems.append(str(exc))
        with self._errors(), self._db:
            self._db.execute(
                "DELETE FROM jobs WHERE job_dir = ? OR job_dir LIKE ? ESCAPE '\\'",
                (str(root), _prefix(str(root).rstrip("/") + "/")),
            )
            rows = self._db.execute("SELECT rowid, manifest FROM jobs").fetchall()
            unreadable = [(rowid,) for rowid, text in rows if not _readable(text, self.path)]
            self._db.executemany("DELETE FROM jobs WHERE rowid = ?", unreadable)
        for manifest in found:
            self.add(manifest)
        return len(found), problems

    def close(self) -> None:
        self._db.close()

    def _manifests(self, query: str, params: list[str]) -> list[Manifest]:
        with self._errors():
            rows = self._db.execute(query, params).fetchall()
        return [_read_row(row[0], self.path) for row in rows]

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise _describe(exc, self.path) from None


@contextlib.contextmanager
def open_registry(path: Path | None = None) -> Iterator[Registry]:
    """The registry, created if missing; closed on leaving."""
    path = path or registry_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RegistryError(
            f"cannot create the job registry's directory {path.parent}: "
            f"{exc.strerror or exc}; make it writable or set {STATE_DIR_VARIABLE} to a "
            "directory you can write"
        ) from None
    try:
        connection = sqlite3.connect(path, timeout=_timeout())
    except sqlite3.Error as exc:
        raise _describe(exc, path) from None
    registry = Registry(connection, path)
    try:
        with registry._errors():
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(_SCHEMA)
        yield registry
    finally:
        registry.close()


def set_aside(path: Path) -> Path:
    """Move a corrupt registry (and its WAL files) out of the way; where it went."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")
    return aside


class CorruptRegistry(RegistryError):
    """The file is not a SQLite database (or a damaged one)."""


def _describe(exc: sqlite3.Error, path: Path) -> RegistryError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return RegistryError(
            f"the job registry {path} is locked by another process (waited "
            f"{_timeout():.0f}s); try again when it is done"
        )
    corrupt = "not a database" in text or "malformed" in text
    if corrupt or not isinstance(exc, sqlite3.OperationalError):
        return CorruptRegistry(
            f"the job registry {path} is corrupt ({text}); `automodel-launch jobs --reindex "
            "DIR` sets it aside and rebuilds it from the job directories under DIR"
        )
    if "readonly" in text or "unable to open" in text or "read-only" in text:
        return RegistryError(
            f"cannot write the job registry {path} ({text}); make its directory writable "
            f"or set {STATE_DIR_VARIABLE} to a directory you can write"
        )
    return RegistryError(f"the job registry {path} failed: {text}")


def _read_row(text: str, path: Path) -> Manifest:
    """A record's manifest; one that is not (an edited or damaged file) makes the
    registry corrupt: ``jobs --reindex`` drops such records."""
    where = f"a record of the job registry {path}"
    try:
        return manifest_from(json.loads(text), where)
    except ValueError as exc:  # not JSON
        problem = f"{where} is not JSON ({exc})"
    except ManifestError as exc:
        problem = str(exc)
    raise CorruptRegistry(
        f"{problem}; `automodel-launch jobs --reindex DIR` drops such records and rebuilds "
        "the ones of the job directories under DIR"
    )


def _readable(text: str, path: Path) -> bool:
    try:
        _read_row(text, path)
    except CorruptRegistry:
        return False
    return True


def _prefix(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
