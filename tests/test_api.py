"""automodel_launch/api.py: the commands as functions that return data."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.errors import LaunchError
from automodel_launch.plan.sweep import SweepError
from tests.plan.test_plan_cli import RECIPE, SLURM, fake


@pytest.fixture
def recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake(tmp_path / "bin", "sbatch", 'echo "$@" >> "$0.calls"\necho 4242\n')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{__import__('os').environ['PATH']}")
    path = tmp_path / "r.yaml"
    path.write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n" + RECIPE)
    return path


def test_a_sweep_from_a_notebook(recipe: Path) -> None:
    config = api.settings(check_paths=False)
    plan = api.plan(recipe, sweep={"optimizer.lr": [1e-5, 1e-4]}, max_parallel=1, config=config)
    assert plan.report.ok and len(plan.jobs) == 2
    assert "#SBATCH --array=0-1%1\n" in plan.artifact
    done = api.submit(plan)
    assert [m.scheduler_id for m in done.manifests] == ["4242_0", "4242_1"]
    assert (recipe.parent / "bin" / "sbatch.calls").read_text() == (
        "--export=ALL --parsable job.sbatch\n"
    )
    listed = api.jobs(sweep=done.sweep)
    assert [(j["point"], j["values"]) for j in listed] == [
        (0, {"optimizer.lr": 1e-5}), (1, {"optimizer.lr": 1e-4}),
    ]  # fmt: skip


def test_a_plan_with_errors_is_returned_unrendered_and_not_submitted(recipe: Path) -> None:
    plan = api.plan(recipe, sets={"step_scheduler.max_steps": 0},
                    config=api.settings(check_paths=False))  # fmt: skip
    assert [d.code for d in plan.report.diagnostics if d.is_error] == ["size-not-positive"]
    assert plan.root is None and plan.artifact == ""
    with pytest.raises(LaunchError, match="was not rendered: it has errors"):
        api.submit(plan)
    assert not (recipe.parent / "bin" / "sbatch.calls").exists()


def test_sweep_options_are_checked_as_on_the_command_line(recipe: Path) -> None:
    with pytest.raises(SweepError, match=r"optimizer\.lr is given to both --set and --sweep"):
        api.plan(recipe, sweep=["optimizer.lr=1,2"], sets=["optimizer.lr=3"])
