"""automodel_launch/api.py: the commands as functions that return data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from automodel_launch import api
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.cli.common import MaxParallelOption
from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.jobs.listing import list_jobs
from automodel_launch.jobs.status import JobError, JobStatus
from automodel_launch.jobs.sweeps import Sweep, SweepStatus
from automodel_launch.plan.sweep import MAX_POINTS, SweepError
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.snapshot.test_submit_snapshot import recipe as recipe_in
from tests.snapshot.test_submit_snapshot import tree  # noqa: F401  (the fixture)
from tests.support.fake_slurm import FakeSlurm


@pytest.fixture
def recipe(fake_slurm: FakeSlurm, tmp_path: Path) -> Path:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    path = tmp_path / "r.yaml"
    path.write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n" + RECIPE)
    return path


def test_a_sweep_from_a_notebook(fake_slurm: FakeSlurm, recipe: Path) -> None:
    config = api.settings(check_paths=False)
    plan = api.plan(recipe, sweep={"optimizer.lr": [1e-5, 1e-4]}, max_parallel=1, config=config)
    assert plan.report.ok and len(plan.jobs) == 2
    assert "#SBATCH --array=0-1%1\n" in plan.artifact
    done = api.submit(plan)
    assert [m.scheduler_id for m in done.manifests] == ["4242_0", "4242_1"]
    assert fake_slurm.argv() == [["sbatch", "--export=ALL", "--parsable", "job.sbatch"]]
    listed = api.jobs(sweep=done.sweep)
    assert [(j["point"], j["values"]) for j in listed] == [
        (0, {"optimizer.lr": 1e-5}), (1, {"optimizer.lr": 1e-4}),
    ]  # fmt: skip


def test_a_plan_with_errors_is_returned_unrendered_and_not_submitted(
    fake_slurm: FakeSlurm, recipe: Path
) -> None:
    plan = api.plan(recipe, sets={"step_scheduler.max_steps": 0},
                    config=api.settings(check_paths=False))  # fmt: skip
    assert [d.code for d in plan.report.diagnostics if d.is_error] == ["size-not-positive"]
    assert plan.root is None and plan.artifact == ""
    with pytest.raises(LaunchError) as refused:
        api.submit(plan)
    assert str(refused.value) == (
        f"{recipe} cannot be submitted: step_scheduler.max_steps: max_steps 0 is not more than "
        "0: AutoModel 0.7.0's StepScheduler stops the job at startup"
    )
    assert refused.value.hint == plan.report.diagnostics[0].hint is not None
    assert fake_slurm.calls == []


def test_a_plan_is_checked_for_submitting_as_the_command_line_checks_it(
    fake_slurm: FakeSlurm, recipe: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recipe.write_text(recipe.read_text().replace(
        "slurm:\n", "slurm:\n  env_vars:\n    DATA: ${API_UNSET_HERE}\n"))  # fmt: skip
    plan = api.plan(recipe, config=api.settings(check_paths=False))
    assert [(d.severity, d.code) for d in plan.report.diagnostics] == [("warning", "env-unset")]
    with pytest.raises(LaunchError) as refused:
        api.submit(plan)  # submitting, it is an error: the job would start without it
    assert str(refused.value) == (
        f"{recipe} cannot be submitted: slurm.env_vars.DATA: ${{API_UNSET_HERE}} is not set here"
    )
    assert refused.value.hint == "export API_UNSET_HERE before the job starts"
    assert _cli("submit", str(recipe), "--no-preflight", "--no-check-paths") == 1
    assert "error[env-unset] slurm.env_vars.DATA: ${API_UNSET_HERE} is not set here" in (
        capsys.readouterr().err)  # fmt: skip
    assert fake_slurm.calls == []


def test_sweep_options_are_checked_as_on_the_command_line(recipe: Path) -> None:
    with pytest.raises(SweepError, match=r"optimizer\.lr is given to both --set and --sweep"):
        api.plan(recipe, sweep=["optimizer.lr=1,2"], sets=["optimizer.lr=3"])


# ------------------------------------------------------------------ jobs, status, cancel
HALF_HOUR = "2026-11-30T10:00:00|2026-11-30T10:30:00"


@pytest.fixture
def recorded(fake_slurm: FakeSlurm, tmp_path: Path) -> FakeSlurm:
    """A sweep of 3 Slurm points (point 0 running, the others finished) and a local run
    that ended with exit status 3."""
    sweep(tmp_path / "jobs", 3)
    local = job(tmp_path / "jobs" / "local", "b00000000000", None, name="local",
                launcher="interactive", submitted_at="2026-11-29T16:49:19Z")  # fmt: skip
    (Path(local.job_dir) / "exit_code").write_text("3\n")
    record(local)
    fake_slurm.squeue({"job_id": 101, "array_job_id": 100, "array_task_id": 0,
                       "job_state": "RUNNING", "state_reason": "None"})  # fmt: skip
    fake_slurm.answer("sacct", f"100_1|COMPLETED|0:0|{HALF_HOUR}|n1||\n"
                      f"100_2|FAILED|1:0|{HALF_HOUR}|n1||\n")  # fmt: skip
    return fake_slurm


def test_the_job_list_and_its_rows(recorded: FakeSlurm) -> None:
    listed = api.job_list(limit=1)  # newest first: the sweep's points, last point first
    assert [(s.manifest.id, s.state) for s in listed.jobs] == [
        ("abcdef000002", "FAILED"), ("abcdef000001", "COMPLETED"), ("abcdef000000", "RUNNING"),
    ]  # fmt: skip
    assert (listed.rows, listed.left_out, listed.recorded, listed.problems) == (2, 1, True, [])
    assert [getattr(row, "id", None) for row in listed.table] == [SWEEP]
    everything = list_jobs()  # every row, unless a limit is given
    assert (len(everything.jobs), everything.rows, everything.left_out) == (4, 2, 0)
    assert everything.jobs[-1].manifest.id == "b00000000000"
    assert (everything.jobs[-1].state, everything.jobs[-1].exit_code) == ("FAILED", 3)
    failed = api.job_list(state="FAILED", limit=1)
    assert [s.manifest.id for s in failed.jobs] == ["abcdef000002"]
    assert (failed.rows, failed.left_out) == (2, 1)  # the sweep's row, then the local run
    assert api.job_list(state="PENDING").jobs == [] and api.job_list(state="PENDING").recorded
    assert not api.job_list(launcher="skypilot").recorded
    assert [s.manifest.id for s in api.job_list(launcher="interactive").jobs] == ["b00000000000"]
    assert api.job_list(since="1s").jobs == []  # submitted in 2026-11
    assert api.job_list(since="1s", limit=5).jobs == []
    running = api.job_list(state="RUNNING", limit=1)
    assert ([s.manifest.id for s in running.jobs], running.rows) == (["abcdef000000"], 1)
    assert len(api.job_list(sweep="lr").jobs) == 3 and api.job_list(sweep="nothing").jobs == []
    pending = api.job_list(sweep="lr", state="PENDING")
    assert (pending.jobs, pending.rows, pending.recorded) == ([], 0, True)
    with pytest.raises(UsageError, match="since: 'two days' is not a time span like 2d"):
        api.job_list(since="two days")
    assert [j["state"] for j in api.jobs(state="FAILED")] == ["FAILED", "FAILED"]


def test_status_of_a_job_and_of_a_sweep(recorded: FakeSlurm) -> None:
    local = api.status("local")
    assert isinstance(local, JobStatus) and (local.state, local.exit_code) == ("FAILED", 3)
    found = api.find(SWEEP[:6])
    assert isinstance(found, Sweep) and [m.point for m in found.points] == [0, 1, 2]
    shown = api.status(found)
    assert shown.summary == "3 points: 1 RUNNING, 1 COMPLETED, 1 FAILED"
    assert [c.split()[0] for c in recorded.calls] == ["squeue", "sacct"]  # one query each
    assert api.status("100").id == SWEEP  # type: ignore[union-attr]
    with pytest.raises(JobError, match="no job or sweep is 'nothing'"):
        api.status("nothing")


def test_one_job_for_logs(recorded: FakeSlurm) -> None:
    assert api.job("local").id == "b00000000000"
    assert api.job(SWEEP, point=2).scheduler_id == "100_2"
    with pytest.raises(JobError) as named:
        api.job(SWEEP)
    assert str(named.value) == (
        f"'{SWEEP}' is sweep {SWEEP} of 3 points: give one with --point I (its points are 0 to 2)"
    )
    with pytest.raises(JobError, match="'local' is job b00000000000, not a sweep: --point is"):
        api.job("local", point=0)
    with pytest.raises(JobError, match=f"sweep {SWEEP} has no point 5: its points are 0 to 2"):
        api.job(SWEEP, point=5)


def test_cancel_of_a_sweep_is_one_scancel_and_of_an_ended_job_nothing(
    recorded: FakeSlurm,
) -> None:
    recorded.tool("scancel", f"/bin/cp {recorded.root}/gone.json {recorded.root}/squeue.out")
    (recorded.root / "gone.json").write_text('{"jobs": []}')
    recorded.answer("sacct", f"100_0|CANCELLED by 0|0:15|||||\n100_1|COMPLETED|0:0|{HALF_HOUR}|n1"
                    f"||\n100_2|FAILED|1:0|{HALF_HOUR}|n1||\n")  # fmt: skip
    done = api.cancel(SWEEP)
    assert isinstance(done, SweepStatus)
    assert done.summary == "3 points: 1 COMPLETED, 1 FAILED, 1 CANCELLED"
    assert recorded.called("scancel") == ["scancel -- 100_0"]
    ended = api.cancel("local")
    assert isinstance(ended, JobStatus) and ended.state == "FAILED"
    assert not (Path(ended.manifest.job_dir) / "cancelled").exists()


# ------------------------------------------------------------------ submit a plan: as `submit`
def _cli(*args: str) -> int:
    return errors.run(lambda: run_app(list(args)))


def _as_submitted(job: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """A job's code record and script, its own directory written JOB."""
    job_dir = job["job_dir"]
    script = (Path(job_dir) / "job.sbatch").read_text().replace(job_dir, "JOB")
    code = job["code"]
    if code is not None:
        code = {k: v.replace(job_dir, "JOB") if isinstance(v, str) else v for k, v in code.items()}
    return code, script


@pytest.mark.parametrize("snapshot", [True, False])
def test_a_plan_is_submitted_as_the_command_line_submits_its_recipe(
    tree: Path,  # noqa: F811
    snapshot: bool,
) -> None:
    path = recipe_in(tree.parent)
    made = api.plan(path, sets={"optimizer.lr": 3e-5}, snapshot=snapshot,
                    config=api.settings(check_paths=False))  # fmt: skip
    assert made.snapshot is None  # a plan to look at takes nothing yet
    done = api.submit(made)
    no_snapshot = () if snapshot else ("--no-snapshot",)
    assert _cli("submit", str(path), "--set", "optimizer.lr=3e-5", "--no-preflight",
                "--no-check-paths", *no_snapshot) == 0  # fmt: skip
    by_cli, by_api = api.jobs()  # newest first
    assert by_api["id"] == done.manifests[0].id
    code, script = _as_submitted(by_api)
    assert (code, script) == _as_submitted(by_cli)
    where = "JOB/code" if snapshot else str(tree)
    assert f"export PYTHONPATH={where}${{PYTHONPATH:+:$PYTHONPATH}}\n" in script
    assert Path(by_api["job_dir"]).name.startswith("llm_finetune_")  # claimed, as submit does
    if snapshot:
        assert code is not None and (code["root"], code["snapshot"]) == (str(tree), "JOB/code")
        assert (Path(by_api["job_dir"]) / "code/mytrain.py").is_file()
    else:
        assert code is None


def test_a_plan_is_submitted_from_the_text_it_was_checked_from(recipe: Path) -> None:
    made = api.plan(recipe, config=api.settings(check_paths=False))
    recipe.write_text(recipe.read_text().replace("max_steps: 2", "max_steps: 0"))
    done = api.submit(made)
    assert done.plan is not made and made.to_submit is not None and made.root is not None
    assert done.plan.to_submit is None  # planned to be submitted: it is as it is
    assert "  max_steps: 2\n" in (Path(done.manifests[0].job_dir) / "job_config.yaml").read_text()
    assert not made.root.exists()  # the plan shown claimed nothing


# ------------------------------------------------------------------ --max-parallel
@pytest.mark.parametrize("limit", [0, -3, MAX_POINTS + 1])
def test_max_parallel_is_one_to_the_most_points_a_sweep_has(
    fake_slurm: FakeSlurm, recipe: Path, limit: int, capsys: pytest.CaptureFixture[str]
) -> None:
    said = (f"--max-parallel {limit}: give 1 to 10,000, the most points of the sweep that run "
            "at once")  # fmt: skip
    with pytest.raises(UsageError) as refused:
        api.plan(recipe, sweep=["optimizer.lr=1e-5,1e-4"], max_parallel=limit)
    assert str(refused.value) == said
    for command in ("render", "submit"):
        assert _cli(command, str(recipe), "--sweep", "optimizer.lr=1e-5,1e-4", "--no-check-paths",
                    "--max-parallel", str(limit)) == 2  # fmt: skip
        assert capsys.readouterr().err == f"error: {said}\n"
    assert fake_slurm.calls == []


def test_a_sweep_of_any_sequence_of_values(recipe: Path) -> None:
    made = api.plan(recipe, sweep={"step_scheduler.max_steps": range(2, 4)},
                    config=api.settings(check_paths=False))  # fmt: skip
    assert [job.point.label for job in made.jobs] == [
        "step_scheduler.max_steps=2", "step_scheduler.max_steps=3"]  # fmt: skip


def test_max_parallel_at_its_bounds_is_taken(recipe: Path) -> None:
    config = api.settings(check_paths=False)
    for limit in (1, MAX_POINTS):
        made = api.plan(recipe, sweep=["optimizer.lr=1e-5,1e-4"], max_parallel=limit, config=config)
        assert f"#SBATCH --array=0-1%{limit}\n" in made.artifact
    assert "1 to 10,000" in (MaxParallelOption.__metadata__[0].help or "")


# ------------------------------------------------------------------ jobs' filters
STATES_SAID = "use one of PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, " \
    "REQUEUED, UNKNOWN"  # fmt: skip


@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [("state", "bogus", f"'bogus' is no job state: {STATES_SAID}"),
     ("launcher", "k8s", "'k8s' is no launcher: use slurm, skypilot or local"),
     ("since", "two days", "'two days' is not a time span like 2d, 12h, 30m, 1w")],
)  # fmt: skip
def test_a_filter_no_job_can_pass_is_refused_as_jobs_refuses_it(
    recorded: FakeSlurm, option: str, value: str, reason: str,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    for listed in (api.jobs, api.job_list):
        with pytest.raises(UsageError) as refused:
            listed(**{option: value})
        assert str(refused.value) == f"{option}: {reason}"
    assert _cli("jobs", f"--{option}", value) == 2
    boxed = capsys.readouterr().err  # typer's box of the error: its words, not its lines
    assert f"Invalid value for --{option}: {reason} " in " ".join(boxed.replace("│", " ").split())


def test_filters_are_read_as_jobs_reads_them(recorded: FakeSlurm) -> None:
    assert [j["id"] for j in api.jobs(state="failed")] == ["abcdef000002", "b00000000000"]
    assert [j["id"] for j in api.jobs(launcher="local")] == ["b00000000000"]
    assert api.job_list(limit=0).rows == 2
    with pytest.raises(UsageError) as refused:
        api.job_list(limit=-1)
    assert str(refused.value) == "limit is at least 0, not -1"


def test_the_package_root_exports_the_api_and_loads_it_only_when_asked() -> None:
    import subprocess
    import sys

    script = (
        "import sys, automodel_launch as root\n"
        "print('automodel_launch.api' in sys.modules)\n"
        "from automodel_launch import submit, status, rerun\n"
        "from automodel_launch import api\n"
        "print((submit, status, rerun) == (api.submit, api.status, api.rerun))\n"
        "try:\n"
        "    root.nosuch\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.splitlines() == [
        "False",
        "True",
        "module 'automodel_launch' has no attribute 'nosuch'",
    ]


def test_the_root_names_stay_the_apis_once_every_module_is_loaded() -> None:
    """No module of the package is named after a function the root exports: one loaded
    (a submit handed a job over) would shadow it for the rest of the process."""
    import importlib
    import pkgutil

    import automodel_launch
    from automodel_launch import api

    modules = {m.name for m in pkgutil.iter_modules(automodel_launch.__path__)}
    assert modules.isdisjoint(automodel_launch.API)
    importlib.import_module("automodel_launch.handover")
    importlib.import_module("automodel_launch.launchers.slurm.submit")
    from automodel_launch import status, submit

    assert (submit, status) == (api.submit, api.status)
