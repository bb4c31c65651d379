"""A sweep's points ranked, the best one, and the scaling over node counts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.progress.compare import best, default_sort, ranked, scaling, sort_problem
from automodel_launch.progress.read import Progress
from tests.support.fake_slurm import FakeSlurm


def point(index: int, values: dict[str, Any], progress: Progress | None,
          **details: Any) -> JobStatus:  # fmt: skip
    manifest = Manifest(
        id=f"{index + 1:012x}", name="sw", launcher="slurm", job_dir=f"/jobs/sw/points/{index}",
        submitted_at="2026-12-07T10:00:00Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch",), artifacts=(), scheduler_id=f"9_{index}",
        sweep="abcdef012345", point=index, values=values, details=details,
    )  # fmt: skip
    return JobStatus(manifest, "COMPLETED", progress=progress)


def test_points_rank_by_validation_loss_and_the_lowest_is_best(tmp_path: Path) -> None:
    points = [
        point(0, {"optimizer.lr": 0.1}, Progress(step=20, loss=1.1, best_val_loss=1.57)),
        point(1, {"optimizer.lr": 0.2}, Progress(step=20, loss=1.0, best_val_loss=1.24)),
        point(2, {"optimizer.lr": 0.3}, Progress(step=18, loss=0.9, best_val_loss=1.31)),
        point(3, {"optimizer.lr": 0.4}, None),
    ]
    assert default_sort(points) == "val_loss"
    assert [p.manifest.point for p in ranked(points, "val_loss")] == [1, 2, 0, 3]
    assert [p.manifest.point for p in ranked(points, "loss")] == [2, 1, 0, 3]
    assert [p.manifest.point for p in ranked(points, "step")] == [0, 1, 2, 3]
    assert [p.manifest.point for p in ranked(points, "optimizer.lr")] == [0, 1, 2, 3]
    best_point = best(points)
    assert best_point is not None and best_point.manifest.point == 1
    assert sort_problem("optimizer.lr", points) is None
    assert sort_problem("colour", points) == (
        "sort by one of point, state, step, loss, val_loss, tps_per_gpu, elapsed, optimizer.lr"
    )


def test_without_validation_the_lowest_training_loss_is_best_and_a_nan_is_last() -> None:
    points = [point(0, {}, Progress(step=5, loss=float("nan"))), point(1, {}, Progress(loss=2.0))]
    assert default_sort(points) == "point"
    assert [p.manifest.point for p in ranked(points, "loss")] == [1, 0]
    found = best(points)
    assert found is not None and found.manifest.point == 1
    assert best([point(0, {}, None)]) is None


def test_scaling_against_the_point_on_the_fewest_nodes() -> None:
    points = [
        point(0, {"slurm.nodes": 2}, Progress(tps=1800.0, tps_per_gpu=900.0), nodes=2),
        point(1, {"slurm.nodes": 1}, Progress(tps=1000.0, tps_per_gpu=1000.0), nodes=1),
        point(2, {"slurm.nodes": 4}, None, nodes=4),
    ]
    rows = scaling(points)
    assert rows is not None
    assert [r.to_json() for r in rows] == [
        {"point": 1, "nodes": 1, "tps": 1000.0, "tps_per_gpu": 1000.0, "efficiency": 1.0},
        {"point": 0, "nodes": 2, "tps": 1800.0, "tps_per_gpu": 900.0, "efficiency": 0.9},
        {"point": 2, "nodes": 4, "tps": None, "tps_per_gpu": None, "efficiency": None},
    ]
    same = [point(i, {}, Progress(tps_per_gpu=1.0), nodes=1) for i in range(2)]
    assert scaling(same) is None


def test_the_command_ranks_marks_and_refuses_a_key_it_cannot_sort_by(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    from tests.hostile.tokens import make
    from tests.jobs.sweep_helpers import SWEEP
    from tests.progress.test_plot import cli, logged_sweep

    points = logged_sweep(fake_slurm, tmp_path)
    shown = cli(fake_slurm, "status", SWEEP, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert re.findall(r"^(\*| ) +(\d) +optimizer\.lr=", shown.stdout, re.M) == [
        ("*", "1"), (" ", "0")
    ]  # fmt: skip
    by_point = cli(fake_slurm, "status", SWEEP, "--sort", "point", "--format", "json",
                   cwd=tmp_path)  # fmt: skip
    assert json.loads(by_point.stdout)["order"] == [0, 1]
    token = make("hugging-face", 34).value
    wrong = cli(fake_slurm, "status", SWEEP, "--sort", token, cwd=tmp_path)
    assert wrong.returncode == 2
    assert wrong.stderr.startswith(
        "error: --sort '***': sort by one of point, state, step, loss, val_loss, tps_per_gpu, "
        "elapsed, optimizer.lr, peft.dim"
    ), wrong.stderr
    assert token not in wrong.stderr + wrong.stdout
    one = cli(fake_slurm, "status", points[0].id, "--sort", "loss", cwd=tmp_path)
    assert one.returncode == 2
    assert one.stderr.startswith(
        f"error: --sort: {points[0].id} is one job; --sort orders a sweep's points"
    ), one.stderr
