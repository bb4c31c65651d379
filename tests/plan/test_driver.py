"""The point feeder's scheduling, in this process: at most K in flight, the next started
when one ends, one status query a poll, each point recorded as it starts and as it
ends; a point cancelled before its turn is skipped, one that cannot start is FAILED and
gives its slot to the next; a stop starts nothing more. The launcher here is a stand-in
that answers at once (the real ones are exercised by tests/integration/test_local_sweep.py
and tests/submit/test_skypilot_sweep.py)."""

from __future__ import annotations

import io
import json
import pickle
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.handover import Handover, SubmitError, Submitted
from automodel_launch.jobs.manifest import new_manifest
from automodel_launch.jobs.record import Recorder
from automodel_launch.jobs.registry import open_registry
from automodel_launch.jobs.status import JobStatus
from automodel_launch.plan import driver
from automodel_launch.plan.driver import Fed, Feeder, Order

SWEEP = "5f0c2a7e91d3"


class Stand:
    """A launcher whose points run until :attr:`ended` names them."""

    name = "interactive"
    poll_seconds = 0.0

    def __init__(self) -> None:
        self.started: list[int] = []
        self.asked: list[list[str]] = []
        self.ended: set[str] = set()
        self.refused: dict[int, bool] = {}
        """Point -> the SubmitError's ``started``."""

    def submit(self, handover: Handover) -> Submitted:
        index = int(handover.job_dir.name)
        assert handover.detach and handover.sweep_point
        if index in self.refused:
            raise SubmitError("the cloud said no", started=self.refused[index])
        self.started.append(index)
        return Submitted(f"started point {index}", str(100 + index), {"started_at": 5.0})

    def statuses(self, manifests: list[Any]) -> list[JobStatus]:
        ids = [m.scheduler_id for m in manifests]
        self.asked.append(ids)
        return [JobStatus(m, "COMPLETED" if m.scheduler_id in self.ended else "RUNNING")
                for m in manifests]  # fmt: skip


def fed(tmp_path: Path, count: int) -> list[Fed]:
    config = tmp_path / "r.yaml"
    config.write_text("optimizer:\n  lr: 0.1\n")
    points = []
    for index in range(count):
        job_dir = tmp_path / "sw" / "points" / str(index)
        job_dir.mkdir(parents=True)
        manifest = new_manifest(
            name="lr", launcher="interactive", job_dir=job_dir, config=config, argv=["x"],
            artifacts=["run.sh"], environ={}, sweep=SWEEP, point=index,
            values={"optimizer.lr": index / 10},
        )  # fmt: skip
        (job_dir / "manifest.json").write_text(manifest.to_json())  # as submit writes it
        handover = Handover(None, job_dir, {}, {}, detach=True, sweep_point=True)  # type: ignore[arg-type]
        points.append(Fed(index, handover, Recorder(manifest)))
    return points


def feeder(tmp_path: Path, count: int, limit: int) -> tuple[Feeder, Stand, list[str]]:
    stand, said = Stand(), []
    made = Feeder(stand, fed(tmp_path, count), limit, say=said.append, clock=lambda: 42.5)  # type: ignore[arg-type]
    return made, stand, said


def on_disk(tmp_path: Path, index: int) -> dict[str, Any]:
    path = tmp_path / "sw" / "points" / str(index) / "manifest.json"
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def test_at_most_k_start_and_the_next_when_one_ends(tmp_path: Path) -> None:
    made, stand, said = feeder(tmp_path, 4, 2)
    made.start_ready()
    assert stand.started == [0, 1]
    assert [p.index for p in made.waiting] == [2, 3]
    made.reap()
    made.start_ready()  # nothing ended: nothing more starts
    assert stand.started == [0, 1] and stand.asked == [["100", "101"]]
    stand.ended.add("101")
    made.reap()
    assert [p.index for p in made.running] == [0]
    made.start_ready()
    assert stand.started == [0, 1, 2]
    assert [p.index for p in made.running] == [0, 2]
    assert said[:4] == [
        "point 0: started point 0", "point 1: started point 1", "point 1: COMPLETED",
        "point 2: started point 2",
    ]  # fmt: skip
    assert made.summaries == ["started point 0", "started point 1", "started point 2"]
    assert not made.done


def test_each_point_is_recorded_as_it_starts_and_as_it_ends(tmp_path: Path) -> None:
    made, stand, _ = feeder(tmp_path, 2, 1)
    made.start_ready()
    started = on_disk(tmp_path, 0)
    assert (started["scheduler_id"], started["details"]) == ("100", {"started_at": 5.0})
    assert on_disk(tmp_path, 1)["scheduler_id"] is None
    stand.ended.add("100")
    made.reap()
    assert on_disk(tmp_path, 0)["details"] == {"started_at": 5.0, "ended_at": 42.5}
    with open_registry() as registry:
        (row,) = registry.find(started["id"])
    assert (row.scheduler_id, row.details["ended_at"]) == ("100", 42.5)


def test_run_feeds_every_point_one_query_a_poll(tmp_path: Path) -> None:
    made, stand, _ = feeder(tmp_path, 5, 2)
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # each poll, the oldest point in flight ends
        waits.append(seconds)
        stand.ended.add(made.running[0].recorder.manifest.scheduler_id or "")

    made.run(0.25, sleep)
    assert made.done and stand.started == [0, 1, 2, 3, 4]
    assert len(stand.asked) == len(waits) == 5 and set(waits) == {0.25}
    assert max(len(ids) for ids in stand.asked) == 2
    assert stand.asked[0] == ["100", "101"] and stand.asked[1] == ["101", "102"]
    assert all("ended_at" in on_disk(tmp_path, i)["details"] for i in range(5))


def test_a_point_cancelled_before_its_turn_never_starts(tmp_path: Path) -> None:
    made, stand, said = feeder(tmp_path, 3, 1)
    (tmp_path / "sw" / "points" / "1" / "cancelled").write_text("2026-12-01T00:00:00Z\n")
    made.start_ready()
    stand.ended.add("100")
    made.reap()
    made.start_ready()
    assert stand.started == [0, 2]
    assert "point 1: cancelled before it started" in said
    assert on_disk(tmp_path, 1)["scheduler_id"] is None


@pytest.mark.parametrize("started", [False, True])
def test_a_point_that_cannot_start_gives_its_turn_to_the_next(
    tmp_path: Path, started: bool
) -> None:
    made, stand, said = feeder(tmp_path, 3, 1)
    stand.refused[0] = started
    made.start_ready()
    assert stand.started == [1]
    assert made.failed == ["point 0: the cloud said no"]
    assert said[0] == "point 0: could not start: the cloud said no"
    exit_code = tmp_path / "sw" / "points" / "0" / "exit_code"
    # it never ran: status says FAILED; it ran (the launcher lost it): nothing is made up
    assert (exit_code.read_text() if exit_code.exists() else None) == (None if started else "1\n")


def test_a_point_whose_directory_is_gone_is_failed_without_a_trace(tmp_path: Path) -> None:
    import shutil

    made, stand, _ = feeder(tmp_path, 2, 1)
    stand.refused[0] = False
    shutil.rmtree(tmp_path / "sw" / "points" / "0")  # nowhere to write its exit_code
    made.start_ready()
    assert made.failed == ["point 0: the cloud said no"] and stand.started == [1]


def test_a_registry_that_cannot_record_is_a_warning_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "state").write_text("a file where the registry's folder should be")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    made, stand, said = feeder(tmp_path, 1, 1)
    made.start_ready()
    assert stand.started == [0]
    assert said[1].startswith(
        "point 0: warning: the job was submitted, but not recorded in the job registry: "
    )
    assert on_disk(tmp_path, 0)["scheduler_id"] == "100"  # its manifest has it all


def test_a_launcher_answering_for_other_jobs_is_a_bug_not_a_guess(tmp_path: Path) -> None:
    made, stand, _ = feeder(tmp_path, 2, 2)
    made.start_ready()
    stand.statuses = lambda manifests: []  # type: ignore[method-assign]
    with pytest.raises(ValueError, match="zip"):
        made.reap()


def test_a_stop_starts_nothing_more(tmp_path: Path) -> None:
    made, stand, _ = feeder(tmp_path, 4, 2)

    def sleep(seconds: float) -> None:
        made.stopping = True  # a signal while it waits

    made.run(0.1, sleep)
    assert stand.started == [0, 1]
    assert [p.index for p in made.waiting] == [2, 3]
    made.stopping = True
    made.start_ready()
    assert stand.started == [0, 1]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 20.0), ("0.5", 0.5), ("0", 0.05), ("-3", 0.05), ("1e9", 3600.0), ("soon", 20.0)],
)
def test_how_often_the_driver_looks(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: float
) -> None:
    if value is not None:
        monkeypatch.setenv(driver.POLL_VARIABLE, value)
    assert driver.poll_seconds(20.0) == expected


def local_points(tmp_path: Path, scripts: list[str]) -> list[Fed]:
    """Points of the real local launcher whose ``run.sh`` is ``scripts[i]``."""
    made = fed(tmp_path, len(scripts))
    for point, script in zip(made, scripts, strict=True):
        (point.handover.job_dir / "run.sh").write_text(script + "\n")
    return made


STAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z ")


def said_lines(text: str) -> list[str]:
    """The driver's lines without their time stamps (each line has one)."""
    lines = text.splitlines()
    assert all(STAMP.match(line) for line in lines), lines
    return [STAMP.sub("", line) for line in lines]


class Flushed(io.StringIO):
    """stdout that counts its flushes: the driver's log is read while it runs."""

    flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


@pytest.fixture
def own_signals() -> Any:
    """The driver's main installs handlers: give this process its own back."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def run_main(
    tmp_path: Path, order: Order, monkeypatch: pytest.MonkeyPatch, poll: str | None = "0.05"
) -> int:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(pickle.dumps(order))))
    if poll is not None:
        monkeypatch.setenv(driver.POLL_VARIABLE, poll)
    return driver.main([str(tmp_path / "sw")])


def collect(pids: list[int]) -> None:
    """Wait for the processes this test started (none is left to anyone else)."""
    import contextlib
    import os

    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def zombies(pids: list[int]) -> list[int]:
    """Those of ``pids`` that ended and were not collected."""
    found = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue  # collected
        if stat[stat.rindex(")") + 2 :].split()[0] == "Z":
            found.append(pid)
    return found


def test_the_driver_feeds_every_point_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_signals: None
) -> None:
    import time

    from automodel_launch.launchers.local import jobs as local

    points = local_points(tmp_path, ["sleep 0.5", "sleep 0.5; exit 3", "exit 0"])
    out = Flushed()
    monkeypatch.setattr(sys, "stdout", out)
    asked = []
    real = local.statuses
    monkeypatch.setattr(local, "statuses", lambda ms: asked.append(ms) or real(ms))
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # the stamps are UTC whatever the zone
    time.tzset()
    try:
        began = time.time()
        assert run_main(tmp_path, Order("interactive", tuple(points), 2), monkeypatch, "0.2") == 0
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert len(asked) <= (time.time() - began) / 0.2 + 2  # one look a poll, not a busy loop
    leaders = [int(on_disk(tmp_path, i)["scheduler_id"]) for i in range(3)]
    assert zombies(leaders) == []  # every point's leader was collected
    collect(leaders)
    first = time.mktime(time.strptime(out.getvalue()[:20], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(first - began) < 60
    lines = said_lines(out.getvalue())
    assert out.flushes >= len(lines)  # each line reaches driver.log as it is said
    assert lines[0] == f"feeding 3 points of {tmp_path / 'sw'}, at most 2 at once"
    assert lines[-1] == "every point ended"
    assert sorted(line for line in lines if line.endswith(("COMPLETED", "FAILED"))) == [
        "point 0: COMPLETED", "point 1: FAILED", "point 2: COMPLETED",
    ]  # fmt: skip
    codes = [(tmp_path / f"sw/points/{i}/exit_code").read_text() for i in range(3)]
    assert codes == ["0\n", "3\n", "0\n"]
    for index in range(3):
        details = on_disk(tmp_path, index)["details"]
        assert details["detached"] is True and "ended_at" in details


def test_a_stopped_driver_starts_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, own_signals: None
) -> None:
    import os
    import threading

    gate = tmp_path / "gate"
    points = local_points(tmp_path, [f"until [ -e {gate} ]; do sleep 0.05; done", "exit 0"])
    stop = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGTERM))
    stop.start()
    try:
        assert run_main(tmp_path, Order("interactive", tuple(points), 1), monkeypatch, None) == 0
    finally:
        gate.touch()
        stop.cancel()
        collect([int(on_disk(tmp_path, 0)["scheduler_id"] or 0)])
    lines = said_lines(capsys.readouterr().out)
    assert lines[-1] == "stopped: 1 points not started"
    assert on_disk(tmp_path, 1)["scheduler_id"] is None


def test_start_driver_runs_it_apart_and_writes_driver_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    import subprocess
    import time

    from automodel_launch.jobs.driven import read_driver
    from automodel_launch.launchers.local.jobs import process_start

    popen = subprocess.Popen

    children: list[int] = []

    def as_written(*args: Any, **kwargs: Any) -> Any:  # the driver runs unmutated code
        kwargs["env"] = {k: v for k, v in kwargs["env"].items() if k != "MUTANT_UNDER_TEST"}
        made = popen(*args, **kwargs)
        children.append(made.pid)
        return made

    import os

    import automodel_launch
    from automodel_launch.jobs.driven import MODULE

    monkeypatch.setattr(subprocess, "Popen", as_written)
    monkeypatch.setenv(driver.POLL_VARIABLE, "0.05")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    root = tmp_path / "sw"
    gate = tmp_path / "gate"
    request.addfinalizer(gate.touch)  # a failed check leaves no driver waiting for it
    points = local_points(tmp_path, [f"until [ -e {gate} ]; do sleep 0.05; done", "exit 0"])
    mask = os.umask(0o022)
    try:
        started = driver.start_driver(root, Order("interactive", tuple(points), 1))
    finally:
        os.umask(mask)
    assert read_driver(root) == started and started.max_parallel == 1
    assert started.process_start == process_start(started.pid)
    proc = Path(f"/proc/{started.pid}")
    log = root / "driver.log"
    deadline = time.monotonic() + 60  # while the child is in execve its cmdline reads empty
    while not (proc / "cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (proc / "cmdline").read_bytes().split(b"\0")[:-1] == [
        os.fsencode(sys.executable), b"-m", MODULE.encode(), os.fsencode(root),
    ]  # fmt: skip
    environ = dict(
        line.split(b"=", 1) for line in (proc / "environ").read_bytes().split(b"\0") if line
    )
    package = Path(automodel_launch.__file__).parent.parent
    assert environ[b"PYTHONPATH"] == os.fsencode(f"{package}:/elsewhere")  # it finds us first
    assert os.readlink(proc / "cwd") == str(root)
    assert os.getsid(started.pid) == started.pid  # a session of its own
    assert os.readlink(proc / "fd" / "1") == os.readlink(proc / "fd" / "2") == str(log)
    assert log.stat().st_mode & 0o777 == 0o644
    gate.touch()
    deadline = time.monotonic() + 60
    while "every point ended" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert said_lines(log.read_text())[-1] == "every point ended"
    assert [(root / f"points/{i}/exit_code").read_text() for i in (0, 1)] == ["0\n", "0\n"]
    collect(children)
    with pytest.raises(SubmitError) as again:  # its log is new: never one left there
        driver.start_driver(root, Order("interactive", tuple(points), 1))
    assert str(again.value).startswith(f"cannot start the sweep's driver in {root}: ")
    assert "File exists" in str(again.value)


def test_a_driver_that_cannot_be_found_is_not_left_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from automodel_launch.launchers.local import jobs as local

    popen, children = subprocess.Popen, []

    def as_written(*args: Any, **kwargs: Any) -> Any:
        kwargs["env"] = {k: v for k, v in kwargs["env"].items() if k != "MUTANT_UNDER_TEST"}
        made = popen(*args, **kwargs)
        children.append(made.pid)
        return made

    monkeypatch.setattr(subprocess, "Popen", as_written)
    root = tmp_path / "sw"
    local_points(tmp_path, ["exit 0"])
    points: list[Fed] = []  # a driver with nothing to start: it starts no process itself
    (root / "driver.json").mkdir()  # where driver.json goes, something it cannot replace
    (root / "driver.json" / "x").touch()
    with pytest.raises(SubmitError) as refused:
        driver.start_driver(root, Order("interactive", tuple(points), 1))
    assert str(refused.value).startswith(f"cannot write {root / 'driver.json'}: ")
    assert str(refused.value).endswith(
        f"; the driver was stopped (which point it started, if any, is in {root / 'driver.log'})"
    )
    assert refused.value.started is True  # its directory is kept
    (root / "driver.log").unlink()
    monkeypatch.setattr(local, "process_start", lambda pid: None)  # it ended at once
    with pytest.raises(SubmitError) as gone:
        driver.start_driver(root, Order("interactive", tuple(points), 1))
    assert str(gone.value) == f"the sweep's driver ended at once: see {root / 'driver.log'}"
    collect(children)
    assert len(children) == 2
