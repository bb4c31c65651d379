"""The registry: parallel-safe rows, lookups, rebuilding from job directories, and every
fault (locked, corrupt, unwritable, a deleted job directory) a clear message; a
submission is never lost because the registry failed."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from automodel_launch.jobs.manifest import MANIFEST, new_manifest
from automodel_launch.jobs.registry import Registry, open_registry
from tests.conftest import ROOT

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel:\n  name: tiny\n"


def cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT),
             "PATH": f"{cwd / 'bin'}:{os.environ['PATH']}", **env},
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    return done


def submit_local(tmp_path: Path, name: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A foreground local run of a fake ``automodel`` that exits 0."""
    (tmp_path / "bin").mkdir(exist_ok=True)
    tool = tmp_path / "bin" / "automodel"
    tool.write_text("#!/bin/bash\nexit 0\n")
    tool.chmod(0o755)
    (tmp_path / "local.yaml").write_text(RECIPE)
    job = str(tmp_path / "jobs" / name)
    return cli("submit", "local.yaml", "--job-dir", job, "--no-check-paths", cwd=tmp_path, **env)


def add(registry: Registry, tmp_path: Path, name: str, scheduler_id: str, launcher: str) -> str:
    job_dir = tmp_path / "jobs" / name
    job_dir.mkdir(parents=True)
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    manifest = new_manifest(
        name=name.split("-")[0], launcher=launcher, job_dir=job_dir, config=config,
        argv=["automodel-launch", "submit", "c.yaml"], artifacts=["job.sbatch"], environ={},
    ).with_scheduler(scheduler_id)  # fmt: skip
    (job_dir / MANIFEST).write_text(manifest.to_json())
    registry.add(manifest)
    return manifest.id


def test_lookups_by_id_scheduler_id_directory_and_name(tmp_path: Path) -> None:
    with open_registry() as registry:
        first = add(registry, tmp_path, "train-1", "11", "slurm")
        second = add(registry, tmp_path, "train-2", "12", "slurm")
        other = add(registry, tmp_path, "eval-1", "11", "skypilot")
        assert [m.id for m in registry.jobs()] == [other, second, first]
        assert [m.id for m in registry.jobs("slurm")] == [second, first]
        assert [m.id for m in registry.find(first)] == [first]
        assert [m.id for m in registry.find(first[:5])] == [first]
        assert [m.id for m in registry.find("12")] == [second]
        assert {m.id for m in registry.find("11")} == {first, other}
        assert [m.id for m in registry.find(str(tmp_path / "jobs" / "train-1"))] == [first]
        assert [m.id for m in registry.find("train")] == [second, first]  # newest first
        assert registry.find("nothing") == []
        assert registry.find("%") == []  # LIKE wildcards are literal


def test_a_scheduler_id_two_launchers_share_is_ambiguous(tmp_path: Path) -> None:
    with open_registry() as registry:
        add(registry, tmp_path, "train-1", "11", "slurm")
        add(registry, tmp_path, "eval-1", "11", "skypilot")
    shown = cli("status", "11", cwd=tmp_path)
    assert shown.returncode == 1
    assert shown.stderr.startswith("error: '11' names 2 jobs: ")
    assert shown.stderr.rstrip().endswith("; give the id")


def test_reindex_rebuilds_from_the_job_directories(tmp_path: Path) -> None:
    with open_registry() as registry:
        kept = add(registry, tmp_path, "train-1", "11", "slurm")
        gone = add(registry, tmp_path, "train-2", "12", "slurm")
    (tmp_path / "jobs" / "train-2" / MANIFEST).unlink()
    (tmp_path / "jobs" / "train-2").rmdir()
    (tmp_path / "jobs" / "broken").mkdir()
    (tmp_path / "jobs" / "broken" / MANIFEST).write_text("{not json")
    Path(os.environ["AUTOMODEL_LAUNCH_STATE_DIR"], "jobs.sqlite").unlink()
    done = cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    assert done.stderr == (
        f"warning: skipped cannot read {tmp_path}/jobs/broken/{MANIFEST}: it is not a job "
        "manifest (Invalid JSON: key must be a string at line 1 column 2); submit writes this "
        "file: restore it, or move the job directory away if it holds no job\n"
    )
    with open_registry() as registry:
        assert [m.id for m in registry.jobs()] == [kept]
        assert registry.find(gone) == []


def test_reindex_skips_a_fifo_a_device_and_a_huge_manifest_without_hanging(
    tmp_path: Path,
) -> None:
    with open_registry() as registry:
        kept = add(registry, tmp_path, "train-1", "11", "slurm")
    for name in ("fifo", "device", "huge"):
        (tmp_path / "jobs" / name).mkdir()
    os.mkfifo(tmp_path / "jobs" / "fifo" / MANIFEST)
    os.mknod(tmp_path / "jobs" / "device" / MANIFEST, 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    (tmp_path / "jobs" / "huge" / MANIFEST).write_text(" " * 2_000_000)
    done = cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    assert done.stderr.splitlines() == [
        f"warning: skipped cannot read {tmp_path}/jobs/device/{MANIFEST}: it is a device, "
        "not a file",
        f"warning: skipped cannot read {tmp_path}/jobs/fifo/{MANIFEST}: it is a named pipe, "
        "not a file",
        f"warning: skipped cannot read {tmp_path}/jobs/huge/{MANIFEST}: 2000000 bytes is more "
        "than the 1048576 it may hold",
    ]
    status = cli("status", str(tmp_path / "jobs" / "huge"), cwd=tmp_path)
    assert status.returncode == 1
    with open_registry() as registry:
        assert [m.id for m in registry.jobs()] == [kept]


def test_twenty_parallel_writers_all_land(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; "
        "from tests.jobs.test_registry import add; "
        "from automodel_launch.jobs.registry import open_registry\n"
        "with open_registry() as r: add(r, Path(sys.argv[1]), 'job-' + sys.argv[2], "
        "str(int(sys.argv[2]) + 1), 'slurm')"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(n)], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE)
        for n in range(20)
    ]  # fmt: skip
    assert [w.wait(timeout=60) for w in writers] == [0] * 20
    with open_registry() as registry:
        assert sorted(int(m.scheduler_id or 0) for m in registry.jobs()) == list(range(1, 21))


def test_a_locked_registry_loses_no_submission(tmp_path: Path) -> None:
    with open_registry():
        pass
    holder = sqlite3.connect(Path(os.environ["AUTOMODEL_LAUNCH_STATE_DIR"]) / "jobs.sqlite")
    holder.execute("BEGIN IMMEDIATE")  # another process is writing, and stays
    try:
        done = submit_local(tmp_path, "run1", AUTOMODEL_LAUNCH_REGISTRY_TIMEOUT="0.2")
    finally:
        holder.rollback()
        holder.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"run finished; files in {tmp_path}/jobs/run1\n"
    assert done.stderr.splitlines()[-1] == (
        "warning: the job was submitted, but not recorded in the job registry: the job registry "
        f"{os.environ['AUTOMODEL_LAUNCH_STATE_DIR']}/jobs.sqlite is locked by another process "
        f"(waited 0s); try again when it is done. Its manifest is in {tmp_path}/jobs/run1; "
        f"`automodel-launch jobs --reindex {tmp_path}/jobs` records it later"
    )
    assert (tmp_path / "jobs" / "run1" / MANIFEST).is_file()
    assert cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path).returncode == 0
    listed = json.loads(cli("jobs", "--format", "json", cwd=tmp_path).stdout)["jobs"]
    assert [(j["name"], j["state"], j["exit_code"]) for j in listed] == [
        ("llm_finetune", "COMPLETED", 0)
    ]


def test_a_corrupt_registry_is_an_error_and_reindex_sets_it_aside(tmp_path: Path) -> None:
    assert submit_local(tmp_path, "run1").returncode == 0
    database = Path(os.environ["AUTOMODEL_LAUNCH_STATE_DIR"]) / "jobs.sqlite"
    database.write_bytes(b"this is not a database" * 100)
    listed = cli("jobs", cwd=tmp_path)
    assert listed.returncode == 1
    assert listed.stderr == (
        f"error: the job registry {database} is corrupt (file is not a database); "
        "`automodel-launch jobs --reindex DIR` sets it aside and rebuilds it from the job "
        "directories under DIR\n"
    )
    shown = cli("status", "llm_finetune", cwd=tmp_path)
    assert shown.returncode == 1 and "is corrupt" in shown.stderr
    by_dir = cli("status", str(tmp_path / "jobs" / "run1"), cwd=tmp_path)
    assert by_dir.returncode == 0, by_dir.stderr  # the job directory needs no registry
    rebuilt = cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stderr.startswith(f"warning: the registry was corrupt; moved it to {database}")
    assert rebuilt.stdout == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    assert len(json.loads(cli("jobs", "--format", "json", cwd=tmp_path).stdout)["jobs"]) == 1


@pytest.mark.parametrize(
    ("record", "problem"),
    [("{bad", "Invalid JSON: key must be a string at line 1 column 2"),
     ("[1]", "Input should be an object"),
     ('{"id": ["x"]}', "id: Input should be a valid string; 8 more")],
)  # fmt: skip
def test_a_record_that_is_not_a_manifest(tmp_path: Path, record: str, problem: str) -> None:
    """The registry is healthy: the other jobs are listed, the record is a warning naming
    the way out, and only a command about that record fails."""
    assert submit_local(tmp_path, "run1").returncode == 0
    database = Path(os.environ["AUTOMODEL_LAUNCH_STATE_DIR"]) / "jobs.sqlite"
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO jobs (id, name, launcher, scheduler_id, job_dir, submitted_at, manifest)"
            " VALUES ('x', 'n', 'slurm', '1', '/elsewhere', '2026-01-01T00:00:00Z', ?)",
            (record,),
        )
    db.close()
    expected = (
        f"a record of the job registry {database} is not a job manifest ({problem}); "
        "`automodel-launch jobs --reindex DIR` drops such records and rebuilds the ones of "
        "the job directories under DIR\n"
    )
    listed = cli("jobs", "--format", "json", cwd=tmp_path)
    assert (listed.returncode, listed.stderr) == (0, f"warning: {expected}")
    assert [job["name"] for job in json.loads(listed.stdout)["jobs"]] == ["llm_finetune"]
    for args in (["status", "x"], ["logs", "1"], ["cancel", "n"]):
        done = cli(*args, cwd=tmp_path)
        assert (done.returncode, done.stderr) == (1, f"error: {expected}")
    rebuilt = cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    assert (rebuilt.returncode, rebuilt.stderr) == (0, "")
    assert database.exists()  # a healthy registry is never set aside
    assert not list(database.parent.glob("*.corrupt-*"))
    listed = cli("jobs", "--format", "json", cwd=tmp_path)
    assert (listed.returncode, listed.stderr) == (0, "")
    assert [job["name"] for job in json.loads(listed.stdout)["jobs"]] == ["llm_finetune"]


def test_an_unwritable_state_directory(tmp_path: Path) -> None:
    # /proc/1 takes no new file, whoever asks (tests run as root in CI)
    listed = cli("jobs", cwd=tmp_path, AUTOMODEL_LAUNCH_STATE_DIR="/proc/1")
    assert listed.returncode == 1
    assert listed.stderr == (
        "error: cannot write the job registry /proc/1/jobs.sqlite (unable to open database "
        "file); make its directory writable or set AUTOMODEL_LAUNCH_STATE_DIR to a directory "
        "you can write\n"
    )
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    listed = cli("jobs", cwd=tmp_path, AUTOMODEL_LAUNCH_STATE_DIR=str(not_a_dir / "state"))
    assert listed.returncode == 1
    assert listed.stderr.startswith(
        f"error: cannot create the job registry's directory {not_a_dir}/state: Not a directory"
    )
    done = submit_local(tmp_path, "run1", AUTOMODEL_LAUNCH_STATE_DIR="/proc/1")
    assert done.returncode == 0
    assert "warning: the job was submitted, but not recorded in the job registry" in done.stderr


def test_a_deleted_job_directory(tmp_path: Path) -> None:
    assert submit_local(tmp_path, "run1").returncode == 0
    job_dir = tmp_path / "jobs" / "run1"
    shutil.rmtree(job_dir)
    shown = cli("status", "llm_finetune", "--format", "json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["state"] == "UNKNOWN"
    assert data["note"] == (
        f"the job directory {job_dir} no longer exists; `automodel-launch jobs --reindex DIR` "
        "(its parent) drops this record"
    )
    text = cli("status", "llm_finetune", cwd=tmp_path).stdout
    assert f"note       the job directory {job_dir} no longer exists" in text
    assert cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path).returncode == 0
    assert cli("jobs", cwd=tmp_path).stdout == "no jobs recorded\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--state", "BOGUS"], "use one of PENDING"),
     (["--since", "2 days"], "is not a time span"),
     (["--launcher", "k8s"], "'k8s' is no launcher"),
     (["--format", "xml"], "text or json")],
)  # fmt: skip
def test_bad_options_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done = cli("jobs", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr


def test_no_job_matches(tmp_path: Path) -> None:
    for command in ("status", "logs", "cancel"):
        done = cli(command, "nope", cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr == (
            "error: no job or sweep is 'nope' (an id, scheduler id, job directory or name); "
            "`automodel-launch jobs` lists them\n"
        )


TOKEN = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"


def test_a_job_argument_with_a_token_or_control_characters_is_shown_clean(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "jobs" / TOKEN
    broken.mkdir(parents=True)
    (broken / MANIFEST).write_text("{not json")
    for command in ("status", "logs", "cancel"):
        for job, shown in ((TOKEN, "***"), ("a\x1b[31mb\nc", "a\\x1b[31mb\\nc")):
            done = cli(command, job, cwd=tmp_path)
            assert (done.returncode, done.stderr) == (1, (
                f"error: no job or sweep is '{shown}' (an id, scheduler id, job directory or "
                "name); `automodel-launch jobs` lists them\n"
            ))  # fmt: skip
        done = cli(command, str(broken), cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr.startswith(f"error: cannot read {tmp_path}/jobs/***/{MANIFEST}: it is ")
    done = cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.startswith(f"warning: skipped cannot read {tmp_path}/jobs/***/")
    assert TOKEN not in done.stdout + done.stderr


def test_filters_launcher_state_and_since(tmp_path: Path) -> None:
    assert submit_local(tmp_path, "new").returncode == 0
    with open_registry() as registry:
        old = add(registry, tmp_path, "old-1", "11", "slurm")
        (manifest,) = registry.find(old)
        registry.add(manifest.model_copy(update={"submitted_at": "2020-01-01T00:00:00Z"}))

    def names(*args: str) -> list[str]:
        done = cli("jobs", "--format", "json", *args, cwd=tmp_path, PATH="/nonexistent")
        assert done.returncode == 0, done.stderr
        return [job["job_dir"].rsplit("/", 1)[1] for job in json.loads(done.stdout)["jobs"]]

    assert names() == ["new", "old-1"]
    assert names("--since", "2d") == ["new"]
    assert names("--launcher", "local") == ["new"]
    assert names("--launcher", "slurm") == ["old-1"]
    assert names("--state", "completed") == ["new"]
    assert names("--state", "UNKNOWN") == ["old-1"]  # no squeue on PATH: a note says so


def test_the_table_shows_brackets_in_a_path_as_written(tmp_path: Path) -> None:
    with open_registry() as registry:
        add(registry, tmp_path, "run[red]-1", "11", "slurm")
    done = cli("jobs", cwd=tmp_path, PATH="/nonexistent")
    assert done.returncode == 0, done.stderr
    assert f"{tmp_path}/jobs/run[red]-1" in done.stdout
    assert done.stdout.splitlines()[1].split()[1:5] == ["run[red]", "slurm", "11", "UNKNOWN"]
