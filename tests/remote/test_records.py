"""A job's record of its named cluster holds only what a cluster's definition may hold:
a host, port or job directory there that the profile file would refuse makes the record
no manifest, one unreadable record among the others (never "a bug", never the whole
registry), and ``jobs --reindex`` leaves it out."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from automodel_launch.jobs.manifest import MANIFEST, Manifest
from automodel_launch.jobs.registry import open_registry, registry_path
from tests.conftest import run_cli
from tests.hostile.test_job_dirs import clean, job, listed

GOOD = {"name": "lab", "host": "me@login", "port": 2222, "job_dir": "/lustre/me/j"}
BAD: dict[str, tuple[dict[str, Any], str]] = {
    # what the record's own pattern let through, and the cluster's check refuses
    "two-users": ({"host": "a@b@c"}, "remote.host: is not a host"),
    "user-too-long": ({"host": "u" * 65 + "@h"}, "remote.host: is not a host"),
    "host-too-long": ({"host": "h" * 254}, "remote.host: is not a host"),
    "plus-in-host": ({"host": "a+b"}, "remote.host: is not a host"),
    "blank-in-job-dir": ({"job_dir": "/lustre/my jobs/j"}, "remote.job_dir: contains ' '"),
    "command-in-job-dir": ({"job_dir": "/l/$(id)/j"}, "remote.job_dir: contains '$'"),
    "backtick-in-job-dir": ({"job_dir": "/l/`id`/j"}, "remote.job_dir: contains '`'"),
    "port-zero": ({"port": 0}, "remote.port: Input should be greater than or equal to 1"),
}


def remote_job(tmp_path: Path, name: str, **remote: Any) -> Manifest:
    """A job of cluster lab in the registry, its manifest's record as ``remote`` says
    (written as it is, past the model: what an older release or an edit leaves)."""
    manifest = job(tmp_path, name, launcher="slurm")
    data = json.loads(manifest.to_json())
    data["remote"] = {**GOOD, **remote}
    text = json.dumps(data)
    (Path(manifest.job_dir) / MANIFEST).write_text(text)
    with sqlite3.connect(registry_path()) as db:
        db.execute("UPDATE jobs SET manifest = ? WHERE id = ?", (text, manifest.id))
    return manifest


def test_a_record_no_cluster_may_have_is_one_unreadable_record(tmp_path: Path) -> None:
    """Every case in one registry: each is a warning of its own, the healthy job is listed."""
    job(tmp_path, "healthy")
    bad = {case: remote_job(tmp_path, case, **changes) for case, (changes, _) in BAD.items()}
    record = f"a record of the job registry {registry_path()} is not a job manifest"
    done = run_cli("jobs", "--format", "json", cwd=tmp_path)
    clean(done, 0, lines=len(BAD))
    drops = "; `automodel-launch jobs --reindex DIR` drops such records"
    assert sorted(line.partition(drops)[0] for line in done.stderr.splitlines()) == sorted(
        f"warning: {record} ({problem}{_rest(problem)})" for _, problem in BAD.values()
    )
    assert [j["name"] for j in json.loads(done.stdout)["jobs"]] == ["healthy"]
    done = run_cli("status", "healthy", "--format", "json", cwd=tmp_path)
    clean(done, 0, lines=0)
    assert json.loads(done.stdout)["name"] == "healthy"
    shown = run_cli("status", bad["two-users"].id, cwd=tmp_path)
    clean(shown, 1)
    assert shown.stderr.startswith(f"error: {record} (remote.host: is not a host: write ")
    rebuilt = run_cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    clean(rebuilt, 0, lines=len(BAD))
    assert sorted(rebuilt.stderr.splitlines()) == sorted(
        f"warning: skipped cannot read {Path(bad[case].job_dir) / MANIFEST}: it is not a job "
        f"manifest ({problem}{_rest(problem)}); submit writes this file: restore it, or move "
        "the job directory away if it holds no job"
        for case, (_, problem) in BAD.items()
    )
    assert rebuilt.stdout == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    assert listed(tmp_path) == ["healthy"]
    with open_registry() as registry:
        assert [m.name for m in registry.jobs()] == ["healthy"] and registry.problems == []


def _rest(problem: str) -> str:
    """What follows each problem's start in BAD: the fix the check gives."""
    if problem.endswith("is not a host"):
        return ": write user@host, host, or a Host alias of ~/.ssh/config"
    if problem.startswith("remote.job_dir"):
        return (
            ", which an #SBATCH line cannot carry safely: choose a path of letters, digits, "
            "'/', '_', '-', '.'"
        )
    return ""


def test_a_record_the_cluster_accepts_is_read(tmp_path: Path) -> None:
    remote_job(tmp_path, "there", host="u.s_e-r+x@fe80::1%eth0", job_dir="/l//jobs/j/")
    with open_registry() as registry:
        (found,) = registry.jobs()
    assert found.remote is not None
    assert (found.remote.host, found.remote.job_dir) == ("u.s_e-r+x@fe80::1%eth0", "/l/jobs/j")
