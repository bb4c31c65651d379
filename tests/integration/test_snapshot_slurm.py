"""On the real local Slurm cluster: a job runs the code as it was when ``submit`` returned,
and so do its requeued run and a ``rerun`` of it.

The tree is a git checkout with an uncommitted change; right after ``submit`` returns it
is changed again, and only then is the job let in (its rank imports the code once a gate
file exists). The job submitted with a snapshot prints the submitted change; one submitted
with ``--no-snapshot`` prints the later edit, which is what every job did before. The tree
changes again before the snapshotted job is requeued and before it is rerun: both runs
still print the submitted change, with the config it was submitted with (``--set`` values
in its environment), and ``diff`` names the one value the rerun's ``--set`` changed.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.integration.slurm import HARNESS, TERMINAL, Cluster
from tests.integration.test_jobs_slurm import Cli, cli  # noqa: F401  (the fixture)
from tests.snapshot.gitrepo import git, repo

pytestmark = pytest.mark.integration
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}


def submit(cli: Cli, name: str, checkout: Path, gate: Path, *args: str) -> str:  # noqa: F811
    # both jobs run at once on one node: each its own rendezvous port; requeue: true lets
    # a finished job be requeued
    extra = f"  repo_root: {checkout}\n  master_port: auto\n  requeue: true\n  signal: USR1@60\n"
    config = cli.config(name, extra=extra)
    entry = f"{HARNESS / 'marker_import.py'} {gate}"
    done = cli.run("submit", str(config), "--entry", entry, "--no-preflight", *args)
    assert done.returncode == 0, done.stderr
    return recorded(done.stdout + done.stderr)


def recorded(output: str) -> str:
    match = re.search(r"^recorded as job (\w+): ", output, re.M)
    assert match, output
    return match.group(1)


def test_a_job_runs_the_submitted_code_although_the_tree_changed(cli: Cli) -> None:  # noqa: F811
    checkout = cli.tmp / "checkout"
    head = repo(checkout, {"marker.py": 'MARKER = "committed"\n'})
    (checkout / "marker.py").write_text('MARKER = "submitted"\n')
    gate = cli.tmp / "gate"
    snapshot = submit(cli, "snap", checkout, gate, "--set", "slurm.env_vars.LABEL=first")
    live = submit(cli, "live", checkout, gate, "--no-snapshot")
    (checkout / "marker.py").write_text('MARKER = "edited-after-submit"\n')
    git(checkout, "commit", "-qam", "edited")
    (cli.tmp / "snap.yaml").write_text("recipe: changed since\n")  # the rerun never reads it
    gate.touch()

    shown = cli.wait_for(snapshot, ENDED)
    job_dir = Path(shown["job_dir"])
    log = Path(shown["log_path"])
    assert shown["state"] == "COMPLETED", log.read_text()
    ran = f"marker=submitted from={job_dir}/code label=first again=-\n"
    assert log.read_text().count(ran) == 1, log.read_text()
    code = shown["code"]
    assert (code["commit"], code["branch"], code["dirty"]) == (head, "main", True)
    assert code["root"] == str(checkout) and code["snapshot"] == f"{job_dir}/code"
    assert code["diff"] == f"{job_dir}/code.diff" and code["untracked"] == []
    assert '+MARKER = "submitted"' in (job_dir / "code.diff").read_text()

    shown = cli.wait_for(live, ENDED)
    output = Path(shown["log_path"]).read_text()
    assert shown["state"] == "COMPLETED", output
    assert f"marker=edited-after-submit from={checkout} label=- again=-\n" in output, output
    assert shown["code"] is None

    # a requeued run of the snapshotted job: the tree moved on again, the run did not
    (checkout / "marker.py").write_text('MARKER = "edited-before-requeue"\n')
    scheduler_id = cli.status(snapshot)["scheduler_id"]
    requeued = cli.cluster.run("scontrol", "requeue", scheduler_id)
    assert requeued.returncode == 0, requeued.stderr
    release_when_requeued(cli.cluster, scheduler_id)
    assert cli.cluster.wait(scheduler_id) == "COMPLETED", log.read_text()
    assert log.read_text().count(ran) == 2, log.read_text()  # --open-mode=append: both runs
    assert "edited" not in log.read_text()

    # a rerun: the same code and config, with its own --set on top
    again = cli.run("rerun", snapshot, "--no-preflight", "--set", "slurm.env_vars.AGAIN=yes")
    assert again.returncode == 0, again.stderr
    assert f"  rerun of       job {snapshot} (snap)\n" in again.stderr
    rerun = recorded(again.stdout)
    shown = cli.wait_for(rerun, ENDED)
    rerun_dir = Path(shown["job_dir"])
    output = Path(shown["log_path"]).read_text()
    assert shown["state"] == "COMPLETED", output
    assert f"marker=submitted from={rerun_dir}/code label=first again=yes\n" in output, output
    assert shown["rerun_of"] == snapshot
    assert (shown["code"]["commit"], shown["code"]["dirty"]) == (head, True)
    compared = cli.run("diff", snapshot, rerun)
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout == "--set slurm.env_vars.AGAIN: (none) -> yes\n"


def release_when_requeued(cluster: Cluster, job_id: str, timeout: float = 300) -> None:
    """Once the job is back in the queue after the requeue (PENDING, Restarts=1), make it
    eligible now instead of after Slurm's hold (about two minutes), in a later second than
    the requeue's, so its new launch credential is stamped after the old one's revocation
    (tests/integration/test_slurm_requeue.py says why)."""
    deadline = time.monotonic() + timeout
    while True:
        fields = cluster.job_fields(job_id)
        state = fields.get("JobState", "")
        assert state not in TERMINAL or state == "COMPLETED", fields
        if (state, fields.get("Restarts")) == ("PENDING", "1"):
            break
        assert time.monotonic() < deadline, f"not requeued after {timeout}s: {fields}"
        time.sleep(0.2)
    seen = time.time()
    time.sleep(int(seen) + 1 - seen)
    eligible = cluster.run("scontrol", "update", f"JobId={job_id}", "StartTime=now")
    assert eligible.returncode == 0, eligible.stderr
