"""Sweeps in the registry: the ``sweep`` column, a registry made before it migrated in
place, a sweep's points in point order, and the ways to name a sweep."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from automodel_launch.jobs.manifest import MANIFEST, Manifest
from automodel_launch.jobs.registry import open_registry
from tests.jobs.test_registry_unit import manifest

OLD_SCHEMA = """
CREATE TABLE jobs (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, launcher TEXT NOT NULL, scheduler_id TEXT,
    job_dir TEXT NOT NULL, submitted_at TEXT NOT NULL, manifest TEXT NOT NULL
);
CREATE INDEX jobs_submitted ON jobs (submitted_at);
CREATE INDEX jobs_scheduler ON jobs (scheduler_id);
CREATE INDEX jobs_name ON jobs (name);
"""


def point(tmp_path: Path, sweep: str, index: int, scheduler_id: str, **changes: object) -> Manifest:
    return manifest(
        tmp_path, f"/s/{sweep}/{index}", scheduler_id, sweep=sweep, point=index,
        values={"optimizer.lr": 10.0**-index}, **changes,
    )  # fmt: skip


def test_a_registry_made_before_sweeps_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    single = manifest(tmp_path, "/a", "1")
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute(
            "INSERT INTO jobs VALUES (?, 'train', 'slurm', '1', '/a', ?, ?)",
            (single.id, single.submitted_at, single.model_dump_json()),
        )
    db.close()
    with open_registry(path) as registry:
        assert registry.jobs() == [single]
        swept = point(tmp_path, "abcdef012345", 0, "7_0")
        registry.add(swept)
        assert registry.sweep_points("abcdef012345") == [swept]
        assert registry.jobs() == [swept, single] or registry.jobs() == [single, swept]
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(jobs)")]
        indexes = {row[1] for row in db.execute("PRAGMA index_list(jobs)")}
        rows = db.execute("SELECT id, sweep FROM jobs ORDER BY sweep").fetchall()
    db.close()
    assert columns[-1] == "sweep" and columns.count("sweep") == 1
    assert "jobs_sweep" in indexes
    assert rows == [(single.id, None), (swept.id, "abcdef012345")]
    with open_registry(path) as registry:  # opened again: nothing to migrate, nothing lost
        assert len(registry.jobs()) == 2


def test_a_sweeps_points_come_in_point_order(tmp_path: Path) -> None:
    points = [point(tmp_path, "abcdef012345", n, f"40_{n}") for n in (2, 0, 3, 1)]
    other = point(tmp_path, "0123456789ab", 0, "41_0")
    with open_registry() as registry:
        for made in (*points, other, manifest(tmp_path, "/single", "42")):
            registry.add(made)
        shown = registry.sweep_points("abcdef012345")
        assert [m.point for m in shown] == [0, 1, 2, 3]
        assert {m.id for m in shown} == {m.id for m in points}
        assert registry.sweep_points("abcdef") == []  # the id, not a start of it
        assert registry.sweep_points("ffffffffffff") == []
        registry.problems.append("earlier")
        registry._db.execute("UPDATE jobs SET manifest = '[]' WHERE id = ?", (points[0].id,))
        assert [m.point for m in registry.sweep_points("abcdef012345")] == [0, 1, 3]
        assert registry.problems[0] == "earlier" and len(registry.problems) == 2


def test_a_sweep_is_named_by_id_array_id_name_or_unique_start(tmp_path: Path) -> None:
    old = [point(tmp_path, "abcdef012345", n, f"40_{n}", name="lr",
                 submitted_at="2026-01-01T00:00:00Z") for n in range(2)]  # fmt: skip
    new = [point(tmp_path, "abc999999999", n, f"4_{n}", name="lr",
                 submitted_at="2026-02-01T00:00:00Z") for n in range(2)]  # fmt: skip
    with open_registry() as registry:
        for made in (*old, *new, manifest(tmp_path, "/single", "400", name="single")):
            registry.add(made)
        assert registry.sweep_ids("abcdef012345") == ("id", ["abcdef012345"])
        assert registry.sweep_ids("40") == ("array", ["abcdef012345"])  # the array, not 400 nor 4
        assert registry.sweep_ids("4") == ("array", ["abc999999999"])
        assert registry.sweep_ids("40_1") == ("", [])  # a task is a job
        assert registry.sweep_ids("lr") == (
            "name",
            ["abc999999999", "abcdef012345"],
        )  # newest first
        assert registry.sweep_ids("abcd") == ("prefix", ["abcdef012345"])
        assert registry.sweep_ids("abc") == ("prefix", ["abc999999999", "abcdef012345"])
        assert registry.sweep_ids("single") == ("", [])
        assert registry.sweep_ids("400") == ("", [])
        assert registry.sweep_ids("") == ("", [])


def test_reindex_carries_the_sweep(tmp_path: Path) -> None:
    root = tmp_path / "jobs"
    made = point(tmp_path, "abcdef012345", 0, "9_0")
    job_dir = root / "p0"
    job_dir.mkdir(parents=True)
    (job_dir / MANIFEST).write_text(made.to_json())
    with open_registry() as registry:
        assert registry.reindex(root) == (1, [])
        (shown,) = registry.sweep_points("abcdef012345")
        assert (shown.id, shown.point, shown.job_dir) == (made.id, 0, str(job_dir))
        assert registry.sweep_ids("9") == ("array", ["abcdef012345"])


def test_the_newest_rows_a_sweep_being_one(tmp_path: Path) -> None:
    def at(minute: int) -> str:
        return f"2026-01-01T00:{minute:02d}:00Z"

    old_sweep = [point(tmp_path, "abcdef012345", n, f"40_{n}", submitted_at=at(n)) for n in (0, 1)]
    singles = [manifest(tmp_path, f"/single{n}", str(n + 1), submitted_at=at(n + 2),
                        launcher="skypilot" if n else "slurm") for n in range(3)]  # fmt: skip
    new_sweep = [point(tmp_path, "0123456789ab", n, f"41_{n}", submitted_at=at(10)) for n in (0, 1)]
    with open_registry() as registry:
        for made in (*old_sweep, *singles, *new_sweep):
            registry.add(made)
        assert registry.newest_rows(2) == ([new_sweep[1], new_sweep[0], singles[2]], 5)
        assert registry.newest_rows(3)[0][3:] == [singles[1]]
        everything, total = registry.newest_rows(100)
        assert total == 5
        assert everything == [
            new_sweep[1],
            new_sweep[0],
            *singles[::-1],
            old_sweep[1],
            old_sweep[0],
        ]
        assert registry.newest_rows(1, "skypilot") == ([singles[2]], 2)
        assert registry.newest_rows(9, since=1767225660.0) == (
            [new_sweep[1], new_sweep[0], singles[2], singles[1], singles[0], old_sweep[1]],
            5,
        )  # 00:01 on: one point of the old sweep is in, the other not
        assert registry.newest_rows(3, "interactive") == ([], 0)
        registry._db.execute("UPDATE jobs SET manifest = '{}' WHERE id = ?", (singles[2].id,))
        shown, total = registry.newest_rows(2)
        assert (shown, total) == ([new_sweep[1], new_sweep[0]], 5)
        assert registry.problems[0].startswith(f"a record of the job registry {registry.path} ")
