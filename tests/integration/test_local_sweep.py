"""A sweep on this node with ``--detach``, for real (torchrun on CPU, gloo): ``submit``
returns at once, a driver process runs the points at most ``--max-parallel`` at a time,
each trains on its own point's config; ``cancel SWEEP`` stops the driver and the running
point and leaves the rest never started.

Points run ``harness/sweep_trainer.py``; a gate file holds them running while the test
looks. The tests wait for states, never for a time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import SWEEP_RECIPE
from tests.integration.slurm import HARNESS

pytestmark = pytest.mark.integration

ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "UNKNOWN"}


class Cli:
    def __init__(self, torchrun: str, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.env = {**os.environ, "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}",
                    "OMP_NUM_THREADS": "1", "TMPDIR": str(tmp_path)}  # fmt: skip

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "automodel_launch", *args],
            capture_output=True, text=True, timeout=120, cwd=self.tmp, env=self.env,
        )  # fmt: skip

    def submit(self, lrs: str, max_parallel: int, ranks: int) -> tuple[str, float]:
        """The sweep's id, and how long ``submit`` took."""
        config = self.tmp / "r.yaml"
        config.write_text(SWEEP_RECIPE)
        entry = f"{HARNESS / 'sweep_trainer.py'} {{config}} {self.tmp / 'gate'}"
        began = time.monotonic()
        done = self.run(
            "submit", str(config), "--entry", entry, "--nproc-per-node", str(ranks),
            "--sweep", f"optimizer.lr={lrs}", "--max-parallel", str(max_parallel), "--detach",
            "--job-dir", str(self.tmp / "sw"),
        )  # fmt: skip
        took = time.monotonic() - began
        assert done.returncode == 0, done.stderr
        assert re.search(r"^started the sweep's driver \(pid \d+\)", done.stdout, re.M)
        match = re.search(r"^recorded \d+ points as sweep (\w+): ", done.stdout, re.M)
        assert match, done.stdout
        return match.group(1), took

    def status(self, job: str) -> dict[str, Any]:
        done = self.run("status", job, "--format", "json")
        assert done.returncode == 0, done.stderr
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def wait(self, sweep: str, ready: Any, timeout: float = 240) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        shown = self.status(sweep)
        while not ready(shown) and time.monotonic() < deadline:
            time.sleep(0.5)
            shown = self.status(sweep)
        return shown


def states(shown: dict[str, Any]) -> list[str]:
    return [point["state"] for point in shown["points"]]


def test_a_detached_sweep_runs_at_most_k_points_at_once(torchrun: str, tmp_path: Path) -> None:
    cli = Cli(torchrun, tmp_path)
    sweep, took = cli.submit("0.01,0.02,0.03", max_parallel=2, ranks=2)
    assert took < 30  # it returned without waiting for a run (each takes longer)
    held = cli.wait(sweep, lambda s: states(s).count("RUNNING") == 2)
    assert states(held) == ["RUNNING", "RUNNING", "PENDING"], held  # the third waits its turn
    assert held["points"][2]["scheduler_id"] is None
    (tmp_path / "gate").touch()
    shown = cli.wait(sweep, lambda s: set(states(s)) <= ENDED)
    assert states(shown) == ["COMPLETED"] * 3, shown
    values = [{"optimizer.lr": lr} for lr in (0.01, 0.02, 0.03)]
    assert [p["values"] for p in shown["points"]] == values
    # a point's run has ended (its exit_code) before the driver's next look records it:
    # the driver's last line comes once it recorded them all
    log = (tmp_path / "sw" / "driver.log").read_text()
    deadline = time.monotonic() + 60
    while "every point ended" not in log and time.monotonic() < deadline:
        time.sleep(0.2)
        log = (tmp_path / "sw" / "driver.log").read_text()
    assert log.rstrip().endswith("every point ended"), log
    lines = []
    for index in range(3):
        point = tmp_path / "sw" / "points" / str(index)
        assert (point / "exit_code").read_text() == "0\n"
        found = re.findall(
            r"^\[rank0\]:point lr=(\S+) steps=5 loss=\S+ start=(\S+) end=(\S+)$",
            (point / "output.log").read_text(), re.M,
        )  # fmt: skip
        assert len(found) == 1
        lines.append(found[0])
        manifest = json.loads((point / "manifest.json").read_text())
        assert manifest["scheduler_id"] == str(manifest["details"]["pid"])
        assert isinstance(manifest["details"]["ended_at"], float)  # recorded as it ended
    assert [float(lr) for lr, *_ in lines] == [0.01, 0.02, 0.03]  # each its own config
    spans = [(float(start), float(end)) for _, start, end in lines]
    most = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert most <= 2, spans
    listed = json.loads(cli.run("jobs", "--format", "json").stdout)["jobs"]
    assert sorted(j["state"] for j in listed if j["sweep"] == sweep) == ["COMPLETED"] * 3


def test_cancel_stops_the_driver_and_leaves_the_rest_unstarted(
    torchrun: str, tmp_path: Path
) -> None:
    from automodel_launch.jobs.driven import is_driver, read_driver
    from automodel_launch.launchers.local.jobs import group_alive

    cli = Cli(torchrun, tmp_path)
    sweep, _ = cli.submit("0.01,0.02,0.03", max_parallel=1, ranks=1)
    running = cli.wait(sweep, lambda s: states(s)[0] == "RUNNING")
    assert states(running) == ["RUNNING", "PENDING", "PENDING"]
    driver = read_driver(tmp_path / "sw")
    assert driver is not None and is_driver(tmp_path / "sw", driver)
    cancelled = cli.run("cancel", sweep)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.splitlines()[-1] == "state: 3 points: 3 CANCELLED"
    assert not is_driver(tmp_path / "sw", driver)  # the driver is gone: it starts nothing
    assert not group_alive(int(running["points"][0]["scheduler_id"]))  # no rank left
    time.sleep(2)  # a driver still alive would start point 1 within its poll (1 s)
    shown = cli.status(sweep)
    assert states(shown) == ["CANCELLED"] * 3
    assert [p["scheduler_id"] is None for p in shown["points"]] == [False, True, True]
    for index in (1, 2):
        assert not (tmp_path / "sw" / "points" / str(index) / "output.log").exists()
