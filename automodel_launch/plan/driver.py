"""The point feeder: a sweep's points handed to a launcher without job arrays, at most K
in flight, the next started when one ends.

Slurm runs a sweep as one array and caps it itself (``%K``). SkyPilot and this node have
no arrays: :class:`Feeder` hands each point over as a job of its own through the
launcher contract (``submit``; ``statuses`` of the points in flight, one query a poll)
and records each point as it starts and as it ends. Any launcher without arrays is fed
the same way; nothing here knows which one it is.

When the cap lets every point start at once (SkyPilot without ``--max-parallel``),
``submit`` feeds them itself and returns. Otherwise a **driver** process does it
(:func:`start_driver`): ``python -m automodel_launch.plan.driver ROOT``, in a session of
its own, its output in the sweep's ``driver.log``, its pid and start time in
``driver.json`` (for ``status`` and ``cancel``: :mod:`automodel_launch.jobs.driven`). It
is handed the points (their validated documents, files and the submitting environment)
through a pipe, so credentials reach the SDK as for one job and are never written to a
file. SIGTERM (``cancel``) makes it start no more points and exit.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.handover import SubmitError
from automodel_launch.jobs.files import cancelled_marker, write_job_file
from automodel_launch.jobs.record import Recorder
from automodel_launch.layout import DRIVER, DRIVER_LOG, EXIT_CODE

if TYPE_CHECKING:
    from automodel_launch.handover import Handover
    from automodel_launch.jobs.driven import DriverFile
    from automodel_launch.launchers import Launcher

Say = Callable[[str], None]


@dataclass
class Fed:
    """One point to feed: its handover, and the recorder of its manifest."""

    index: int
    handover: Handover
    recorder: Recorder


@dataclass
class Feeder:
    """Starts points while fewer than ``limit`` are in flight; :meth:`reap` sees which ended."""

    launcher: Launcher
    points: Iterable[Fed]
    limit: int
    say: Say = lambda line: None
    clock: Callable[[], float] = time.time
    stopping: bool = False
    """Set (by a signal) to start no more points."""
    waiting: deque[Fed] = field(init=False)
    running: list[Fed] = field(default_factory=list, init=False)
    summaries: list[str] = field(default_factory=list, init=False)
    failed: list[str] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.waiting = deque(self.points)

    @property
    def done(self) -> bool:
        return not self.waiting and not self.running

    def start_ready(self) -> None:
        """Start waiting points while the cap allows."""
        while self.waiting and len(self.running) < self.limit and not self.stopping:
            self._start(self.waiting.popleft())

    def _start(self, point: Fed) -> None:
        job_dir = point.handover.job_dir
        if cancelled_marker(job_dir).value:
            self.say(f"point {point.index}: cancelled before it started")
            return
        try:
            submitted = self.launcher.submit(point.handover)
        except SubmitError as exc:
            self.failed.append(f"point {point.index}: {exc}")
            self.say(f"point {point.index}: could not start: {exc}")
            if not exc.started:  # `status` shows it FAILED: it never ran
                with contextlib.suppress(OSError):
                    write_job_file(job_dir, EXIT_CODE, "1\n")
            return
        point.recorder.record(submitted.job_id, submitted.details)
        self.summaries.append(submitted.summary)
        self.say(f"point {point.index}: {submitted.summary}")
        if point.recorder.warning:
            self.say(f"point {point.index}: warning: {point.recorder.warning}")
        self.running.append(point)

    def reap(self) -> None:
        """Ask the launcher once for the points in flight; record those that ended."""
        if not self.running:
            return
        manifests = [point.recorder.manifest for point in self.running]
        still = []
        for point, status in zip(self.running, self.launcher.statuses(manifests), strict=True):
            if not status.finished:
                still.append(point)
                continue
            manifest = point.recorder.manifest
            point.recorder.record(manifest.scheduler_id, {"ended_at": self.clock()})
            self.say(f"point {point.index}: {status.state}")
        self.running = still

    def run(self, poll: float, sleep: Callable[[float], None] = time.sleep) -> None:
        """Feed every point, waiting ``poll`` seconds between looks, until all ended or
        :attr:`stopping`."""
        self.start_ready()
        while not self.done and not self.stopping:
            sleep(poll)
            self.reap()
            self.start_ready()


@dataclass(frozen=True)
class Order:
    """What the driver is handed through its pipe."""

    launcher: str
    points: tuple[Fed, ...]
    limit: int
    plugged: Launcher | None = None
    """The launcher, when it was plugged in (:func:`automodel_launch.launchers.plug`): the
    driver plugs it in too (its class is imported from its module as the pipe is read)."""


def start_driver(root: Path, order: Order) -> DriverFile:
    """Start the sweep's driver process and write ``driver.json``."""
    from dataclasses import replace

    from automodel_launch.jobs.driven import MODULE, DriverFile
    from automodel_launch.launcher_names import PLUGGED
    from automodel_launch.launchers import LAUNCHERS
    from automodel_launch.launchers.local.jobs import process_start

    if order.launcher in PLUGGED:
        order = replace(order, plugged=LAUNCHERS[order.launcher])

    package_parent = str(Path(__file__).parent.parent.parent)  # where automodel_launch is
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_parent, *([path] if path else [])])}
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_NOFOLLOW
    try:
        log = os.open(root / DRIVER_LOG, flags, 0o644)
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", MODULE, str(root)], stdin=subprocess.PIPE, stdout=log,
                stderr=subprocess.STDOUT, cwd=root, env=env, start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(log)
        assert process.stdin is not None
        with process.stdin:
            process.stdin.write(pickle.dumps(order))
    except OSError as exc:
        raise SubmitError(f"cannot start the sweep's driver in {root}: {exc}") from None
    started = process_start(process.pid)
    if started is None:
        raise SubmitError(f"the sweep's driver ended at once: see {root / DRIVER_LOG}")
    driver = DriverFile(pid=process.pid, process_start=started, max_parallel=order.limit)
    try:
        write_job_file(root, DRIVER, driver.model_dump_json() + "\n")
    except OSError as exc:  # status and cancel could not find it: it must not run
        process.terminate()
        raise SubmitError(
            f"cannot write {root / DRIVER}: {exc}; the driver was stopped (which point it "
            f"started, if any, is in {root / DRIVER_LOG})",
            started=True,
        ) from None
    return driver


POLL_VARIABLE = "AUTOMODEL_LAUNCH_POLL_SECONDS"
"""Overrides how often the driver looks (the launcher's ``poll_seconds``): 0.05 s to an hour."""


def poll_seconds(default: float) -> float:
    try:
        return min(3600.0, max(0.05, float(os.environ.get(POLL_VARIABLE, default))))
    except ValueError:
        return default


def _say(line: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(f"{stamp} {line}", flush=True)


def _reap_children() -> None:
    """Collect the exit of local points' leaders (their ``exit_code`` says how they ended)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def main(argv: list[str]) -> int:
    """The driver: feed the points read from stdin; SIGTERM, SIGINT or SIGHUP: stop."""
    from automodel_launch.launchers import LAUNCHERS, plug

    (root,) = argv
    order: Order = pickle.load(sys.stdin.buffer)  # from the submit that started us
    if order.plugged is not None and order.launcher not in LAUNCHERS:
        plug(order.plugged)
    feeder = Feeder(LAUNCHERS[order.launcher], order.points, order.limit, say=_say)

    def stop(signum: int, _frame: object) -> None:
        feeder.stopping = True

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    _say(f"feeding {len(order.points)} points of {root}, at most {order.limit} at once")

    def wait(seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not feeder.stopping:
            time.sleep(0.05)
            _reap_children()

    feeder.run(poll_seconds(feeder.launcher.poll_seconds), wait)
    if not feeder.stopping:  # every point ended: their leaders exit now, collect them
        with contextlib.suppress(ChildProcessError):
            while True:
                os.waitpid(-1, 0)
    left = len(feeder.waiting)
    _say(f"stopped: {left} points not started" if feeder.stopping else "every point ended")
    return 0


if __name__ == "__main__":  # one copy of this module: what the pipe's points name
    from automodel_launch.plan import driver

    sys.exit(driver.main(sys.argv[1:]))
