"""Sweeps on the real local Slurm cluster: one job array, at most --max-parallel tasks at
once, each task training on its own point's config in its own checkpoint directory; a
sweep over slurm.nodes as two arrays of one sweep; a bad point submits nothing; --after;
rerun says what it resumes from.

Tasks run ``harness/sweep_trainer.py``: it reads its job config, resumes from the latest
checkpoint in its checkpoint directory as AutoModel does, trains on CPU over gloo, and
prints its lr, steps and start/end times. The tests wait for states, never for a time; a
task that must be running while it is looked at is held by a gate file.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.integration.conftest import SWEEP_RECIPE
from tests.integration.slurm import HARNESS, Cluster
from tests.integration.test_jobs_slurm import Cli
from tests.integration.waiting import status_until

pytestmark = pytest.mark.integration
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}


@pytest.fixture
def cli(slurm_cluster: Cluster, torchrun: str, tmp_path: Path) -> Cli:
    return Cli(slurm_cluster, torchrun, tmp_path)


def sweep_config(cli: Cli, name: str) -> Path:
    return cli.config(name, ranks=2, extra=SWEEP_RECIPE)


def points_of(cli: Cli, output: str) -> list[dict[str, object]]:
    """The sweep's points as ``jobs --format json`` lists them, in point order."""
    match = re.search(r"^recorded (\d+) points as sweep (\w+): ", output, re.M)
    assert match, output
    listed = json.loads(cli.run("jobs", "--format", "json").stdout)["jobs"]
    mine = [j for j in listed if j["job_dir"].startswith(str(cli.tmp / "jobs"))]
    assert len(mine) == int(match.group(1))
    return sorted(mine, key=lambda j: int(str(j["scheduler_id"]).rpartition("_")[2]))


def test_a_sweep_is_one_array_each_task_on_its_own_point(cli: Cli) -> None:
    config = sweep_config(cli, "lrsweep")
    entry = f"{HARNESS / 'sweep_trainer.py'} {{config}}"
    done = cli.run(
        "submit", str(config), "--entry", entry, "--no-preflight",
        "--sweep", "optimizer.lr=0.01,0.1", "--sweep", "step_scheduler.max_steps=[3, 6]",
        "--max-parallel", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    points = points_of(cli, done.stdout)
    arrays = {str(p["scheduler_id"]).partition("_")[0] for p in points}
    assert len(arrays) == 1  # one sbatch, one array
    for point in points:
        shown = cli.wait_for(str(point["id"]), {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"})
        assert shown["state"] == "COMPLETED", shown
    sweep = cli.status(str(points[0]["sweep"]))  # the registry: 4 points, one sweep
    assert sweep["states"] == {"COMPLETED": 4} and sweep["keys"] == [
        "optimizer.lr", "step_scheduler.max_steps",
    ]  # fmt: skip
    assert [p["values"] for p in sweep["points"]] == [
        {"optimizer.lr": lr, "step_scheduler.max_steps": steps}
        for lr in (0.01, 0.1) for steps in (3, 6)
    ]  # fmt: skip
    lines = []
    for index, point in enumerate(points):
        job_dir = Path(str(point["job_dir"]))
        assert job_dir == cli.tmp / "jobs" / job_dir.parent.parent.name / "points" / str(index)
        assert (job_dir / "exit_code").read_text() == "0\n"
        log = next(job_dir.glob("lrsweep_*.out")).read_text()
        found = re.findall(
            r"^\[rank0\]:point lr=(\S+) steps=(\d+) loss=(\S+) start=(\S+) end=(\S+)$", log, re.M
        )
        assert len(found) == 1, log
        lines.append(found[0])
    # each task trained its own point's values
    assert [(float(lr), int(steps)) for lr, steps, *_ in lines] == [
        (0.01, 3), (0.01, 6), (0.1, 3), (0.1, 6),
    ]  # fmt: skip
    # never more than two at once (--max-parallel 2)
    spans = [(float(start), float(end)) for *_, start, end in lines]
    most = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert 1 <= most <= 2, spans


def test_a_sweep_over_slurm_nodes_is_two_arrays_of_one_sweep(cli: Cli) -> None:
    config = cli.config("nodesweep", extra=SWEEP_RECIPE)  # a rank a node: 2 nodes train over gloo
    entry = f"{HARNESS / 'sweep_trainer.py'} {{config}}"
    done = cli.run(
        "submit", str(config), "--entry", entry, "--no-preflight", "--sweep", "slurm.nodes=1,2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = re.findall(
        r"^array (\d) \(point (\d) \(slurm\.nodes=(\d)\)\): submitted Slurm job (\d+); ",
        done.stdout, re.M,
    )  # fmt: skip
    assert [tuple(found[:3]) for found in said] == [("0", "0", "1"), ("1", "1", "2")], done.stdout
    arrays = [found[3] for found in said]
    assert len(set(arrays)) == 2  # two sbatch calls, two arrays
    points = points_of(cli, done.stdout)
    sweep = str(points[0]["sweep"])
    assert {str(p["sweep"]) for p in points} == {sweep}  # one sweep
    root = Path(str(points[0]["job_dir"])).parent.parent
    scripts = [(root / f"job-{a}.sbatch").read_text() for a in (0, 1)]
    for script, nodes, tasks in zip(scripts, ("1", "2"), ("0", "1"), strict=True):
        assert f"#SBATCH --nodes={nodes}\n" in script and f"#SBATCH --array={tasks}\n" in script
    ended = status_until(
        lambda: cli.status(sweep), lambda s: set(s["states"]) <= FINAL, timeout=300, pause=0.5
    )
    assert ended["states"] == {"COMPLETED": 2}, ended
    assert ended["scheduler_id"] == ",".join(arrays)
    assert [(p["point"], p["scheduler_id"], p["values"]) for p in ended["points"]] == [
        (0, f"{arrays[0]}_0", {"slurm.nodes": 1}), (1, f"{arrays[1]}_1", {"slurm.nodes": 2}),
    ]  # fmt: skip
    for index, (array, nodes) in enumerate(zip(arrays, ("1", "2"), strict=True)):
        job_dir = root / "points" / str(index)
        assert (job_dir / "exit_code").read_text() == "0\n"
        log = (job_dir / f"nodesweep_{array}_{index}.out").read_text()
        assert re.search(r"^\[rank0\]:point lr=0\.1 steps=5 ", log, re.M), log
        # the controller keeps an ended job MinJobAge (600 s): each task had its nodes
        assert cli.cluster.job_field(f"{array}_{index}", "NumNodes") == nodes


def resumed(job_dir: Path) -> tuple[int, str]:
    """The step the trainer of a job resumed from, and its checkpoint directory."""
    log = "".join(path.read_text() for path in job_dir.glob("*.out"))
    found = re.findall(r"^\[rank0\]:resume step=(\d+) checkpoint_dir=(\S+)$", log, re.M)
    assert len(found) == 1, log
    return int(found[0][0]), found[0][1]


def test_points_train_in_their_own_checkpoint_directories_and_a_rerun_says_where_it_resumes(
    cli: Cli,
) -> None:
    ck = cli.tmp / "ck"
    (ck / "epoch_0_step_4").mkdir(parents=True)  # an earlier run of the recipe got to step 4
    # every job at once, on shared nodes of this one host: each its own rendezvous port
    shared = "  exclusive: false\n  master_port: auto\n"
    config = cli.config(
        "ckptsweep", extra=shared + SWEEP_RECIPE + f"checkpoint:\n  checkpoint_dir: {ck}\n"
    )
    entry = f"{HARNESS / 'sweep_trainer.py'} {{config}}"
    done = cli.run(
        "submit", str(config), "--entry", entry, "--no-preflight",
        "--sweep", "optimizer.lr=0.01,0.02,0.03",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    points = points_of(cli, done.stdout)
    sweep = str(points[0]["sweep"])
    own = [ck / f"sweep-{sweep}" / "points" / str(i) for i in range(3)]
    assert f"  checkpoints    {ck}/sweep-{sweep}/points/INDEX, one per point\n" in done.stderr
    ended = status_until(
        lambda: cli.status(sweep), lambda s: set(s["states"]) <= FINAL, timeout=300, pause=0.5
    )
    assert ended["states"] == {"COMPLETED": 3}, ended
    # every point trained from step 0, each in its own directory, the recipe's untouched
    assert [resumed(Path(str(p["job_dir"]))) for p in points] == [(0, str(d)) for d in own]
    assert [sorted(p.name for p in d.iterdir()) for d in own] == [["epoch_0_step_5"]] * 3
    assert sorted(p.name for p in ck.iterdir()) == ["epoch_0_step_4", f"sweep-{sweep}"]
    # a plain rerun of point 0 resumes from its last step; one with another lr starts over
    first = str(points[0]["id"])
    plain = cli.run("rerun", first, "--no-preflight")
    assert plain.returncode == 0, plain.stderr
    assert (
        f"  checkpoints    {own[0]}: resumes from step 5 of job {first}'s checkpoints\n"
    ) in plain.stderr
    changed = cli.run("rerun", first, "--no-preflight", "--set", "optimizer.lr=0.5")
    assert changed.returncode == 0, changed.stderr
    again, other = (
        re.search(r"^recorded as job (\w+): ", d.stdout, re.M) for d in (plain, changed)
    )
    assert again and other, plain.stdout + changed.stdout
    fresh = own[0] / f"rerun-{other.group(1)}"
    assert (
        f"  checkpoints    {fresh}: starts from step 0, in a directory of its own (the rerun "
        f"changes optimizer.lr; --resume resumes job {first}'s)\n"
    ) in changed.stderr
    dirs = {}
    for job in (again.group(1), other.group(1)):
        shown = cli.wait_for(job, {"COMPLETED", "FAILED", "CANCELLED"})
        dirs[job] = Path(str(shown["job_dir"]))
        log = "".join(path.read_text() for path in dirs[job].glob("*.out"))
        assert shown["state"] == "COMPLETED", log
    assert resumed(dirs[again.group(1)]) == (5, str(own[0]))
    assert resumed(dirs[other.group(1)]) == (0, str(fresh))


def test_a_sweep_with_one_bad_point_submits_nothing(cli: Cli) -> None:
    config = sweep_config(cli, "badsweep")
    entry = f"{HARNESS / 'sweep_trainer.py'} {{config}}"
    before = cli.cluster.run("squeue", "-h", "-o", "%i").stdout
    done = cli.run(
        "submit", str(config), "--entry", entry, "--no-preflight",
        "--sweep", "step_scheduler.max_steps=[3, -1]",
    )  # fmt: skip
    assert done.returncode == 1
    assert "point 1 (step_scheduler.max_steps=-1)" in done.stderr
    assert cli.cluster.run("squeue", "-h", "-o", "%i").stdout == before
    assert not (cli.tmp / "jobs").exists()


def test_after_starts_a_job_only_once_the_other_ended(cli: Cli) -> None:
    gate = cli.tmp / "first.gate"
    first = cli.submit(cli.config("first"), 1, 0, 0, gate=gate)
    cli.wait_for(first, {"RUNNING"})
    second = cli.submit(cli.config("second"), 1, 0, 0, "--after", first)
    waiting = cli.wait_for_reason(second, "Dependency")
    assert (waiting["state"], waiting["reason"]) == ("PENDING", "Dependency")
    gate.touch()
    assert cli.wait_for(first, {"COMPLETED", "FAILED"})["state"] == "COMPLETED"
    assert cli.wait_for(second, {"COMPLETED", "FAILED"})["state"] == "COMPLETED"


def test_cancel_of_a_sweep_leaves_nothing_in_the_queue(cli: Cli) -> None:
    gate = cli.tmp / "never.gate"  # the tasks wait for it: cancel finds them running
    config = sweep_config(cli, "cancelsweep")
    entry = f"{HARNESS / 'sweep_trainer.py'} {{config}} {gate}"
    done = cli.run(
        "submit", str(config), "--entry", entry, "--no-preflight",
        "--sweep", "optimizer.lr=0.01,0.02,0.03", "--max-parallel", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    points = points_of(cli, done.stdout)
    cli.wait_for(str(points[0]["id"]), {"RUNNING"})
    array = str(points[0]["scheduler_id"]).partition("_")[0]
    cancelled = cli.run("cancel", str(points[0]["sweep"]))
    assert cancelled.returncode == 0, cancelled.stderr
    queue = cli.cluster.run("squeue", "-h", "-r", "-o", "%i").stdout.split()
    deadline = time.monotonic() + 120
    while any(i.startswith(array + "_") or i == array for i in queue):
        assert time.monotonic() < deadline, queue
        time.sleep(0.5)
        queue = cli.cluster.run("squeue", "-h", "-r", "-o", "%i").stdout.split()
    states = {p["state"] for p in cli.status(str(points[0]["sweep"]))["points"]}
    assert states == {"CANCELLED"}
