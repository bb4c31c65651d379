"""The registry in process: rows, lookups, reindexing, damaged records and SQLite's faults,
each with the exact message (these are the tests mutation testing runs)."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest

from automodel_launch.jobs.manifest import MANIFEST, Manifest, new_manifest
from automodel_launch.jobs.registry import (
    FILE,
    STATE_DIR_VARIABLE,
    TIMEOUT_VARIABLE,
    BadRecord,
    CorruptRegistry,
    ForeignRegistry,
    Registry,
    RegistryError,
    _describe,
    _timeout,
    open_registry,
    registry_path,
    set_aside,
)


def manifest(tmp_path: Path, job_dir: str, scheduler_id: str = "5", **changes: object) -> Manifest:
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    made = new_manifest(
        name="train", launcher="slurm", job_dir=Path(job_dir), config=config,
        argv=["automodel-launch"], artifacts=[], environ={},
    ).with_scheduler(scheduler_id)  # fmt: skip
    return made.model_copy(update=changes)


def on_disk(tmp_path: Path, job_dir: Path, **changes: object) -> Manifest:
    job_dir.mkdir(parents=True)
    made = manifest(tmp_path, str(job_dir), **changes)
    (job_dir / MANIFEST).write_text(made.to_json())
    return made


def insert(registry: Registry, row_id: str, text: object, name: str = "n") -> None:
    registry._db.execute(
        "INSERT INTO jobs (id, name, launcher, scheduler_id, job_dir, submitted_at, manifest) "
        "VALUES (?, ?, 'slurm', '9', '/x', '2026-01-01T00:00:00Z', ?)",
        (row_id, name, text),
    )
    registry._db.commit()


def test_the_path_and_the_timeout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert registry_path() == Path(os.environ[STATE_DIR_VARIABLE]) / FILE
    monkeypatch.setenv(STATE_DIR_VARIABLE, "~/state")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert registry_path() == tmp_path / "state" / "jobs.sqlite"
    monkeypatch.delenv(STATE_DIR_VARIABLE)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert registry_path() == tmp_path / "xdg" / "automodel-launch" / "jobs.sqlite"
    assert _timeout() == 30.0
    for value, seconds in (("2.5", 2.5), ("-3", 0.0), ("soon", 30.0), ("0", 0.0)):
        monkeypatch.setenv(TIMEOUT_VARIABLE, value)
        assert _timeout() == seconds


def test_rows_round_trip_newest_first_and_filtered(tmp_path: Path) -> None:
    old = manifest(tmp_path, "/a", "1", submitted_at="2020-01-01T00:00:00Z")
    new = manifest(tmp_path, "/b", "2", submitted_at="2026-01-01T00:00:00Z")
    same_time = manifest(tmp_path, "/c", "3", submitted_at="2026-01-01T00:00:00Z")
    sky = manifest(tmp_path, "/d", "4", launcher="skypilot", submitted_at="2021-01-01T00:00:00Z")
    with open_registry() as registry:
        for made in (old, new, same_time, sky):
            registry.add(made)
        assert registry.jobs() == [same_time, new, sky, old]  # newest, then last added
        assert registry.jobs("skypilot") == [sky]
        assert registry.jobs("slurm", 1577836800.0) == [same_time, new, old]  # 2020-01-01
        assert registry.jobs(since=1577836801.0) == [same_time, new, sky]
        assert registry.jobs(since=-1e30) == [same_time, new, sky, old]
        assert registry.jobs(since=1e30) == []  # past 9999: nothing, no overflow
        first = manifest(tmp_path, "/e", "9", submitted_at="1970-01-01T00:00:00Z")
        registry.add(first)
        assert registry.jobs(since=0.5)[-1] == first  # before 1970 is 1970 itself
        assert registry.jobs(since=1.0)[-1] == old
        assert registry.problems == []
        registry.add(new.model_copy(update={"name": "renamed"}))
        assert [m.name for m in registry.jobs()] == ["renamed", "train", "train", "train", "train"]
    row = sqlite3.connect(registry_path()).execute(
        "SELECT id, name, launcher, scheduler_id, job_dir, submitted_at FROM jobs WHERE id = ?",
        (old.id,),
    )
    assert row.fetchall() == [(old.id, "train", "slurm", "1", "/a", "2020-01-01T00:00:00Z")]


def test_find_by_each_kind_in_order(tmp_path: Path) -> None:
    first = manifest(tmp_path, "/jobs/one", "11", id="aaaa00000001")
    second = manifest(tmp_path, "/jobs/two", "12", id="aaaa00000002", name="aaaa00000001")
    by_name = manifest(tmp_path, "/jobs/three", "13", id="bbbb00000003", name="eleven")
    with open_registry() as registry:
        for made in (first, second, by_name):
            registry.add(made)
        assert registry.find("aaaa00000001") == [first]  # the id before the name
        assert registry.find("12") == [second]
        assert registry.find("/jobs/three") == [by_name]
        assert registry.find("eleven") == [by_name]
        assert registry.find("aaaa") == [second, first]
        assert registry.find("bbbb") == [by_name]
        assert registry.find("AAAA") == []  # exact, not case-folded
        assert registry.find("a_a") == [] and registry.find("a%") == []  # no wildcards
        assert registry.find("~nobody-here/x") == []
        assert registry.find("~nobody-here") == []
        assert registry.find("") == [by_name, second, first]  # every id starts with ''


def test_find_a_directory_given_relative_or_with_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = manifest(tmp_path, str(tmp_path / "run"))
    literal = manifest(tmp_path, str(tmp_path / "~nobody-here" / "x"), "6")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    with open_registry() as registry:
        registry.add(made)
        registry.add(literal)
        assert registry.find("run") == [made]
        assert registry.find("~/run") == [made]
        assert registry.find("~nobody-here/x") == [literal]  # no such user: taken as written


def test_damaged_records_are_left_out_with_a_warning(tmp_path: Path) -> None:
    good = manifest(tmp_path, "/jobs/good", "7", name="n")
    with open_registry() as registry:
        registry.add(good)
        insert(registry, "bad1", "{bad")
        insert(registry, "bad2", b"blob", name="blob")
        database = registry.path
        assert registry.jobs() == [good]
        drops = (
            "`automodel-launch jobs --reindex DIR` drops such records and rebuilds the ones "
            "of the job directories under DIR"
        )
        assert registry.problems == [
            f"a record of the job registry {database} is not JSON text; {drops}",
            f"a record of the job registry {database} is not a job manifest (Invalid JSON: "
            f"key must be a string at line 1 column 2); {drops}",
        ]
        assert registry.jobs() == [good]
        assert len(registry.problems) == 4  # each call adds what it met
        registry.problems.clear()
        assert registry.find("n") == [good]  # one good and one damaged record match
        assert registry.find("n") == [good]
        assert len(registry.problems) == 2
        with pytest.raises(BadRecord) as raised:
            registry.find("bad1")
        assert str(raised.value).startswith(f"a record of the job registry {database} is not")
        with pytest.raises(BadRecord, match="is not JSON text"):
            registry.find("blob")
        with pytest.raises(BadRecord):  # scheduler id 9: damaged rows only
            registry.find("9")


def test_reindex_replaces_the_rows_under_a_directory_only(tmp_path: Path) -> None:
    """``/runs/a_b`` is no pattern: the rows of ``/runs/aXb``, ``/runs/a_bc`` and
    ``/runs/A_B`` stay; a damaged row is dropped; the healthy file is kept."""
    runs = tmp_path / "runs"
    kept = {
        name: manifest(tmp_path, str(runs / name / "job"), str(n + 1))
        for n, name in enumerate(["aXb", "a_bc", "A_B", "a%b", "a", "b"])
    }
    stale = manifest(tmp_path, str(runs / "a_b" / "gone"), "20")
    top = manifest(tmp_path, str(runs / "a_b"), "21")
    fresh = on_disk(tmp_path, runs / "a_b" / "new", scheduler_id="22")
    (runs / "a_b" / "broken").mkdir()
    (runs / "a_b" / "broken" / MANIFEST).write_text("{}")
    with open_registry() as registry:
        for made in (*kept.values(), stale, top):
            registry.add(made)
        insert(registry, "bad", "[]")
        count, problems = registry.reindex(runs / "a_b")
        assert count == 1
        assert problems == [
            f"cannot read {runs}/a_b/broken/{MANIFEST}: it is not a job manifest (id: Field "
            "required; 8 more); submit writes this file: restore it, or move the job directory "
            "away if it holds no job"
        ]
        assert {m.id for m in registry.jobs()} == {m.id for m in kept.values()} | {fresh.id}
        assert registry.problems == []
        assert registry.reindex(runs / "a_b" / "new") == (1, [])
        assert registry.reindex(runs / "a ") == (0, [])  # the rows of runs/a stay
        assert registry.reindex(runs / "bX") == (0, [])  # and those of runs/b
        assert registry.reindex(tmp_path / "nothing-here") == (0, [])
        assert {m.id for m in registry.jobs()} == {m.id for m in kept.values()} | {fresh.id}
        assert registry.reindex(runs) == (1, [problems[0]])
        assert registry.jobs() == [fresh]
    assert registry_path().exists()


def test_reindex_with_a_trailing_slash_and_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    fresh = on_disk(tmp_path, tmp_path / "r" / "one")
    other = manifest(tmp_path, str(tmp_path / "rr" / "x"), "8")
    with open_registry() as registry:
        registry.add(other)
        assert registry.reindex(Path("~/r/")) == (1, [])
        assert {m.id for m in registry.jobs()} == {fresh.id, other.id}


def test_sqlite_faults_are_described(tmp_path: Path) -> None:
    path = tmp_path / "jobs.sqlite"
    locked = _describe(sqlite3.OperationalError("database is locked"), path)
    assert type(locked) is RegistryError
    assert str(locked) == (
        f"the job registry {path} is locked by another process (waited 30s); try again when "
        "it is done"
    )
    assert "locked by another" in str(_describe(sqlite3.OperationalError("busy"), path))
    readonly = _describe(sqlite3.OperationalError("attempt to write a readonly database"), path)
    assert type(readonly) is RegistryError
    assert str(readonly) == (
        f"cannot write the job registry {path} (attempt to write a readonly database); make "
        "its directory writable or set AUTOMODEL_LAUNCH_STATE_DIR to a directory you can write"
    )
    for text in ("unable to open database file", "read-only file system"):
        assert "cannot write" in str(_describe(sqlite3.OperationalError(text), path))
    binding = _describe(sqlite3.ProgrammingError("type 'list' is not supported"), path)
    assert type(binding) is RegistryError  # not corrupt: never set aside for this
    assert str(binding) == f"the job registry {path} failed: type 'list' is not supported"
    for code in (11, 26, 11 | 256):
        error = sqlite3.DatabaseError("file is not a database")
        error.sqlite_errorcode = code  # type: ignore[attr-defined]
        corrupt = _describe(error, path)
        assert type(corrupt) is CorruptRegistry
        assert str(corrupt) == (
            f"the job registry {path} is corrupt (file is not a database); `automodel-launch "
            "jobs --reindex DIR` sets it aside and rebuilds it from the job directories under DIR"
        )
    other = sqlite3.DatabaseError("disk I/O error")
    other.sqlite_errorcode = 10  # type: ignore[attr-defined]
    assert type(_describe(other, path)) is RegistryError
    malformed = sqlite3.DatabaseError("malformed")  # no code: not known to be corrupt
    assert type(_describe(malformed, path)) is RegistryError


def test_a_real_corrupt_file_and_setting_it_aside(tmp_path: Path) -> None:
    path = registry_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    Path(f"{path}-wal").write_text("x")
    with pytest.raises(CorruptRegistry), open_registry() as registry:
        registry.jobs()
    Path(f"{path}-wal").write_text("x")
    Path(f"{path}-shm").write_text("x")
    aside = set_aside(path)
    assert re.fullmatch(r"jobs\.sqlite\.corrupt-20[0-9]{6}-[0-9]{6}", aside.name), aside.name
    assert aside.parent == path.parent and aside.read_bytes().startswith(b"this")
    assert sorted(p.name for p in path.parent.iterdir()) == [aside.name]
    aside.unlink()
    path.write_bytes(b"no WAL files beside this one")
    assert set_aside(path).read_bytes() == b"no WAL files beside this one"
    with open_registry() as registry:
        assert registry.jobs() == []


def test_a_registry_directory_that_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(RegistryError) as raised, open_registry(tmp_path / "file" / "s" / FILE):
        pass
    assert str(raised.value) == (
        f"cannot create the job registry's directory {tmp_path}/file/s: Not a directory; make "
        "it writable or set AUTOMODEL_LAUNCH_STATE_DIR to a directory you can write"
    )
    (tmp_path / "a-dir").mkdir()
    with pytest.raises(RegistryError) as raised, open_registry(tmp_path / "a-dir"):
        pass
    assert str(raised.value) == (
        f"cannot write the job registry {tmp_path}/a-dir (unable to open database file); make "
        "its directory writable or set AUTOMODEL_LAUNCH_STATE_DIR to a directory you can write"
    )


def test_a_locked_registry_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.1")
    with open_registry():
        pass
    holder = sqlite3.connect(registry_path())
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with (
            pytest.raises(RegistryError, match="is locked by another process"),
            open_registry() as registry,
        ):
            registry.add(manifest(tmp_path, "/j"))
    finally:
        holder.rollback()
        holder.close()


def test_the_connection_is_closed_on_leaving(tmp_path: Path) -> None:
    with open_registry() as registry:
        pass
    with pytest.raises(sqlite3.ProgrammingError):
        registry._db.execute("SELECT 1")
    assert registry.path == registry_path()
    journal = sqlite3.connect(registry_path()).execute("PRAGMA journal_mode").fetchone()
    assert journal == ("wal",)


_OURS = (
    "id TEXT PRIMARY KEY, name TEXT NOT NULL, launcher TEXT NOT NULL, scheduler_id TEXT, "
    "job_dir TEXT NOT NULL, submitted_at TEXT NOT NULL, manifest TEXT NOT NULL"
)


def _schema(path: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(path) as db:
        found = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    db.close()
    return found


def _foreign(path: Path, schema: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(schema)
    db.close()


@pytest.mark.parametrize(
    ("schema", "why"),
    [("CREATE TABLE jobs (id, name, submitted_at, scheduler_id)",
      "its jobs table has no column launcher"),
     ("CREATE TABLE JOBS (id TEXT PRIMARY KEY, name TEXT)",
      "its jobs table has no column launcher"),
     (f"CREATE TABLE jobs ({_OURS.replace('manifest TEXT NOT NULL', 'record TEXT')})",
      "its jobs table has no column manifest"),
     ("CREATE TABLE t (x); CREATE VIEW jobs AS SELECT x AS id FROM t",
      "its jobs is a view, not a table"),
     (f"CREATE TABLE jobs ({_OURS}, owner TEXT NOT NULL, host TEXT NOT NULL)",
      "its jobs table requires a column this version does not write: owner")],
)  # fmt: skip
def test_a_jobs_table_of_another_shape_says_whose_it_is_and_the_way_out(
    tmp_path: Path, schema: str, why: str
) -> None:
    path = tmp_path / "other" / FILE
    _foreign(path, schema)
    before = _schema(path)
    with pytest.raises(ForeignRegistry) as raised, open_registry(path) as registry:
        registry.jobs()
    assert isinstance(raised.value, CorruptRegistry) and raised.value.said == (
        "of another version, or damaged"
    )
    assert str(raised.value) == (
        f"the job registry {path} was written by another version of automodel-launch, or is "
        f"damaged ({why}); `automodel-launch jobs --reindex DIR` sets it aside and rebuilds it "
        "from the job directories under DIR"
    )
    assert _schema(path) == before  # nothing created or migrated in it


@pytest.mark.parametrize(
    "extra", ["", ", note TEXT", ", owner TEXT NOT NULL DEFAULT 'me'", ", sweep TEXT"]
)
def test_a_jobs_table_with_columns_it_fills_or_leaves_empty_is_used(
    tmp_path: Path, extra: str
) -> None:
    path = tmp_path / "other" / FILE
    _foreign(path, f"CREATE TABLE jobs ({_OURS}{extra})")
    made = manifest(tmp_path, "/j")
    with open_registry(path) as registry:
        registry.add(made)
        assert registry.jobs() == [made]


def test_reindex_sets_a_registry_of_another_shape_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from automodel_launch.cli import errors
    from automodel_launch.cli.app import run_app

    made = on_disk(tmp_path, tmp_path / "jobs" / "one")
    path = registry_path()
    _foreign(path, "CREATE TABLE jobs (id, name)")
    assert errors.run(lambda: run_app(["jobs"])) == 1
    assert capsys.readouterr().err == (
        f"error: the job registry {path} was written by another version of automodel-launch, "
        "or is damaged (its jobs table has no column launcher); `automodel-launch jobs "
        "--reindex DIR` sets it aside and rebuilds it from the job directories under DIR\n"
    )
    assert errors.run(lambda: run_app(["jobs", "--reindex", str(tmp_path / "jobs")])) == 0
    out, err = capsys.readouterr()
    aside = next(path.parent.glob(f"{FILE}.corrupt-*"))
    assert err == (
        f"warning: the registry was of another version, or damaged; moved it to {aside}\n"
    )
    assert out == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    with open_registry() as registry:
        assert [m.id for m in registry.jobs()] == [made.id]
