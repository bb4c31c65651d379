"""The tool's command line as a user runs it against the test Slurm cluster: its own
registry, torchrun on PATH, every output kept (a test may look for a leak in them)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.integration.slurm import Cluster
from tests.integration.waiting import status_until

ENDED = frozenset({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"})
Shown = dict[str, Any]


class Tool:
    def __init__(self, cluster: Cluster, torchrun: str, tmp_path: Path, **env: str) -> None:
        self.cluster = cluster
        self.tmp = tmp_path
        self.outputs: list[str] = []
        self.env = {
            "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}:/usr/sbin",
            "AUTOMODEL_LAUNCH_STATE_DIR": str(tmp_path / "state"),
            "TMPDIR": str(tmp_path),
            **env,
        }

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = self.cluster.run(
            sys.executable, "-m", "automodel_launch", *args,
            cwd=self.tmp, timeout=timeout, extra_env=self.env,
        )  # fmt: skip
        self.outputs += [done.stdout, done.stderr]
        return done

    def submitted(self, config: Path, entry: str, *options: str) -> str:
        """``submit CONFIG --entry ENTRY``: the job's or the sweep's id."""
        done = self.run("submit", str(config), "--entry", entry, "--no-preflight", *options)
        assert done.returncode == 0, done.stderr
        match = re.search(r"^recorded (?:as job|\d+ points as sweep) (\w+)", done.stdout, re.M)
        assert match, done.stdout + done.stderr
        return match.group(1)

    def status(self, job: str) -> Shown:
        done = self.run("status", job, "--format", "json")
        assert done.returncode == 0, done.stderr
        shown: Shown = json.loads(done.stdout)
        return shown

    def until(self, job: str, done: Callable[[Shown], bool], timeout: float) -> Shown:
        """``status`` once ``done`` holds (``timeout``: a limit for a broken run only)."""
        return status_until(lambda: self.status(job), done, timeout, 1)

    def wait_for_end(self, job: str, timeout: float = 300) -> Shown:
        return self.until(job, lambda s: s["state"] in ENDED, timeout)
