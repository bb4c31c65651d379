"""``rerun JOB``: the config and code job JOB ran, submitted again as a new job.

The first job is submitted from a dirty git tree with a profile and a ``--set``; then the
recipe, the tree and the profile all change. The rerun still runs what the first job ran
(``sbatch`` is a stand-in that answers a job id: what is submitted is the job directory).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from automodel_launch import api
from automodel_launch.errors import LaunchError
from automodel_launch.secrets import shorten
from tests.plan.test_plan_cli import RECIPE, run
from tests.snapshot.gitrepo import git, repo
from tests.support.fake_slurm import FakeSlurm

PROFILES = "lab:\n  slurm:\n    partition: batch\n    account: first-account\n"


def recipe(checkout: Path, jobs: Path) -> str:
    return (
        f"slurm:\n  time: '00:10:00'\n  nodes: 1\n  ntasks_per_node: 1\n"
        f"  repo_root: {checkout}\n  job_dir: {jobs}\n"
        "  env_vars:\n    HF_TOKEN: ${HF_TOKEN}\n    PYV: 3.10\n" + RECIPE
    )


@pytest.fixture
def first(
    fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, object]:
    """A job submitted from a dirty tree with ``--profile lab --set optimizer.lr=2e-5``; the
    recipe, tree and profile changed afterwards."""
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    checkout = tmp_path / "checkout"
    head = repo(checkout, {"marker.py": 'MARKER = "committed"\n'})
    (checkout / "marker.py").write_text('MARKER = "submitted"\n')
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(PROFILES)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(profiles))
    monkeypatch.setenv("HF_TOKEN", "hf_" + "Q" * 34)
    (tmp_path / "r.yaml").write_text(recipe(checkout, tmp_path / "jobs"))
    done = run(
        "submit", "r.yaml", "--no-preflight", "--profile", "lab", "--set", "optimizer.lr=2e-5",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    job_id = re.search(r"recorded as job (\w+)", done.stdout)
    assert job_id, done.stdout
    (tmp_path / "r.yaml").write_text(
        recipe(checkout, tmp_path / "jobs").replace("lr: 1.0e-5", "lr: 9.0e-1")
    )
    (checkout / "marker.py").write_text('MARKER = "edited"\n')
    git(checkout, "commit", "-qam", "edited")
    profiles.write_text(PROFILES.replace("first-account", "second-account"))
    return {"id": job_id.group(1), "head": head, "tmp": tmp_path}


def job_dir_of(tmp_path: Path, job_id: str) -> Path:
    for manifest in (tmp_path / "jobs").glob("*/manifest.json"):
        if json.loads(manifest.read_text())["id"] == job_id:
            return manifest.parent
    raise AssertionError(f"no job {job_id}")


def test_a_rerun_runs_the_first_jobs_config_and_code(first: dict[str, object]) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    old_id = str(first["id"])
    done = run(
        "rerun", old_id, "--no-preflight", "--set", "step_scheduler.max_steps=5",
        cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    new_id = re.search(r"recorded as job (\w+)", done.stdout)
    assert new_id, done.stdout
    assert f"  rerun of       job {old_id} (llm_finetune)\n" in done.stderr
    assert f"  code           the snapshot job {old_id} ran (1 file of {tmp}/checkout, " in (
        done.stderr
    )
    old, new = job_dir_of(tmp, old_id), job_dir_of(tmp, new_id.group(1))
    assert old != new
    # the code: the first job's snapshot, linked (not the tree, which moved on)
    assert (new / "code/marker.py").read_text() == 'MARKER = "submitted"\n'
    assert (new / "code/marker.py").stat().st_ino == (old / "code/marker.py").stat().st_ino
    assert (new / "code.diff").read_bytes() == (old / "code.diff").read_bytes()
    script = (new / "job.sbatch").read_text()
    assert f"export PYTHONPATH={new}/code${{PYTHONPATH:+:$PYTHONPATH}}\n" in script
    # the config: the first job's profile and --set, not the recipe's or profile's edits
    assert "#SBATCH --account=first-account\n" in script
    job_config = (new / "job_config.yaml").read_text()
    assert "lr: 2.0e-05" in job_config and "max_steps: 5" in job_config
    assert "9.0e-1" not in job_config
    assert "hf_" not in (new / "launch.yaml").read_text()
    manifest = json.loads((new / "manifest.json").read_text())
    assert manifest["rerun_of"] == old_id
    assert manifest["profile"]["name"] == "lab"
    assert [o["argument"] for o in manifest["overrides"]] == [
        "optimizer.lr=2e-5", "step_scheduler.max_steps=5",
    ]  # fmt: skip
    code = manifest["code"]
    assert (code["commit"], code["dirty"], code["snapshot"]) == (first["head"], True, f"{new}/code")
    assert code["diff"] == f"{new}/code.diff"
    # diff names the one value the rerun changed
    # and the checkpoint directory of its own it got for changing it
    shown = run("diff", old_id, new_id.group(1), cwd=tmp)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        "--set step_scheduler.max_steps: (none) -> 5",
        f"config.checkpoint.checkpoint_dir: (none) -> checkpoints/rerun-{new_id.group(1)}",
        "config.step_scheduler.max_steps: 2 -> 5",
    ]


def test_a_rerun_without_set_differs_in_nothing(first: dict[str, object]) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    done = run("rerun", str(first["id"]), "--no-preflight", cwd=tmp)
    assert done.returncode == 0, done.stderr
    new_id = re.search(r"recorded as job (\w+)", done.stdout)
    assert new_id, done.stdout
    shown = run("diff", str(first["id"]), new_id.group(1), cwd=tmp)
    assert shown.stdout == f"jobs {first['id']} and {new_id.group(1)} do not differ\n"


def test_the_environments_profile_does_not_apply_to_a_rerun(
    first: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    (tmp / "profiles.yaml").write_text(PROFILES + "other:\n  slurm:\n    account: other\n")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_PROFILE", "other")
    done = run("rerun", str(first["id"]), "--no-preflight", cwd=tmp)
    assert done.returncode == 0, done.stderr
    new_id = re.search(r"recorded as job (\w+)", done.stdout)
    assert new_id, done.stdout
    script = (job_dir_of(tmp, new_id.group(1)) / "job.sbatch").read_text()
    assert "#SBATCH --account=first-account\n" in script


def test_a_rerun_that_no_longer_validates_submits_nothing(
    fake_slurm: FakeSlurm, first: dict[str, object]
) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    done = run(
        "rerun", str(first["id"]), "--no-preflight", "--set", "slurm.nodes=0",
        cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 1
    assert "--set slurm.nodes=0: error[out-of-range] slurm.nodes: must be at least 1" in (
        done.stderr
    )
    assert len(fake_slurm.called("sbatch")) == 1
    assert len(list((tmp / "jobs").iterdir())) == 1


def test_a_rerun_runs_the_first_jobs_code_only(first: dict[str, object]) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    done = run("rerun", str(first["id"]), "--set", f"slurm.repo_root={tmp}", cwd=tmp)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: --set slurm.repo_root={tmp}: a rerun runs the code job {first['id']} ran\n"
        "    hint: submit the recipe to run another tree\n"
    )


def test_a_job_without_its_launch_config_says_how_to_run_it_again(
    first: dict[str, object],
) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    old = job_dir_of(tmp, str(first["id"]))
    (old / "launch.yaml").unlink()
    done = run("rerun", str(first["id"]), cwd=tmp)
    assert done.returncode == 1
    assert done.stderr == (
        f"error: job {first['id']} has no launch.yaml in {old}: it was submitted before "
        "automodel-launch kept the config a job ran with, or its directory was emptied\n"
        f"    hint: submit its recipe again: automodel-launch submit {tmp}/r.yaml\n"
    )


@pytest.mark.parametrize("kind", ["fifo", "huge", "link", "gone-code"])
def test_a_tampered_job_directory_is_refused_in_one_line(
    first: dict[str, object], kind: str
) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    job = str(first["id"])
    old = job_dir_of(tmp, job)
    cannot = f"error: job {job}: cannot read {old}/launch.yaml: "
    if kind == "fifo":
        (old / "launch.yaml").unlink()
        os.mkfifo(old / "launch.yaml")
        expected = cannot + "it is a named pipe, not a file\n"
    elif kind == "huge":
        with (old / "launch.yaml").open("a") as file:
            file.truncate(9 * 1024 * 1024)
        expected = cannot + "9437184 bytes is more than the 8388608 it may hold\n"
    elif kind == "link":  # to another job's config, which validates: never followed
        other = tmp / "other.yaml"
        other.write_text((old / "launch.yaml").read_text().replace("max_steps: 2", "max_steps: 9"))
        (old / "launch.yaml").unlink()
        (old / "launch.yaml").symlink_to(other)
        expected = cannot + "it is a symbolic link, not a file\n"
    else:
        for path in sorted((old / "code").rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        (old / "code").rmdir()
        expected = f"error: job {first['id']} ran a snapshot of {tmp}/checkout, but {old}/code"
    done = run("rerun", str(first["id"]), "--no-preflight", cwd=tmp)
    assert done.returncode == 1, done.stderr
    # a path longer than a shown word may be is shown without its middle
    assert done.stderr.startswith(shorten(expected)), done.stderr
    if kind != "gone-code":
        assert done.stderr.endswith(
            "    hint: automodel-launch wrote it as a regular file: restore it, or submit the "
            f"recipe again: automodel-launch submit {tmp}/r.yaml\n"
        )
    assert "Traceback" not in done.stderr
    assert len(list((tmp / "jobs").iterdir())) == 1


def test_the_api_reruns_a_job_and_refuses_one_that_fails(
    first: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp / "state"))
    done = api.rerun(str(first["id"]), sets={"step_scheduler.max_steps": 7})
    manifest = done.manifests[0]
    assert manifest.rerun_of == first["id"]
    assert "max_steps: 7" in (Path(manifest.job_dir) / "job_config.yaml").read_text()
    with pytest.raises(LaunchError, match=r"cannot be run again: .*must be at least 1"):
        api.rerun(str(first["id"]), sets=["slurm.nodes=0"])


def test_a_sweep_point_is_rerun_by_its_index(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    slurm = "slurm:\n  partition: batch\n  time: '00:10:00'\n  nodes: 1\n  ntasks_per_node: 1\n"
    (tmp_path / "r.yaml").write_text(slurm + RECIPE)
    done = run(
        "submit", "r.yaml", "--no-preflight", "--sweep", "optimizer.lr=1e-5,3e-4",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sweep = re.search(r"as sweep (\w+)", done.stdout)
    assert sweep, done.stdout
    whole = run("rerun", sweep.group(1), cwd=tmp_path)
    assert whole.returncode == 1
    assert "give one with --point I (its points are 0 to 1)" in whole.stderr
    again = run(
        "rerun", sweep.group(1), "--point", "1", "--no-preflight",
        cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    new_id = re.search(r"recorded as job (\w+)", again.stdout)
    assert new_id, again.stdout
    new = [
        m.parent
        for m in (tmp_path / "slurm_jobs").glob("*/manifest.json")
        if json.loads(m.read_text())["id"] == new_id.group(1)
    ]
    assert len(new) == 1
    assert "lr: 0.0003" in (new[0] / "job_config.yaml").read_text()
    assert "#SBATCH --array" not in (new[0] / "job.sbatch").read_text()


def test_the_launch_config_checked_is_the_one_planned(
    first: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``launch.yaml`` is read once: replaced right after it was read, the rerun still runs
    what was read (and a config that does not validate is named by its path and line)."""
    from automodel_launch.jobs import files
    from automodel_launch.plan.rerun import plan_rerun

    tmp = first["tmp"]
    assert isinstance(tmp, Path)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp / "state"))
    launch = job_dir_of(tmp, str(first["id"])) / "launch.yaml"
    checked = launch.read_text()
    assert "lr: 2.0e-05" in checked and "max_steps: 2\n" in checked
    swapped = checked.replace("max_steps: 2\n", "max_steps: 0\n")
    real = files.read_regular
    reads: list[Path] = []

    def read_then_swap(path: str | Path, limit: int, **where: Any) -> bytes:
        raw = real(path, limit, **where)
        if Path(path) == Path(launch.name):
            reads.append(launch)
            launch.write_text(swapped)
        return raw

    monkeypatch.setattr(files, "read_regular", read_then_swap)
    done = api.rerun(str(first["id"]))
    assert reads == [launch]
    assert launch.read_text() == swapped
    new = Path(done.manifests[0].job_dir)
    assert "max_steps: 2\n" in (new / "job_config.yaml").read_text()
    assert (new / "launch.yaml").read_text() == checked
    # what is read is what is checked: the swapped file, named by its path and line
    manifest = api.job(str(first["id"]))
    again = plan_rerun(manifest, api.settings())
    assert again.plan.failed(strict=False)
    line = swapped.splitlines().index("  max_steps: 0") + 1
    report = again.plan.report
    assert report.path == str(launch)
    assert [(d.line, d.code, d.path) for d in report.diagnostics if d.is_error] == [
        (line, "size-not-positive", "step_scheduler.max_steps")
    ]
