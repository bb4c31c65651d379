"""On the real local Slurm cluster: a job runs the code as it was when ``submit`` returned.

The tree is a git checkout with an uncommitted change; right after ``submit`` returns it
is changed again, and only then is the job let in (its rank imports the code once a gate
file exists). The job submitted with a snapshot prints the submitted change; one submitted
with ``--no-snapshot`` prints the later edit, which is what every job did before.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration.slurm import HARNESS
from tests.integration.test_jobs_slurm import Cli, cli  # noqa: F401  (the fixture)
from tests.snapshot.gitrepo import git, repo

pytestmark = pytest.mark.integration


def submit(cli: Cli, name: str, checkout: Path, gate: Path, *args: str) -> str:  # noqa: F811
    # both jobs run at once on one node: each its own rendezvous port
    config = cli.config(name, extra=f"  repo_root: {checkout}\n  master_port: auto\n")
    entry = f"{HARNESS / 'marker_import.py'} {gate}"
    done = cli.run("submit", str(config), "--entry", entry, "--no-preflight", *args)
    assert done.returncode == 0, done.stderr
    match = re.search(r"^recorded as job (\w+): ", done.stdout, re.M)
    assert match, done.stdout + done.stderr
    return match.group(1)


def test_a_job_runs_the_submitted_code_although_the_tree_changed(cli: Cli) -> None:  # noqa: F811
    checkout = cli.tmp / "checkout"
    head = repo(checkout, {"marker.py": 'MARKER = "committed"\n'})
    (checkout / "marker.py").write_text('MARKER = "submitted"\n')
    gate = cli.tmp / "gate"
    snapshot = submit(cli, "snap", checkout, gate)
    live = submit(cli, "live", checkout, gate, "--no-snapshot")
    (checkout / "marker.py").write_text('MARKER = "edited-after-submit"\n')
    git(checkout, "commit", "-qam", "edited")
    gate.touch()

    shown = cli.wait_for(snapshot, {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"})
    job_dir = Path(shown["job_dir"])
    log = Path(shown["log_path"]).read_text()
    assert shown["state"] == "COMPLETED", log
    assert f"marker=submitted from={job_dir}/code\n" in log, log
    code = shown["code"]
    assert (code["commit"], code["branch"], code["dirty"]) == (head, "main", True)
    assert code["root"] == str(checkout) and code["snapshot"] == f"{job_dir}/code"
    assert code["diff"] == f"{job_dir}/code.diff" and code["untracked"] == []
    assert '+MARKER = "submitted"' in (job_dir / "code.diff").read_text()

    shown = cli.wait_for(live, {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"})
    log = Path(shown["log_path"]).read_text()
    assert shown["state"] == "COMPLETED", log
    assert f"marker=edited-after-submit from={checkout}\n" in log, log
    assert shown["code"] is None
