"""Job directories holding what the tool never wrote: every file it reads back
(``manifest.json``, ``exit_code``, ``cancelled``, ``output.log``, the Slurm ``.out`` log)
made a FIFO, a device, a link out of the directory or within it, garbage, bytes that are
not UTF-8, or a huge file; and hostile manifests through ``jobs --reindex``.

Each case runs the real CLI: the documented exit code, one clear line on stderr, no
traceback, no byte of a token, no hang (the runner's timeout), and nothing lost or
overwritten (a link's target is unchanged, the registry still lists the healthy job).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from automodel_launch.jobs.manifest import MANIFEST, Manifest, new_manifest
from automodel_launch.jobs.registry import open_registry
from automodel_launch.launchers.local.jobs import process_start
from tests.conftest import run_cli
from tests.hostile.tokens import make
from tests.support.fake_slurm import FakeSlurm

TOKEN = make("hugging-face", 7)
SECRET = f"HF_TOKEN={TOKEN.value}\n"
HUGE = 3 * 1024 * 1024


def job(
    tmp_path: Path, name: str, launcher: str = "interactive", pid: int = 999999, **details: object
) -> Manifest:
    """A job's directory (its manifest written, recorded in the registry); a local run's
    process ``pid`` is gone unless the test started it."""
    job_dir = tmp_path / "jobs" / name
    job_dir.mkdir(parents=True)
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    manifest = new_manifest(
        name=name, launcher=launcher, job_dir=job_dir, config=config,
        argv=["automodel-launch", "submit", "c.yaml"], artifacts=["run.sh"], environ={},
    )  # fmt: skip
    scheduler_id = "4242" if launcher == "slurm" else str(pid)
    if launcher == "interactive":
        details = {"detached": True, "pid": pid, "process_start": "1", **details}
    manifest = manifest.with_scheduler(scheduler_id, **details)
    (job_dir / MANIFEST).write_text(manifest.to_json())
    with open_registry() as registry:
        registry.add(manifest)
    return manifest


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _device(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _char_device(path: Path) -> None:
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero itself
    except PermissionError:
        pytest.skip("making a device needs root")


def _outside(path: Path) -> None:
    victim = path.parent.parent.parent / f"victim-{path.name}"
    victim.write_text(SECRET)
    path.symlink_to(victim)


def _inside(path: Path) -> None:
    (path.parent / "run.sh").write_text(SECRET)
    path.symlink_to("run.sh")


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x1b[31m--5 " + SECRET.encode() + b"\x00\xff")


def _not_utf8(path: Path) -> None:
    path.write_bytes(b"\xff\xfe\xc3(\xa0\xa1 0\n")


def _huge(path: Path) -> None:
    with path.open("wb") as out:
        out.truncate(HUGE)


HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    # kind: (make it, why the reader refuses it)
    "fifo": (_fifo, "it is a named pipe, not a file"),
    "dev-zero-link": (_device, "it is a symbolic link, not a file"),
    "device": (_char_device, "it is a device, not a file"),
    "link-out": (_outside, "it is a symbolic link, not a file"),
    "link-in": (_inside, "it is a symbolic link, not a file"),
}
CONTENT: dict[str, Callable[[Path], None]] = {
    "garbage": _garbage,
    "not-utf8": _not_utf8,
    "huge": _huge,
}


@pytest.fixture
def victims(tmp_path: Path) -> Iterator[None]:
    """After the test: every file a link pointed at still holds what it held."""
    yield
    for victim in tmp_path.glob("victim-*"):
        assert victim.read_text() == SECRET


def clean(done: subprocess.CompletedProcess[str], code: int, lines: int = 1) -> None:
    """The documented exit code, at most ``lines`` lines on stderr, no traceback, no token."""
    assert done.returncode == code, done.stderr
    assert len(done.stderr.splitlines()) <= lines, done.stderr
    assert "Traceback" not in done.stderr
    assert TOKEN.middle not in done.stdout + done.stderr


def listed(tmp_path: Path) -> list[str]:
    done = run_cli("jobs", "--format", "json", cwd=tmp_path)
    clean(done, 0, lines=0)
    return sorted(j["name"] for j in json.loads(done.stdout)["jobs"])


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_manifest_that_is_no_file(tmp_path: Path, kind: str, victims: None) -> None:
    job(tmp_path, "healthy")
    bad = tmp_path / "jobs" / "bad"
    bad.mkdir()
    make_it, why = HOSTILE[kind]
    make_it(bad / MANIFEST)
    shown = run_cli("status", str(bad), cwd=tmp_path)
    clean(shown, 1)
    assert shown.stderr == f"error: cannot read {bad / MANIFEST}: {why}\n"
    rebuilt = run_cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    clean(rebuilt, 0)
    assert rebuilt.stderr == f"warning: skipped cannot read {bad / MANIFEST}: {why}\n"
    assert rebuilt.stdout == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    assert listed(tmp_path) == ["healthy"]


@pytest.mark.parametrize("kind", sorted(CONTENT))
def test_a_manifest_that_holds_no_manifest(tmp_path: Path, kind: str) -> None:
    job(tmp_path, "healthy")
    bad = tmp_path / "jobs" / "bad"
    bad.mkdir()
    CONTENT[kind](bad / MANIFEST)
    shown = run_cli("status", str(bad), cwd=tmp_path)
    clean(shown, 1)
    assert shown.stderr.startswith(f"error: cannot read {bad / MANIFEST}: ")
    assert shown.stderr.rstrip().endswith(
        "restore it, or move the job directory away if it holds no job"
        if kind != "huge"
        else "3145728 bytes is more than the 1048576 it may hold"
    )
    rebuilt = run_cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    clean(rebuilt, 0)
    assert rebuilt.stderr.startswith(f"warning: skipped cannot read {bad / MANIFEST}: ")
    assert listed(tmp_path) == ["healthy"]


def manifest_json(tmp_path: Path, **changes: object) -> str:
    """A real manifest's JSON with ``changes`` (None removes the field)."""
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    base = new_manifest(
        name="hostile", launcher="slurm", job_dir=tmp_path, config=config,
        argv=["automodel-launch"], artifacts=[], environ={},
    ).with_scheduler("77")  # fmt: skip
    data = json.loads(base.to_json())
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return json.dumps(data)


HOSTILE_MANIFESTS: dict[str, tuple[dict[str, object], str]] = {
    "id-a-list": ({"id": ["x"]}, "id: Input should be a valid string"),
    "id-a-path": ({"id": "../../x"}, "id: String should match pattern"),
    "scheduler-id-an-option": ({"scheduler_id": "--me"}, "scheduler_id is not a slurm job id"),
    "scheduler-id-with-a-token": (
        {"scheduler_id": TOKEN.value},
        "scheduler_id: String should have at most 32 characters",
    ),
    "unknown-launcher": ({"launcher": "k8s"}, "launcher: Input should be 'slurm', 'skypilot'"),
    "name-a-path": ({"name": "../../etc/passwd"}, "name: String should match pattern"),
    "relative-job-dir": ({"job_dir": "jobs"}, "job_dir: String should match pattern"),
    "no-time": ({"submitted_at": "yesterday"}, "submitted_at: String should match pattern"),
    "a-month-13": (
        {"submitted_at": "2026-13-01T00:00:00Z"},
        "submitted_at: is not a real date and time",
    ),
    "command-line-too-long": (
        {"command_line": ["x"] * 65},
        "command_line: Tuple should have at most 64 items",
    ),
    "detail-a-dict": ({"details": {"pid": {"a": 1}}}, "details.pid: should be a boolean"),
    "not-an-object": ({}, ""),
    "no-id": ({"id": None}, "id: Field required"),
    "a-token-field": ({"id": TOKEN.value}, "id: String should match pattern"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_MANIFESTS))
def test_hostile_manifests_through_reindex(tmp_path: Path, case: str) -> None:
    """Skipped with a warning naming the file; the healthy registry stays, with its jobs."""
    job(tmp_path, "healthy")
    changes, problem = HOSTILE_MANIFESTS[case]
    bad = tmp_path / "jobs" / "bad"
    bad.mkdir()
    text = manifest_json(tmp_path, **changes) if changes else "[" * 10_000
    (bad / MANIFEST).write_text(text)
    rebuilt = run_cli("jobs", "--reindex", str(tmp_path / "jobs"), cwd=tmp_path)
    clean(rebuilt, 0)
    assert rebuilt.stderr.startswith(
        f"warning: skipped cannot read {bad / MANIFEST}: it is not a job manifest ({problem}"
    )
    assert rebuilt.stdout == f"recorded 1 job(s) from {tmp_path / 'jobs'}\n"
    state = Path(os.environ["AUTOMODEL_LAUNCH_STATE_DIR"])
    assert [p.name for p in state.iterdir() if "corrupt" in p.name] == []
    assert listed(tmp_path) == ["healthy"]
    shown = run_cli("status", str(bad), cwd=tmp_path)
    clean(shown, 1)
    assert shown.stderr.startswith(f"error: cannot read {bad / MANIFEST}: it is not a job ")


@pytest.mark.parametrize(
    ("content", "note"),
    [(b"--5\n", "exit_code holds no exit status"),
     ("\u00b2\n".encode(), "exit_code holds no exit status"),
     ("\u0663\n".encode(), "exit_code holds no exit status"),  # an Arabic-Indic 3
     (b"\xff\xfe\n", "exit_code holds no exit status"),
     (b"99999999999999999999999\n", "exit_code holds no exit status"),
     (b"", "exit_code holds no exit status"),
     (b"\x1b[31m1\n", "exit_code holds no exit status"),
     (b"0 and then " + SECRET.encode(), "exit_code holds no exit status")],
)  # fmt: skip
def test_an_exit_code_that_is_no_exit_status(tmp_path: Path, content: bytes, note: str) -> None:
    manifest = job(tmp_path, "run")
    (Path(manifest.job_dir) / "exit_code").write_bytes(content)
    for args in (["status", manifest.id, "--format", "json"], ["jobs", "--format", "json"]):
        done = run_cli(*args, cwd=tmp_path)
        clean(done, 0, lines=0)
        data = json.loads(done.stdout)
        shown = data if "jobs" not in data else data["jobs"][0]
        assert (shown["state"], shown["exit_code"]) == ("UNKNOWN", None)
        assert shown["note"].endswith(note)


@pytest.mark.parametrize("kind", sorted(HOSTILE) + sorted(CONTENT))
def test_an_exit_code_that_is_no_file(tmp_path: Path, kind: str, victims: None) -> None:
    manifest = job(tmp_path, "run")
    healthy = job(tmp_path, "done")
    (Path(healthy.job_dir) / "exit_code").write_text("0\n")
    path = Path(manifest.job_dir) / "exit_code"
    if kind in HOSTILE:
        HOSTILE[kind][0](path)
        note = f"exit_code is not read: {HOSTILE[kind][1]}"
    else:
        CONTENT[kind](path)
        note = (
            "exit_code holds no exit status"
            if kind != "huge"
            else f"exit_code is not read: {HUGE} bytes is more than the 4096 it may hold"
        )
    done = run_cli("status", manifest.id, cwd=tmp_path)
    clean(done, 0, lines=0)
    assert "state      UNKNOWN" in done.stdout
    assert f"note       the run is gone and left no exit status (killed, or this is another " \
        f"machine); {note}" in done.stdout  # fmt: skip
    everything = run_cli("jobs", "--format", "json", cwd=tmp_path)
    clean(everything, 0, lines=0)
    states = {j["name"]: j["state"] for j in json.loads(everything.stdout)["jobs"]}
    assert states == {"run": "UNKNOWN", "done": "COMPLETED"}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_cancelled_marker_that_is_no_file(tmp_path: Path, kind: str, victims: None) -> None:
    manifest = job(tmp_path, "run")
    (Path(manifest.job_dir) / "exit_code").write_text("3\n")
    HOSTILE[kind][0](Path(manifest.job_dir) / "cancelled")
    done = run_cli("status", manifest.id, "--format", "json", cwd=tmp_path)
    clean(done, 0, lines=0)
    shown = json.loads(done.stdout)
    assert (shown["state"], shown["exit_code"]) == ("FAILED", 3)  # the marker is not trusted
    assert shown["note"] == f"cancelled is not read: {HOSTILE[kind][1]}"


@pytest.mark.parametrize("kind", ["link-out", "dev-zero-link", "link-in"])
def test_cancel_never_writes_through_a_link(tmp_path: Path, kind: str, victims: None) -> None:
    """A running local run: ``cancel`` replaces the link with its marker; the file the link
    pointed at keeps what it held."""
    run = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        manifest = job(tmp_path, "run", pid=run.pid, process_start=process_start(run.pid))
        marker = Path(manifest.job_dir) / "cancelled"
        HOSTILE[kind][0](marker)
        done = run_cli("cancel", manifest.job_dir, cwd=tmp_path)
        clean(done, 0, lines=0)
        assert done.stdout.splitlines()[-1] == "state: CANCELLED"
        assert run.wait(timeout=10) == -15
        assert not marker.is_symlink() and marker.read_text().endswith("Z\n")
        if kind == "link-in":
            assert (Path(manifest.job_dir) / "run.sh").read_text() == SECRET
    finally:
        run.kill()
        run.wait()


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_log_that_is_no_file(tmp_path: Path, kind: str, victims: None) -> None:
    manifest = job(tmp_path, "run")
    (Path(manifest.job_dir) / "exit_code").write_text("0\n")
    log = Path(manifest.job_dir) / "output.log"
    HOSTILE[kind][0](log)
    for args in (["logs", manifest.id], ["logs", "--follow", manifest.id]):
        done = run_cli(*args, cwd=tmp_path)
        clean(done, 1)
        assert done.stderr == f"error: cannot read the log {log}: {HOSTILE[kind][1]}\n"
        assert done.stdout == ""


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_slurm_log_that_is_no_file(
    tmp_path: Path, kind: str, victims: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-slurm"))  # the job directory answers
    manifest = job(tmp_path, "train", launcher="slurm")
    (Path(manifest.job_dir) / "exit_code").write_text("0\n")
    log = Path(manifest.job_dir) / "train_4242.out"
    HOSTILE[kind][0](log)
    done = run_cli("logs", manifest.id, cwd=tmp_path)
    clean(done, 1)
    assert done.stderr == f"error: cannot read the log {log}: {HOSTILE[kind][1]}\n"


def test_logs_of_garbage_non_utf8_and_huge_files(tmp_path: Path) -> None:
    manifest = job(tmp_path, "run")
    (Path(manifest.job_dir) / "exit_code").write_text("0\n")
    log = Path(manifest.job_dir) / "output.log"
    _not_utf8(log)
    done = run_cli("logs", manifest.id, cwd=tmp_path)
    clean(done, 0, lines=0)
    assert done.stdout == "\ufffd\ufffd\ufffd(\ufffd\ufffd 0\n"
    _garbage(log)
    done = run_cli("logs", manifest.id, cwd=tmp_path)
    clean(done, 0, lines=0)
    assert done.stdout.startswith("\\x1b[31m--5 HF_TOKEN=")
    with log.open("wb") as out:  # 3 MiB of one line, then a short one
        out.write(b"x" * HUGE + b"\n[rank0]:end\n")
    done = run_cli("logs", "--rank", "0", "--follow", manifest.id, cwd=tmp_path)
    clean(done, 0, lines=0)
    assert done.stdout == "end\n"
    done = run_cli("logs", manifest.id, cwd=tmp_path)
    clean(done, 0, lines=0)
    assert done.stdout.count("x") == HUGE and done.stdout.endswith("[rank0]:end\n")


def test_a_job_dir_that_is_gone_or_a_file(tmp_path: Path) -> None:
    manifest = job(tmp_path, "run")
    job_dir = Path(manifest.job_dir)
    for file in job_dir.iterdir():
        file.unlink()
    job_dir.rmdir()
    job_dir.write_text(SECRET)  # a file where the directory was
    done = run_cli("status", manifest.id, "--format", "json", cwd=tmp_path)
    clean(done, 0, lines=0)
    assert json.loads(done.stdout)["note"].startswith(f"the job directory {job_dir} no longer")
    done = run_cli("logs", manifest.id, cwd=tmp_path)
    clean(done, 0, lines=0)
    assert done.stdout == ""


def test_cancel_never_passes_an_option_as_a_job_id(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    """``scheduler_id: --me`` would make ``scancel --me`` cancel every job of the user."""
    for tool in ("scancel", "squeue", "sacct"):
        fake_slurm.answer(tool)
    fake_slurm.in_front()
    bad = tmp_path / "jobs" / "bad"
    bad.mkdir(parents=True)
    (bad / MANIFEST).write_text(manifest_json(tmp_path, scheduler_id="--me"))
    done = run_cli("cancel", str(bad), cwd=tmp_path)
    clean(done, 1)
    assert done.stderr == (
        f"error: cannot read {bad / MANIFEST}: it is not a job manifest (scheduler_id is not a "
        "slurm job id); submit writes this file: restore it, or move the job directory away if "
        "it holds no job\n"
    )
    assert fake_slurm.calls == []
