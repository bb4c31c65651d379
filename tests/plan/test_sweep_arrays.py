"""A Slurm sweep over fields of the ``slurm:`` section: one sweep of several job arrays,
one per distinct section, each task the index of its point; one id, one row, one cancel."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.launchers.slurm.arrays import in_ranges, task_ranges
from tests.plan.test_plan_cli import RECIPE, SLURM, run
from tests.support.fake_slurm import FakeSlurm

NODES = ("--sweep", "slurm.nodes=1,2")
"""1 and 2 nodes: the points need two scripts."""


def submitted(fake_slurm: FakeSlurm, tmp_path: Path, *args: str) -> tuple[str, Path, str]:
    """Submit the recipe with ``args`` (array 0 is Slurm job 1234, array 1 job 1240): the
    command's stdout, the sweep's job directory and its id."""
    fake_slurm.answer("sbatch", "1234\n", when="*job-0.sbatch")
    fake_slurm.answer("sbatch", "1240\n", when="*job-1.sbatch")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run("submit", "r.yaml", "--no-preflight", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sweep = re.search(r"^recorded \d+ points as sweep (\w+): ", done.stdout, re.M)
    assert sweep, done.stdout
    return done.stdout, next((tmp_path / "slurm_jobs").iterdir()), sweep.group(1)


def manifests(root: Path, count: int) -> list[dict[str, Any]]:
    return [json.loads((root / f"points/{i}/manifest.json").read_text()) for i in range(count)]


def directives(script: str, *names: str) -> list[str]:
    return [line for line in script.splitlines()
            if line.startswith(tuple(f"#SBATCH --{n}=" for n in names))]  # fmt: skip


def test_a_sweep_over_slurm_nodes_is_two_arrays_of_one_sweep(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    out, root, sweep = submitted(fake_slurm, tmp_path, *NODES)
    assert fake_slurm.argv() == [
        ["sbatch", "--export=ALL", "--parsable", "job-0.sbatch"],
        ["sbatch", "--export=ALL", "--parsable", "job-1.sbatch"],
    ]
    assert sorted(p.name for p in root.iterdir()) == ["job-0.sbatch", "job-1.sbatch", "points"]
    scripts = [(root / f"job-{a}.sbatch").read_text() for a in (0, 1)]
    assert [directives(s, "nodes", "array") for s in scripts] == [
        ["#SBATCH --nodes=1", "#SBATCH --array=0"],
        ["#SBATCH --nodes=2", "#SBATCH --array=1"],
    ]
    assert out.splitlines() == [
        f"array 0 (point 0 (slurm.nodes=1)): submitted Slurm job 1234; files and log in {root}",
        f"array 1 (point 1 (slurm.nodes=2)): submitted Slurm job 1240; files and log in {root}",
        f"recorded 2 points as sweep {sweep}: automodel-launch status {sweep}",
    ]
    made = manifests(root, 2)
    assert [(m["sweep"], m["point"], m["scheduler_id"]) for m in made] == [
        (sweep, 0, "1234_0"), (sweep, 1, "1240_1"),
    ]  # fmt: skip
    assert [m["values"] for m in made] == [{"slurm.nodes": 1}, {"slurm.nodes": 2}]
    assert [m["details"]["nodes"] for m in made] == [1, 2]  # each point's own GPU-hours
    assert [m["job_dir"] for m in made] == [str(root / "points/0"), str(root / "points/1")]
    listed = json.loads(run("jobs", "--format", "json", cwd=tmp_path).stdout)["jobs"]
    assert sorted((j["sweep"], j["scheduler_id"]) for j in listed) == [
        (sweep, "1234_0"), (sweep, "1240_1"),
    ]  # fmt: skip


def test_status_lists_every_array_s_task_and_cancel_cancels_them_all(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    _, root, sweep = submitted(fake_slurm, tmp_path, *NODES)
    fake_slurm.squeue(
        {"job_id": 1234, "array_job_id": 1234, "array_task_id": 0, "job_state": "RUNNING"},
        {"job_id": 1240, "array_job_id": 1240, "array_task_id": None, "array_task_string": "1",
         "job_state": "PENDING", "state_reason": "Resources"},
    )  # fmt: skip
    shown = run("status", sweep, "--format", "json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    status = json.loads(shown.stdout)
    assert (status["sweep"], status["scheduler_id"], status["states"]) == (
        sweep, "1234,1240", {"RUNNING": 1, "PENDING": 1}
    )  # fmt: skip
    assert [(p["point"], p["scheduler_id"], p["state"], p["values"]) for p in status["points"]] == [
        (0, "1234_0", "RUNNING", {"slurm.nodes": 1}),
        (1, "1240_1", "PENDING", {"slurm.nodes": 2}),
    ]
    for array in ("1234", "1240"):  # either array's id names the sweep
        by_array = json.loads(run("status", array, "--format", "json", cwd=tmp_path).stdout)
        assert by_array["sweep"] == sweep
    fake_slurm.tool("scancel", f"/bin/cp {fake_slurm.root}/gone.json {fake_slurm.root}/squeue.out")
    (fake_slurm.root / "gone.json").write_text('{"jobs": []}')
    cancelled = run("cancel", sweep, cwd=tmp_path)
    assert cancelled.returncode == 0, cancelled.stderr
    assert fake_slurm.called("scancel") == ["scancel -- 1234_0 1240_1"]
    assert cancelled.stdout.startswith(f"cancelled sweep {sweep} (slurm 1234,1240)")
    assert [(root / f"points/{i}/cancelled").exists() for i in (0, 1)] == [True, True]


@pytest.mark.parametrize(
    ("sweeps", "arrays", "values"),
    [
        ((*NODES, "--sweep", "step_scheduler.max_steps=[2, 3]"), ["0-1%1", "2-3%1"],
         [(1, 2), (1, 3), (2, 2), (2, 3)]),
        (("--sweep", "step_scheduler.max_steps=[2, 3]", *NODES), ["0,2%1", "1,3%1"],
         [(1, 2), (2, 2), (1, 3), (2, 3)]),
    ],
)  # fmt: skip
def test_four_points_over_two_node_counts_are_two_arrays_of_two_tasks(
    fake_slurm: FakeSlurm,
    tmp_path: Path,
    sweeps: tuple[str, ...],
    arrays: list[str],
    values: list[tuple[int, int]],
) -> None:
    _, root, _ = submitted(fake_slurm, tmp_path, *sweeps, "--max-parallel", "1")
    assert len(fake_slurm.called("sbatch")) == 2
    scripts = [(root / f"job-{a}.sbatch").read_text() for a in (0, 1)]
    assert [directives(s, "nodes", "array") for s in scripts] == [
        ["#SBATCH --nodes=1", f"#SBATCH --array={arrays[0]}"],
        ["#SBATCH --nodes=2", f"#SBATCH --array={arrays[1]}"],
    ]  # --max-parallel caps each array
    made = manifests(root, 4)
    assert [(m["values"]["slurm.nodes"], m["values"]["step_scheduler.max_steps"])
            for m in made] == values  # fmt: skip
    assert [m["scheduler_id"] for m in made] == [
        f"{1234 if nodes == 1 else 1240}_{i}" for i, (nodes, _) in enumerate(values)
    ]
    configs = [(root / f"points/{i}/job_config.yaml").read_text() for i in range(4)]
    assert [f"max_steps: {steps}" in c for c, (_, steps) in zip(configs, values, strict=True)] == [
        True
    ] * 4


def test_render_shows_each_array_s_script_under_the_points_it_runs(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    job = tmp_path / "sweep"
    done = run(
        "render", "r.yaml", *NODES, "--sweep", "optimizer.lr=1e-5,1e-4", "--job-dir", str(job),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    at = said.index("  point 0: slurm.nodes=1, optimizer.lr=1e-5")
    assert said[at : at + 6] == [
        "  point 0: slurm.nodes=1, optimizer.lr=1e-5",
        "  point 1: slurm.nodes=1, optimizer.lr=1e-4",
        "  point 2: slurm.nodes=2, optimizer.lr=1e-5",
        "  point 3: slurm.nodes=2, optimizer.lr=1e-4",
        "  array 0 (job-0.sbatch): points 0, 1 (slurm.nodes=1)",
        "  array 1 (job-1.sbatch): points 2, 3 (slurm.nodes=2)",
    ]
    assert sorted(str(p.relative_to(job)) for p in job.rglob("*") if p.is_file()) == [
        "job-0.sbatch", "job-1.sbatch",
        *(f"points/{i}/{name}" for i in range(4) for name in ("job_config.yaml", "launch.yaml")),
    ]  # fmt: skip
    shown = run("render", "r.yaml", *NODES, "--sweep", "optimizer.lr=1e-5,1e-4", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    first, second = shown.stdout.split("\n# array 1 (job-1.sbatch): points 2, 3 (slurm.nodes=2)\n")
    assert first.startswith("# array 0 (job-0.sbatch): points 0, 1 (slurm.nodes=1)\n#!/bin/bash\n")
    assert [directives(text, "nodes", "array") for text in (first, second)] == [
        ["#SBATCH --nodes=1", "#SBATCH --array=0-1"],
        ["#SBATCH --nodes=2", "#SBATCH --array=2-3"],
    ]
    written = [(job / f"job-{a}.sbatch").read_text() for a in (0, 1)]
    home = str(tmp_path / "slurm_jobs" / "llm_finetune")
    assert [first.partition("\n")[2], second] == [text.replace(str(job), home) for text in written]


def test_a_dry_run_asks_sbatch_of_each_array_and_leaves_nothing(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("sbatch", stderr="sbatch: Job 12 to start\n")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run("submit", "r.yaml", "--no-preflight", "--dry-run", *NODES, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert fake_slurm.argv() == [
        ["sbatch", "--export=ALL", "--test-only", "job-0.sbatch"],
        ["sbatch", "--export=ALL", "--test-only", "job-1.sbatch"],
    ]
    assert done.stdout.splitlines() == [
        f"array {a} (point {a} (slurm.nodes={a + 1})): sbatch --test-only accepts the job: "
        "sbatch: Job 12 to start"
        for a in (0, 1)
    ]
    assert not (tmp_path / "slurm_jobs").exists()
    assert not (tmp_path / "state").exists()


def test_a_later_array_refused_leaves_the_first_running_and_its_points_failed(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("sbatch", "1234\n", when="*job-0.sbatch")
    refused = "sbatch: error: Batch job submission failed: Node count specification invalid\n"
    fake_slurm.answer("sbatch", stderr=refused, code=1, when="*job-1.sbatch")
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    done = run("submit", "r.yaml", "--no-preflight", *NODES, cwd=tmp_path)
    assert done.returncode == 1
    root = next((tmp_path / "slurm_jobs").iterdir())
    assert done.stdout.splitlines() == [
        f"array 0 (point 0 (slurm.nodes=1)): submitted Slurm job 1234; files and log in {root}"
    ]
    assert "1 of 2 points failed: point 1 (array 1): " in done.stderr
    assert "Node count specification invalid" in done.stderr
    made = manifests(root, 2)
    sweep = made[0]["sweep"]
    said = " ".join(done.stderr.replace("│", " ").split())
    assert f"every point is recorded as sweep {sweep}: automodel-launch status {sweep}" in said
    assert [m["scheduler_id"] for m in made] == ["1234_0", None]
    assert (root / "points/1/exit_code").read_text() == "1\n"
    fake_slurm.squeue(
        {"job_id": 1234, "array_job_id": 1234, "array_task_id": 0, "job_state": "RUNNING"}
    )
    status = json.loads(run("status", made[0]["sweep"], "--format", "json", cwd=tmp_path).stdout)
    assert [p["state"] for p in status["points"]] == ["RUNNING", "FAILED"]


def test_after_a_sweep_of_two_arrays_waits_for_both(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    _, root, sweep = submitted(fake_slurm, tmp_path, *NODES)
    fake_slurm.answer("sbatch", "777\n")
    for after, line in ((sweep, "afterok:1234:1240"),
                        (str(manifests(root, 2)[1]["id"]), "afterok:1240")):  # fmt: skip
        out = tmp_path / f"after-{line}"
        done = run("submit", "r.yaml", "--no-preflight", "--after", after, "--job-dir", str(out),
                   cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert directives((out / "job.sbatch").read_text(), "dependency") == [
            f"#SBATCH --dependency={line}"
        ]


def test_a_point_is_rerun_with_its_own_nodes(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    _, _, sweep = submitted(fake_slurm, tmp_path, *NODES)
    fake_slurm.answer("sbatch", "777\n")
    again = run("rerun", sweep, "--point", "1", "--no-preflight", "--job-dir",
                str(tmp_path / "again"), cwd=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr
    script = (tmp_path / "again" / "job.sbatch").read_text()
    assert directives(script, "nodes", "array") == ["#SBATCH --nodes=2"]


@pytest.mark.parametrize(
    ("indexes", "text"),
    [([0], "0"), ([0, 1, 2, 3], "0-3"), ([0, 2], "0,2"), ([1, 3, 5, 7], "1-7:2"),
     ([1, 3, 5, 7, 8], "1-7:2,8"), ([0, 1, 5, 6, 7, 20], "0-1,5-7,20")],
)  # fmt: skip
def test_an_array_s_tasks_are_its_points_indexes(indexes: list[int], text: str) -> None:
    assert task_ranges(indexes) == text
    assert [i for i in range(30) if in_ranges(text, i)] == indexes
