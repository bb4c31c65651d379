"""A sweep's diagnostics: each problem once, with the points that have it and the values
they share (none when every point has it)."""

from __future__ import annotations

from pathlib import Path

from automodel_launch import api
from automodel_launch.diagnostics import Diagnostic, Severity
from automodel_launch.plan.plan import JobPlan, _at_points
from automodel_launch.plan.sweep import parse_axis, points
from tests.plan.test_plan_cli import RECIPE, SLURM


def planned(tmp_path: Path, *sweeps: str) -> JobPlan:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    return api.plan(tmp_path / "r.yaml", sweep=list(sweeps), config=api.settings(check_paths=False))


def test_a_problem_of_several_points_is_shown_once_with_their_shared_values(
    tmp_path: Path,
) -> None:
    plan = planned(tmp_path, "optimizer.lr=1,2", "step_scheduler.max_steps=[0, 3]")
    found = [d for d in plan.report.diagnostics if d.code == "size-not-positive"]
    assert [(d.origin.label if d.origin else None, d.message) for d in found] == [
        (
            "--sweep step_scheduler.max_steps=0",
            "points 0, 2 (step_scheduler.max_steps=0): max_steps 0 is not more than 0: "
            "AutoModel 0.7.0's StepScheduler stops the job at startup",
        )
    ]


def test_a_problem_of_many_points_names_the_first_eight(tmp_path: Path) -> None:
    lrs = ",".join(str(i) for i in range(1, 11))
    plan = planned(tmp_path, f"optimizer.lr={lrs}", "step_scheduler.max_steps=[0, 3]")
    (found,) = [d for d in plan.report.diagnostics if d.code == "size-not-positive"]
    assert found.message.startswith(
        "points 0, 2, 4, 6, 8, 10, 12, 14 and 2 more (step_scheduler.max_steps=0): max_steps 0 "
    )


def test_points_that_share_no_value_are_named_alone() -> None:
    made = points([parse_axis("a=1,2"), parse_axis("b=3,4")])
    problem = Diagnostic(Severity.ERROR, "x", "a", 0, 0, "wrong", None)
    assert _at_points(problem, [made[1], made[2]]).message == "points 1, 2: wrong"
    assert _at_points(problem, [made[1], made[3]]).message == "points 1, 3 (b=4): wrong"
    assert _at_points(problem, [made[3]]).message == "point 3 (a=2, b=4): wrong"


def test_a_problem_every_point_has_names_no_point(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    config = api.settings(check_paths=False)
    plan = api.plan(tmp_path / "r.yaml", sweep=["optimizer.lr=1,2,3"],
                    sets=["step_scheduler.max_steps=0"], config=config)  # fmt: skip
    (found,) = [d for d in plan.report.diagnostics if d.code == "size-not-positive"]
    assert found.message.startswith("max_steps 0 is not more than 0")
    assert found.origin is not None and found.origin.label == "--set step_scheduler.max_steps=0"
