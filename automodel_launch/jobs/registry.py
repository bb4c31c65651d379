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
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from automodel_launch.errors import LaunchError
from automodel_launch.jobs.manifest import (
    STAMP,
    Manifest,
    ManifestError,
    manifest_from_json,
    manifest_from_values,
    read_manifest,
)
from automodel_launch.layout import MANIFEST

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
    manifest TEXT NOT NULL,
    sweep TEXT
);
CREATE INDEX IF NOT EXISTS jobs_submitted ON jobs (submitted_at);
CREATE INDEX IF NOT EXISTS jobs_scheduler ON jobs (scheduler_id);
CREATE INDEX IF NOT EXISTS jobs_name ON jobs (name);
"""
_SWEEP_INDEX = "CREATE INDEX IF NOT EXISTS jobs_sweep ON jobs (sweep)"
"""After :func:`_migrated`: a registry made before sweeps has no ``sweep`` column yet."""
_COLUMNS = "id, name, launcher, scheduler_id, job_dir, submitted_at, manifest, sweep"
_NEEDED = ("id", "name", "launcher", "scheduler_id", "job_dir", "submitted_at", "manifest")
"""The columns of ``jobs`` every version wrote (``sweep`` is added when missing)."""
_KNOWN = frozenset((*_NEEDED, "sweep"))
_NEWEST_FIRST = " ORDER BY submitted_at DESC, rowid DESC"
_LAST = 253402300799.0
"""9999-12-31T23:59:59Z: the last time the registry's ISO stamps can write."""


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
        self.problems: list[str] = []
        """Records left out because they hold no manifest (``jobs`` shows them as warnings)."""

    def add(self, manifest: Manifest) -> None:
        """A row for ``manifest``, its texts masked again
        (:func:`automodel_launch.written.registry_fields`): one read back from a job
        directory may hold what the tool would not have written. A :class:`ManifestError`
        when the masked manifest no longer fits its bounds (a one-letter password in a URL
        becomes ``***``)."""
        from automodel_launch.written import registry_fields

        masked = registry_fields(manifest)
        if masked is not None:
            manifest = manifest_from_values(masked, f"the manifest of {manifest.job_dir}")
        with self._errors(), self._db:
            self._db.execute(
                f"INSERT OR REPLACE INTO jobs ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    manifest.id,
                    manifest.name,
                    manifest.launcher,
                    manifest.scheduler_id,
                    manifest.job_dir,
                    manifest.submitted_at,
                    manifest.model_dump_json(),
                    manifest.sweep,
                ),
            )

    def jobs(self, launcher: str | None = None, since: float | None = None) -> list[Manifest]:
        """Newest first; a record that holds no manifest is left out (see :attr:`problems`)."""
        where, params = self._filters(launcher, since)
        found, problems = self._manifests(
            f"SELECT manifest FROM jobs WHERE {where}" + _NEWEST_FIRST, params
        )
        self.problems += problems
        return found

    def newest_rows(
        self, limit: int, launcher: str | None = None, since: float | None = None
    ) -> tuple[list[Manifest], int]:
        """The jobs of the newest ``limit`` rows of ``jobs`` (a sweep is one row: all its
        points), newest first, in one query; and how many rows there are in all."""
        where, params = self._filters(launcher, since)
        fetched = "SELECT manifest, total, newest, last, submitted_at, jobs.rowid AS n FROM shown"
        query = f"""
            WITH grouped AS (SELECT coalesce(sweep, id) AS key, max(submitted_at) AS newest,
                                    max(rowid) AS last FROM jobs WHERE {where} GROUP BY key),
            shown AS (SELECT key, newest, last, count(*) OVER () AS total FROM grouped
                      ORDER BY newest DESC, last DESC LIMIT ?)
            {fetched} JOIN jobs ON jobs.sweep = shown.key WHERE {where}
            UNION ALL
            {fetched} JOIN jobs ON jobs.id = shown.key AND jobs.sweep IS NULL WHERE {where}
            ORDER BY newest DESC, last DESC, submitted_at DESC, n DESC
        """
        with self._errors():
            rows = self._db.execute(query, [*params, limit, *params, *params]).fetchall()
        found: list[Manifest] = []
        for text, *_ in rows:
            read = _read_row(text, self.path)
            if isinstance(read, Manifest):
                found.append(read)
            else:
                self.problems.append(read)
        return found, rows[0][1] if rows else 0

    def _filters(self, launcher: str | None, since: float | None) -> tuple[str, list[str]]:
        where, params = "1", []
        if launcher is not None:
            where += " AND launcher = ?"
            params.append(launcher)
        if since is not None:
            where += " AND submitted_at >= ?"
            params.append(time.strftime(STAMP, time.gmtime(min(max(since, 0.0), _LAST))))
        return where, params

    def find(self, text: str) -> list[Manifest]:
        """Jobs that JOB names: our id (or a unique start of it), a scheduler id, a job
        directory, a job name; the first kind that matches wins, newest first. A record
        that matches but holds no manifest is left out; :class:`BadRecord` when only such
        records match."""
        try:
            directory = str(Path(text).expanduser().absolute())
        except RuntimeError:  # ~nobody: no such home, no such directory
            directory = str(Path(text).absolute())
        for query, params in (
            ("SELECT manifest FROM jobs WHERE id = ?", [text]),
            ("SELECT manifest FROM jobs WHERE scheduler_id = ?", [text]),
            ("SELECT manifest FROM jobs WHERE job_dir = ?", [directory]),
            ("SELECT manifest FROM jobs WHERE name = ?", [text]),
            ("SELECT manifest FROM jobs WHERE substr(id, 1, length(?)) = ?", [text, text]),
        ):
            found, problems = self._manifests(query + _NEWEST_FIRST, params)
            if found:
                self.problems += problems
                return found
            if problems:
                raise BadRecord(problems[0])
        return []

    def sweep_points(self, sweep: str) -> list[Manifest]:
        """The points of the sweep whose id is ``sweep``, in point order (none: no such
        sweep); records that hold no manifest are left out (see :attr:`problems`)."""
        found, problems = self._manifests("SELECT manifest FROM jobs WHERE sweep = ?", [sweep])
        self.problems += problems
        return sorted(found, key=lambda m: (m.point or 0, m.submitted_at))

    def sweep_ids(self, text: str) -> tuple[str, list[str]]:
        """Sweeps SWEEP names, and how: ``id`` (its id), ``array`` (the Slurm id of its job
        array: ``1234`` for the tasks ``1234_0``...), ``name`` (the newest sweep of that name
        first), ``prefix`` (a start of its id); the first kind that matches wins. Nothing
        names no sweep: ``("", [])``."""
        if not text:
            return "", []
        for kind, query, params in (
            ("id", "SELECT sweep FROM jobs WHERE sweep = ?", [text]),
            # "1234_" <= id < "1234`" ("`" follows "_"): the ids that start with "1234_"
            ("array", "SELECT sweep FROM jobs WHERE sweep IS NOT NULL AND scheduler_id >= ? "
             "AND scheduler_id < ?", [text + "_", text + "`"]),
            ("name", "SELECT sweep FROM jobs WHERE sweep IS NOT NULL AND name = ?", [text]),
            ("prefix", "SELECT sweep FROM jobs WHERE substr(sweep, 1, length(?)) = ?",
             [text, text]),
        ):  # fmt: skip
            with self._errors():
                rows = self._db.execute(query + _NEWEST_FIRST, params).fetchall()
            if rows:
                return kind, list(dict.fromkeys(sweep for (sweep,) in rows))
        return "", []

    def reindex(self, directory: Path) -> tuple[int, list[str]]:
        """Rebuild the rows of the job directories under ``directory`` from their
        manifests: (how many were recorded, the manifests that could not be read). Rows
        of other directories stay, but those that hold no manifest are dropped."""
        root = directory.expanduser().absolute()
        found: list[Manifest] = []
        problems: list[str] = []
        for path in sorted(root.rglob(MANIFEST)):
            try:
                found.append(read_manifest(path.parent))
            except ManifestError as exc:
                problems.append(str(exc))
        below = str(root).rstrip("/") + "/"
        with self._errors(), self._db:
            self._db.execute(
                "DELETE FROM jobs WHERE job_dir = ? OR substr(job_dir, 1, length(?)) = ?",
                (str(root), below, below),
            )
            rows = self._db.execute("SELECT rowid, manifest FROM jobs").fetchall()
            unreadable = [
                (rowid,) for rowid, text in rows if isinstance(_read_row(text, self.path), str)
            ]
            self._db.executemany("DELETE FROM jobs WHERE rowid = ?", unreadable)
        recorded = 0
        for manifest in found:
            try:
                self.add(manifest)
            except ManifestError as exc:
                problems.append(str(exc))
            else:
                recorded += 1
        return recorded, problems

    def close(self) -> None:
        self._db.close()

    def _manifests(self, query: str, params: list[str]) -> tuple[list[Manifest], list[str]]:
        with self._errors():
            rows = self._db.execute(query, params).fetchall()
        found: list[Manifest] = []
        problems: list[str] = []
        for (text,) in rows:
            read = _read_row(text, self.path)
            if isinstance(read, Manifest):
                found.append(read)
            else:
                problems.append(read)
        return found, problems

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
            _check_shape(connection, path)
            connection.executescript(_SCHEMA)
            _migrated(connection)
        yield registry
    finally:
        registry.close()


def _check_shape(connection: sqlite3.Connection, path: Path) -> None:
    """An existing ``jobs`` that is not a table this version reads and writes (another
    version's registry, another program's file) is a :class:`ForeignRegistry`."""
    kind = connection.execute(
        "SELECT type FROM sqlite_master WHERE name = 'jobs' COLLATE NOCASE"
    ).fetchone()
    if kind is None:
        return  # a new registry: the schema makes it
    columns = {row[1]: row for row in connection.execute("PRAGMA table_info(jobs)")}
    missing = [name for name in _NEEDED if name not in columns]
    # (cid, name, type, notnull, default, pk): a column no insert of ours fills
    unfilled = [n for n, row in columns.items() if n not in _KNOWN and row[3] and row[4] is None]
    if kind[0] != "table":
        why = f"its jobs is a {kind[0]}, not a table"
    elif missing:
        why = f"its jobs table has no column {missing[0]}"
    elif unfilled:
        why = f"its jobs table requires a column this version does not write: {unfilled[0]}"
    else:
        return
    raise ForeignRegistry(
        f"the job registry {path} was written by another version of automodel-launch, or is "
        f"damaged ({why}); `automodel-launch jobs --reindex DIR` sets it aside and rebuilds it "
        "from the job directories under DIR"
    )


def _migrated(connection: sqlite3.Connection) -> None:
    """A registry made before sweeps gets its ``sweep`` column (null: its jobs are single
    ones, as their manifests say) and the column's index, in place."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(jobs)")}
    if "sweep" not in columns:
        with connection:
            connection.execute("ALTER TABLE jobs ADD COLUMN sweep TEXT")
    connection.execute(_SWEEP_INDEX)


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
    """SQLite says the file is not a database, or a damaged one: only then is it set aside
    (and when it is :class:`ForeignRegistry`)."""

    said = "corrupt"
    """What ``jobs --reindex`` says of the registry it set aside."""


class ForeignRegistry(CorruptRegistry):
    """A database whose ``jobs`` is not this version's table: nothing in it can be read."""

    said = "of another version, or damaged"


class BadRecord(RegistryError):
    """A record that holds no manifest (an edited or damaged row): the registry is
    healthy; ``jobs --reindex`` drops such records."""


_CORRUPT = (11, 26)
"""SQLITE_CORRUPT and SQLITE_NOTADB: the primary result codes of a damaged file."""


def _describe(exc: sqlite3.Error, path: Path) -> RegistryError:
    text = str(exc)
    code = getattr(exc, "sqlite_errorcode", None)
    if "locked" in text or "busy" in text:
        return RegistryError(
            f"the job registry {path} is locked by another process (waited "
            f"{_timeout():.0f}s); try again when it is done"
        )
    if code is not None and code & 0xFF in _CORRUPT:
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


def _read_row(text: object, path: Path) -> Manifest | str:
    """A record's manifest, or why it holds none (an edited or damaged row)."""
    where = f"a record of the job registry {path}"
    if not isinstance(text, str):
        return f"{where} is not JSON text; {_DROPS}"
    try:
        return manifest_from_json(text, where)
    except ManifestError as exc:
        return f"{exc}; {_DROPS}"


_DROPS = (
    "`automodel-launch jobs --reindex DIR` drops such records and rebuilds the ones of "
    "the job directories under DIR"
)
