"""submit runs a snapshot of repo_root: the script names it, the manifest records it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.jobdir import write_job_dir
from automodel_launch.snapshot import SnapshotError
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.snapshot.gitrepo import GIT_ENV, repo
from tests.support.fake_slurm import FakeSlurm

TRAIN = {"mytrain.py": "print('submitted')\n", "pkg/__init__.py": ""}


@pytest.fixture
def tree(fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    root = tmp_path / "checkout"
    repo(root, TRAIN)
    (root / "mytrain.py").write_text("print('edited before submit')\n")
    return root


def recipe(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "r.yaml"
    where = f"  job_dir: {tmp_path / 'jobs'}\n  repo_root: {tmp_path / 'checkout'}\n"
    path.write_text(SLURM + where + extra + RECIPE)
    return path


def submit(path: Path, **options: object) -> api.Submission:
    return api.submit(path, config=api.settings(check_paths=False), **options)


def test_the_job_runs_the_snapshot_and_records_where_it_came_from(tree: Path) -> None:
    done = submit(recipe(tree.parent))
    job_dir = Path(done.manifests[0].job_dir)
    script = (job_dir / "job.sbatch").read_text()
    assert f"export PYTHONPATH={job_dir}/code${{PYTHONPATH:+:$PYTHONPATH}}\n" in script
    [path_line] = [line for line in script.splitlines() if "PYTHONPATH" in line]
    assert str(tree) not in path_line
    (tree / "mytrain.py").write_text("print('edited after submit')\n")
    assert (job_dir / "code/mytrain.py").read_text() == "print('edited before submit')\n"
    [job] = api.jobs()
    code = job["code"]
    assert code["commit"] == done.manifests[0].code.commit and len(code["commit"]) == 40
    assert (code["root"], code["snapshot"], code["dirty"]) == (str(tree), f"{job_dir}/code", True)
    assert code["diff"] == f"{job_dir}/code.diff" and code["files"] == 2
    assert job["tool_version"] == api.__dict__.get("__version__", job["tool_version"])
    assert job["automodel_version"] == done.manifests[0].automodel_version is not None
    on_disk = json.loads((job_dir / "manifest.json").read_text())
    assert on_disk["code"] == code


def test_a_sweep_shares_one_snapshot_at_its_top(tree: Path) -> None:
    done = submit(recipe(tree.parent), sweep={"optimizer.lr": [1e-5, 1e-4]})
    top = Path(done.manifests[0].job_dir).parent.parent
    script = (top / "job.sbatch").read_text()
    assert f"export PYTHONPATH={top}/code${{PYTHONPATH:+:$PYTHONPATH}}\n" in script
    assert sorted(p.name for p in top.iterdir()) == [
        "code", "code.diff", "job.sbatch", "points"]  # fmt: skip
    assert {m.code.snapshot for m in done.manifests if m.code} == {f"{top}/code"}


def test_an_array_in_a_container_mounts_the_shared_snapshot(tree: Path) -> None:
    image = "  container_image: nvcr.io/nvidia/nemo:25.07\n"
    done = submit(recipe(tree.parent, image), sweep={"optimizer.lr": [1e-5, 1e-4]})
    top = Path(done.manifests[0].job_dir).parent.parent
    assert f'--container-mounts="${{JOB_DIR}}":"${{JOB_DIR}}",{top}/code:{top}/code,' in (
        top / "job.sbatch").read_text()  # fmt: skip


def test_repo_root_inside_the_container_snapshots_the_mount_source(tree: Path) -> None:
    path = tree.parent / "r.yaml"
    path.write_text(SLURM + f"  job_dir: {tree.parent / 'jobs'}\n  repo_root: /opt/Automodel\n"
                    "  container_image: nvcr.io/nvidia/nemo:25.07\n"
                    f"  nemo_mount: {tree}:/opt/Automodel\n" + RECIPE)  # fmt: skip
    done = submit(path)
    code = done.manifests[0].code
    assert code is not None and code.root == str(tree)
    job_dir = Path(done.manifests[0].job_dir)
    assert f"export PYTHONPATH={job_dir}/code" in (job_dir / "job.sbatch").read_text()


def test_without_a_snapshot_the_live_tree_is_run_and_nothing_recorded(tree: Path) -> None:
    done = submit(recipe(tree.parent), snapshot=False)
    job_dir = Path(done.manifests[0].job_dir)
    assert f"export PYTHONPATH={tree}${{PYTHONPATH:+:$PYTHONPATH}}\n" in (
        job_dir / "job.sbatch").read_text()  # fmt: skip
    assert not (job_dir / "code").exists() and done.manifests[0].code is None
    assert api.jobs()[0]["code"] is None


def test_a_dry_run_leaves_no_snapshot_behind(fake_slurm: FakeSlurm, tree: Path) -> None:
    fake_slurm.answer("sbatch", stderr="sbatch: would run\n")
    submit(recipe(tree.parent), dry_run=True)
    assert not (tree.parent / "jobs").exists()


def test_a_repo_root_missing_here_is_refused_before_anything_is_written(
    fake_slurm: FakeSlurm, tree: Path
) -> None:
    path = tree.parent / "r.yaml"
    path.write_text(SLURM + f"  job_dir: {tree.parent / 'jobs'}\n  repo_root: /nowhere/am\n"
                    + RECIPE)  # fmt: skip
    with pytest.raises(SnapshotError) as caught:
        submit(path)
    assert str(caught.value) == (
        "slurm.repo_root: /nowhere/am is not a directory on this host, so its code cannot be "
        "snapshotted"
    )
    assert not (tree.parent / "jobs").exists()
    assert fake_slurm.calls == []


def test_a_failing_snapshot_write_leaves_no_job_directory(tmp_path: Path) -> None:
    def fill(staging: Path) -> list[str]:
        (staging / "code").mkdir()
        (staging / "code" / "a.py").write_text("a")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_job_dir(tmp_path / "jobs" / "j", {"job.sbatch": "x"}, fill=fill)
    assert not (tmp_path / "jobs").exists()
