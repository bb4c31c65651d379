"""``render``/``submit --sweep``: a plan of points, validated whole, one array on Slurm."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.fake_slurm import FakeSlurm

RECIPE = """\
recipe: TrainFinetuneRecipeForNextTokenPrediction
step_scheduler:
  global_batch_size: 8
  local_batch_size: 1
  max_steps: 2
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
  pretrained_model_name_or_path: gpt2
optimizer:
  _target_: torch.optim.Adam
  lr: 1.0e-5
"""
SLURM = 'slurm:\n  partition: batch\n  time: "00:10:00"\n  nodes: 1\n  ntasks_per_node: 1\n'


def run(
    *args: str, cwd: Path, bin_dir: Path | None = None, state: Path | None = None
) -> subprocess.CompletedProcess[str]:
    path = f"{bin_dir}:{os.environ['PATH']}" if bin_dir else os.environ["PATH"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": path}
    env["AUTOMODEL_LAUNCH_STATE_DIR"] = str(state or cwd / "state")
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args,
         *(["--no-check-paths"] if args[0] in ("render", "submit") else [])],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False, env=env,
    )  # fmt: skip


def fake(bin_dir: Path, name: str, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / name).write_text("#!/bin/bash\n" + body)
    (bin_dir / name).chmod(0o755)


SWEEP = ("--sweep", "optimizer.lr=1e-5,1e-4", "--sweep", "step_scheduler.max_steps=[2, 3]")


def test_render_shows_the_plan_and_one_array_script(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run("render", "r.yaml", *SWEEP, "--max-parallel", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sweep = re.search(r"checkpoints/sweep-([0-9a-f]{12})/points/INDEX", done.stderr)
    assert sweep, done.stderr
    assert done.stderr.splitlines() == [
        "sweep: 4 points over optimizer.lr, step_scheduler.max_steps, at most 2 at once",
        f"  checkpoints: checkpoints/sweep-{sweep.group(1)}/points/INDEX, one per point",
        "  point 0: optimizer.lr=1e-5, step_scheduler.max_steps=2",
        "  point 1: optimizer.lr=1e-5, step_scheduler.max_steps=3",
        "  point 2: optimizer.lr=1e-4, step_scheduler.max_steps=2",
        "  point 3: optimizer.lr=1e-4, step_scheduler.max_steps=3",
    ]
    script = done.stdout
    assert script.count("#!/bin/bash") == 1
    assert "#SBATCH --array=0-3%2\n" in script
    root = tmp_path / "slurm_jobs" / "llm_finetune"
    assert f"#SBATCH --output={root}/points/%a/%x_%A_%a.out\n" in script
    assert f'JOB_DIR={root}/points/"$SLURM_ARRAY_TASK_ID"\n' in script
    assert "MASTER_PORT=$((20000 + SLURM_JOB_ID % 40000))\n" in script  # tasks may share a node


def test_render_writes_each_point_its_own_job_config(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    job = tmp_path / "sweep"
    done = run("render", "r.yaml", *SWEEP, "--job-dir", str(job), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(str(p.relative_to(job)) for p in job.rglob("*") if p.is_file()) == [
        "job.sbatch",
        *(f"points/{i}/{name}" for i in range(4) for name in ("job_config.yaml", "launch.yaml")),
    ]  # fmt: skip
    configs = [(job / f"points/{i}/job_config.yaml").read_text() for i in range(4)]
    assert ["lr: 0.0001" in c for c in configs] == [False, False, True, True]
    assert ["max_steps: 3" in c for c in configs] == [False, True, False, True]
    assert all("slurm:" not in c for c in configs)
    assert "#SBATCH --array=0-3\n" in (job / "job.sbatch").read_text()


def test_one_bad_point_submits_nothing_and_is_named(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run(
        "submit", "r.yaml", "--no-preflight", "--sweep", "step_scheduler.max_steps=[2, 0, 3]",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    assert (
        "error[size-not-positive] step_scheduler.max_steps: point 1 "
        "(step_scheduler.max_steps=0): max_steps 0 is not more than 0"
    ) in done.stderr
    assert fake_slurm.calls == []
    assert not (tmp_path / "slurm_jobs").exists()


def test_a_value_no_point_could_record_submits_nothing_and_leaves_nothing(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    """Checked with the options, by the manifest's bounds: never found only once the sweep's
    directory is claimed (it was left behind, empty)."""
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    long = "/scratch/" + "a" * 300
    done = run(
        "submit", "r.yaml", "--no-preflight", "--sweep", f"checkpoint.checkpoint_dir={long},/b",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.replace("│", " ").split())  # the usage error's box, unwrapped
    assert (
        f"--sweep checkpoint.checkpoint_dir: the value '{long[:37]}...' (309 characters) is "
        in said
    )
    assert fake_slurm.calls == []
    assert not (tmp_path / "slurm_jobs").exists()
    assert not (tmp_path / "state").exists()


def test_a_slurm_sweep_is_one_sbatch_and_one_recorded_job_per_point(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run(
        "submit", "r.yaml", "--no-preflight", *SWEEP, "--max-parallel", "2", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert fake_slurm.argv() == [["sbatch", "--export=ALL", "--parsable", "job.sbatch"]]
    root = next((tmp_path / "slurm_jobs").iterdir())
    manifests = [json.loads((root / f"points/{i}/manifest.json").read_text()) for i in range(4)]
    assert [m["scheduler_id"] for m in manifests] == [f"4242_{i}" for i in range(4)]
    assert [m["job_dir"] for m in manifests] == [str(root / f"points/{i}") for i in range(4)]
    sweep = manifests[0]["sweep"]
    assert f"recorded 4 points as sweep {sweep}: automodel-launch status {sweep}\n" in done.stdout
    assert [(m["sweep"], m["point"]) for m in manifests] == [(sweep, i) for i in range(4)]
    assert [m["values"] for m in manifests] == [
        {"optimizer.lr": lr, "step_scheduler.max_steps": steps}
        for lr in (1e-5, 1e-4) for steps in (2, 3)
    ]  # fmt: skip
    jobs = run("jobs", "--format", "json", cwd=tmp_path)
    assert sorted(j["scheduler_id"] for j in json.loads(jobs.stdout)["jobs"]) == [
        f"4242_{i}" for i in range(4)
    ]


def test_a_sweep_on_this_node_runs_its_points_one_after_another(tmp_path: Path) -> None:
    # each point's run reads its own job config
    fake(tmp_path / "bin", "automodel", 'grep "lr:" "$1" >> "$0.runs"\n')
    (tmp_path / "r.yaml").write_text(RECIPE)
    done = run(
        "submit", "r.yaml", "--sweep", "optimizer.lr=1e-5,1e-4", "--job-dir",
        str(tmp_path / "sw"), cwd=tmp_path, bin_dir=tmp_path / "bin",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "bin" / "automodel.runs").read_text() == "  lr: 1.0e-05\n  lr: 0.0001\n"
    assert [(tmp_path / f"sw/points/{i}/exit_code").read_text() for i in (0, 1)] == ["0\n"] * 2


def test_max_parallel_in_the_foreground_is_a_note(tmp_path: Path) -> None:
    fake(tmp_path / "bin", "automodel", "exit 0\n")
    (tmp_path / "r.yaml").write_text(RECIPE)
    done = run(
        "submit", "r.yaml", "--sweep", "optimizer.lr=1e-5,1e-4", "--max-parallel", "2",
        "--job-dir", str(tmp_path / "sw"), cwd=tmp_path, bin_dir=tmp_path / "bin",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "note: in the foreground the points run one after another; --max-parallel takes "
        "effect with --detach\n"
    ) in done.stderr
    assert not (tmp_path / "sw" / "driver.json").exists()


@pytest.mark.parametrize("launcher", ["local", "skypilot"])
def test_after_is_refused_where_no_scheduler_waits(tmp_path: Path, launcher: str) -> None:
    text = RECIPE if launcher == "local" else "skypilot:\n  cloud: aws\n" + RECIPE
    (tmp_path / "r.yaml").write_text(text)
    done = run("submit", "r.yaml", "--after", "abc123", cwd=tmp_path)
    assert done.returncode == 2
    name = "interactive" if launcher == "local" else "skypilot"
    assert done.stderr.splitlines()[-2:] == [
        f"error: --after: {name} jobs cannot wait for another job; only Slurm's can "
        "(sbatch --dependency)",
        "    hint: submit this one when the other has ended (`automodel-launch status JOB` "
        "says when)",
    ]


def test_after_writes_the_dependency_on_a_job_or_a_whole_sweep(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    first = run("submit", "r.yaml", "--no-preflight", "--job-dir", str(tmp_path / "one"),
                cwd=tmp_path)  # fmt: skip
    assert first.returncode == 0, first.stderr
    job = json.loads((tmp_path / "one" / "manifest.json").read_text())["id"]
    swept = run("submit", "r.yaml", "--no-preflight", "--sweep", "optimizer.lr=1e-5,1e-4",
                "--job-dir", str(tmp_path / "sw"), cwd=tmp_path)  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    sweep = json.loads((tmp_path / "sw/points/0/manifest.json").read_text())["sweep"]
    fake_slurm.answer("sbatch", "777\n")
    for index, after in enumerate([job, f"{job}:any", sweep, f"{job}:ok"]):
        out = tmp_path / f"after{index}"
        done = run("submit", "r.yaml", "--no-preflight", "--after", after, "--job-dir", str(out),
                   cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        line = next(x for x in (out / "job.sbatch").read_text().splitlines() if "dependency" in x)
        # the sweep's points are tasks 4242_0, 4242_1: the dependency is on the whole array
        assert (
            line
            == "#SBATCH --dependency="
            + ["afterok:4242", "afterany:4242", "afterok:4242", "afterok:4242"][index]
        )


def test_after_a_job_the_registry_does_not_know_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run("submit", "r.yaml", "--no-preflight", "--after", "nosuchjob", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "error: --after nosuchjob: no job or sweep is 'nosuchjob' (an id, scheduler id, job "
        "directory or name); `automodel-launch jobs` lists them\n"
    )
    assert not (tmp_path / "slurm_jobs").exists()


@pytest.mark.parametrize("sweep", [(), ("--sweep", "optimizer.lr=1e-5,1e-4")])
def test_a_dry_run_asks_sbatch_and_leaves_nothing_behind(
    fake_slurm: FakeSlurm, tmp_path: Path, sweep: tuple[str, ...]
) -> None:
    fake_slurm.answer("sbatch", stderr="sbatch: Job 12 to start\n")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run("submit", "r.yaml", "--no-preflight", "--dry-run", *sweep, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "sbatch --test-only accepts the job: sbatch: Job 12 to start\n"
    assert fake_slurm.argv() == [["sbatch", "--export=ALL", "--test-only", "job.sbatch"]]
    assert not (tmp_path / "slurm_jobs").exists()  # nor the folder made for it
    assert not (tmp_path / "state").exists()  # nothing recorded
