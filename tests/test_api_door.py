"""One door: ``api.submit``, ``api.rerun``, ``api.render`` and ``api.validate`` run the
sequences the command line runs (:mod:`automodel_launch.commands`), so they ask the cluster
first, go to a named cluster over SSH, and return what the command line prints.

The cluster is tests/docs/tour.py's stand-in (the test cluster's captured answers, first
on PATH), its ``sbatch`` recording each call; over SSH it is the same stand-in behind a
real OpenSSH server on 127.0.0.1 (tests/integration/sshd.py).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.commands.preflight import PreflightError
from automodel_launch.errors import LaunchError
from tests.docs.tour import fake_cluster
from tests.integration.conftest import unavailable
from tests.integration.sshd import Sshd, start_sshd
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.support.fake_slurm import FakeSlurm

TYPO = "the cluster has no partition 'debgu': sbatch refuses the job"
REFUSED = r"cannot be submitted: slurm\.partition: the cluster has no partition 'debgu'"
NO_SLURM = (
    "no Slurm on this host: scontrol is not on PATH; run it on a Slurm login node "
    "(SLURM_CONF set if slurm.conf is elsewhere)"
)


def _cli(*args: str) -> int:
    return errors.run(lambda: run_app(list(args)))


def _stand_in(root: Path) -> tuple[Path, Path]:
    """The stand-in cluster's commands and the file its ``sbatch`` records calls in."""
    bin_dir = fake_cluster(root)
    calls = root / "sbatch.calls"
    FakeSlurm(root).tool("sbatch", f'echo "$*" >> "{calls}"\necho 4242')
    return bin_dir, calls


def _recipe(tmp_path: Path, partition: str = "batch", job_dir: bool = True) -> Path:
    path = tmp_path / f"{partition}.yaml"
    where = f"  job_dir: {tmp_path / 'jobs'}\n" if job_dir else ""
    path.write_text(SLURM.replace("batch", partition) + where + RECIPE)
    return path


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in cluster first on PATH; its sbatch's calls, in the file returned."""
    bin_dir, calls = _stand_in(tmp_path / "cluster")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return calls


# ------------------------------------------------------------------ preflight
def test_api_submit_asks_the_cluster_first_as_submit_does(
    tmp_path: Path, cluster: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recipe(tmp_path, "debgu")
    config = api.settings(check_paths=False)
    with pytest.raises(LaunchError) as refused:
        api.submit(path, preflight=True, config=config)
    assert str(refused.value) == f"{path} cannot be submitted: slurm.partition: {TYPO}"
    assert refused.value.hint == "did you mean 'debug'?"
    assert not cluster.exists() and not (tmp_path / "jobs").exists()
    assert _cli("submit", str(path), "--no-check-paths") == 1  # the same word, the same stop
    assert f"error[unknown-partition] slurm.partition: {TYPO}\n" in capsys.readouterr().err
    assert not cluster.exists() and not (tmp_path / "jobs").exists()
    done = api.submit(path, config=config)  # without preflight: sbatch is the one to ask
    assert cluster.read_text() == "--export=ALL --parsable job.sbatch\n"
    assert done.manifests[0].scheduler_id == "4242"


def test_a_job_the_cluster_takes_is_submitted_after_preflight(
    tmp_path: Path, cluster: Path
) -> None:
    done = api.submit(_recipe(tmp_path), preflight=True, config=api.settings(check_paths=False))
    assert [m.scheduler_id for m in done.manifests] == ["4242"]
    assert cluster.read_text() == "--export=ALL --parsable job.sbatch\n"
    assert not [d for d in done.plan.report.diagnostics if d.is_error]


def test_a_plan_shown_is_asked_of_the_cluster_when_it_is_submitted(
    tmp_path: Path, cluster: Path
) -> None:
    shown = api.plan(_recipe(tmp_path, "debgu"), config=api.settings(check_paths=False))
    assert shown.report.ok  # no cluster asked to show it
    with pytest.raises(LaunchError, match=REFUSED):
        api.submit(shown, preflight=True)
    assert not cluster.exists()
    ready = api.plan(_recipe(tmp_path, "debgu"), submitting=True,
                     config=api.settings(check_paths=False))  # fmt: skip
    assert ready.root is not None and ready.root.is_dir()  # claimed
    with pytest.raises(LaunchError, match=REFUSED):
        api.submit(ready, preflight=True)
    assert not ready.root.exists() and not cluster.exists()  # its claim released


def test_api_rerun_asks_the_cluster_too(tmp_path: Path, cluster: Path) -> None:
    config = api.settings(check_paths=False)
    first = api.submit(_recipe(tmp_path), config=config).manifests[0]
    with pytest.raises(LaunchError) as refused:
        api.rerun(first.id, sets=["slurm.partition=debgu"], preflight=True, config=config)
    assert str(refused.value) == f"job {first.id} cannot be run again: {TYPO}"
    assert cluster.read_text().count("\n") == 1  # the first submit's sbatch only
    again = api.rerun(first.id, preflight=True, config=config)
    assert again.plan.rerun_of is not None and again.plan.rerun_of.id == first.id
    assert cluster.read_text().count("\n") == 2


def test_no_slurm_to_ask_is_the_error_submit_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    path = _recipe(tmp_path)
    with pytest.raises(PreflightError) as refused:
        api.submit(path, preflight=True, config=api.settings(check_paths=False))
    assert (str(refused.value), refused.value.hint) == (
        f"preflight: {NO_SLURM}",
        "pass --no-preflight to submit without asking the cluster",
    )
    assert _cli("submit", str(path), "--no-check-paths") == 1
    assert capsys.readouterr().err == (
        f"error: preflight: {NO_SLURM}\n"
        "    hint: pass --no-preflight to submit without asking the cluster\n"
    )
    assert not (tmp_path / "jobs").exists()


# ------------------------------------------------------------------ render
def test_api_render_returns_what_render_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recipe(tmp_path)
    config = api.settings(check_paths=False)
    assert _cli("render", str(path), "--no-check-paths") == 0
    shown = capsys.readouterr()
    single = api.render(path, config=config)
    assert (single.artifact, single.points, single.job_dir) == (shown.out, None, None)
    assert single.artifact.startswith("#!/bin/bash\n#SBATCH --job-name=llm_finetune\n")
    sweep = ["--sweep", "optimizer.lr=1e-5,1e-4", "--max-parallel", "1"]
    assert _cli("render", str(path), "--no-check-paths", *sweep) == 0
    shown = capsys.readouterr()
    points = api.render(path, sweep=["optimizer.lr=1e-5,1e-4"], max_parallel=1, config=config)
    drawn = re.compile(r"sweep-[0-9a-f]{12}")  # each plan draws its sweep's id
    assert drawn.sub("ID", points.artifact) == drawn.sub("ID", shown.out)
    assert drawn.sub("ID", f"{points.points}\n") == drawn.sub("ID", shown.err)
    assert drawn.sub("ID", points.points or "") == (
        "sweep: 2 points over optimizer.lr, at most 1 at once\n"
        "  checkpoints: checkpoints/ID/points/INDEX, one per point\n"
        "  point 0: optimizer.lr=1e-5\n  point 1: optimizer.lr=1e-4"
    )
    assert _cli("render", str(path), "--no-check-paths", "--job-dir", str(tmp_path / "a")) == 0
    written = api.render(path, job_dir=tmp_path / "b", config=config)
    assert capsys.readouterr().err == f"wrote {tmp_path / 'a'}/: " + ", ".join(written.files) + "\n"
    assert written.job_dir == tmp_path / "b"
    for name in written.files:
        ours, theirs = (tmp_path / d / name for d in ("b", "a"))
        assert ours.read_text() == theirs.read_text().replace(f"{tmp_path}/a", f"{tmp_path}/b")


def test_api_render_names_the_paths_of_a_named_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _clusters(tmp_path, monkeypatch, {"host": "me@login.example", "remote_dir": "/lustre/me"})
    path = _recipe(tmp_path, job_dir=False)
    shown = api.render(path, job_dir=tmp_path / "here", remote="lab",
                       config=api.settings(check_paths=False))  # fmt: skip
    script = (tmp_path / "here" / "job.sbatch").read_text()
    assert "\nJOB_DIR=/lustre/me/here\n" in script and str(tmp_path / "here") not in script
    assert shown.artifact == script
    args = ("render", str(path), "--no-check-paths", "--remote", "lab")
    assert _cli(*args, "--job-dir", str(tmp_path / "there")) == 0
    capsys.readouterr()
    there = script.replace("/lustre/me/here", "/lustre/me/there")
    assert (tmp_path / "there" / "job.sbatch").read_text() == there


# ------------------------------------------------------------------ validate
def test_api_validate_takes_what_validate_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    profiles = tmp_path / "site.yaml"
    profiles.write_text('eos:\n  slurm:\n    account: llm_team\n    time: "4h"\n')
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(profiles))
    path = tmp_path / "r.yaml"
    path.write_text("slurm:\n  nodes: 1\n" + RECIPE)
    reports = api.validate([path], profile="eos", sets=["slurm.nodes=0", "optimizer.lr=2e-5"])
    found = [d.as_dict() for d in reports[0].diagnostics]
    assert [(d["code"], d["path"], d["origin"]) for d in found] == [
        ("out-of-range", "slurm.nodes", {"kind": "set", "argument": "slurm.nodes=0"}),
        ("invalid-time", "slurm.time", {"kind": "profile", "file": str(profiles),
                                        "profile": "eos"}),
    ]  # fmt: skip
    args = ["--profile", "eos", "--set", "slurm.nodes=0", "--set", "optimizer.lr=2e-5"]
    assert _cli("validate", str(path), "-f", "json", *args) == 1
    assert json.loads(capsys.readouterr().out)["files"][0]["diagnostics"] == found
    assert [d.code for d in api.validate([path])[0].diagnostics] == []  # neither: no problem


def test_api_validate_asks_the_cluster_as_validate_cluster_does(
    tmp_path: Path, cluster: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recipe(tmp_path, "debgu")
    assert api.validate([path])[0].ok
    asked = api.validate([path], cluster=True)[0].diagnostics
    assert [(d.code, d.message) for d in asked if d.is_error] == [("unknown-partition", TYPO)]
    assert _cli("validate", str(path), "--cluster", "-f", "json") == 1
    shown = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert shown == [d.as_dict() for d in asked]
    assert not cluster.exists()  # sbatch --test-only is not asked when the rules refuse


# ------------------------------------------------------------------ a named cluster over SSH
def _clusters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lab: dict[str, object]) -> None:
    folder = tmp_path / "config" / "automodel-launch"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profiles.yaml").write_text(json.dumps({"clusters": {"lab": lab}}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[tuple[Sshd, Path]]:
    """The stand-in cluster behind a real sshd: its commands first on the server's PATH."""
    bin_dir, calls = _stand_in(tmp_path / "there")
    server = start_sshd(tmp_path / "sshd", environment={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    if isinstance(server, str):
        unavailable(server)
    assert not isinstance(server, str)
    try:
        yield server, calls
    finally:
        server.stop()


@pytest.mark.integration
def test_api_submit_and_rerun_go_to_a_named_cluster(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sshd: tuple[Sshd, Path],
    fake_slurm: FakeSlurm,
) -> None:
    server, calls = sshd
    remote_dir = tmp_path / "cluster-jobs"
    _clusters(tmp_path, monkeypatch, {
        "host": f"{server.user}@127.0.0.1", "port": server.port,
        "ssh_options": server.ssh_options(), "remote_dir": str(remote_dir),
    })  # fmt: skip
    for program in ("sbatch", "scontrol", "srun", "sacctmgr", "squeue", "sacct"):
        fake_slurm.answer(program, code=1)  # this host's Slurm: stand-ins that must not run
    monkeypatch.setenv("PATH", f"{fake_slurm.path}:/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    config = api.settings(check_paths=False)
    typo = _recipe(tmp_path, "debgu", job_dir=False)
    with pytest.raises(LaunchError) as refused:
        api.submit(typo, remote="lab", preflight=True, config=config)
    assert str(refused.value) == f"{typo} cannot be submitted: slurm.partition: {TYPO}"
    assert not calls.exists() and not remote_dir.exists()
    done = api.submit(_recipe(tmp_path, job_dir=False), remote="lab", preflight=True,
                      config=config)  # fmt: skip
    first = done.manifests[0]
    assert (first.scheduler_id, first.remote is not None and first.remote.name) == ("4242", "lab")
    assert first.remote is not None and Path(first.remote.job_dir).parent == remote_dir
    assert (Path(first.remote.job_dir) / "job.sbatch").is_file()  # copied there, run there
    assert calls.read_text() == "--export=ALL --parsable job.sbatch\n"
    again = api.rerun(first.id, preflight=True, config=config)  # to the cluster it ran on
    assert again.manifests[0].remote is not None and again.manifests[0].remote.name == "lab"
    assert calls.read_text().count("\n") == 2
    assert fake_slurm.argv() == []
    assert os.environ["PATH"].startswith(fake_slurm.path)
