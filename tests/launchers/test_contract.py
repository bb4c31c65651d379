"""The contract every launcher keeps, asked of each the same way: render a job from a
recipe, submit it, ask its status until it ends, read its logs, cancel a running one,
submit a sweep, and run one again after a preemption. Each launcher in the table runs it,
the toy scheduler's too (a launcher of the tests, plugged in with its one row): what runs
the jobs is in :mod:`tests.launchers.schedulers`.

What a launcher cannot do (its flags in the table: job arrays, dependencies; running a
job again) is asserted as what the user sees instead: the sweep fed by the driver, the
refusal and its words.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.sweeps import Sweep
from automodel_launch.launchers import LAUNCHERS
from automodel_launch.layout import JOB_CONFIG, MANIFEST
from tests.launchers.schedulers import ENTRY, RECIPE, WORK, Scheduler, release
from tests.launchers.schedulers import scheduler as scheduler  # the fixture

Cli = Callable[..., tuple[int, str, str]]
WAIT_SECONDS = 60
"""How long a job may take to reach a state on a busy machine (the tests wait for states,
never for a time)."""


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """The command line, in this process: its exit code, output and errors."""

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = errors.run(lambda: run_app(list(args)))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def recipe(tmp_path: Path, scheduler: Scheduler, more: str = "") -> Path:
    path = tmp_path / "recipe.yaml"
    path.write_text(RECIPE + scheduler.section() + more)
    return path


def submit(cli: Cli, scheduler: Scheduler, path: Path, where: str, *options: str) -> str:
    """``submit`` as a user types it (``--detach`` where the launcher's jobs are not
    detached anyway); the job's or the sweep's id."""
    detach = () if LAUNCHERS[scheduler.name].detached else ("--detach",)
    code, out, err = cli(
        "submit", str(path), "--entry", ENTRY, "--nproc-per-node", "1", "--no-preflight",
        "--no-check-paths", "--job-dir", str(path.parent / where), *detach, *options,
    )  # fmt: skip
    assert code == 0, err
    last = out.splitlines()[-1]
    assert last.startswith(("recorded as job ", "recorded 2 points as sweep ")), out
    return last.split(": automodel-launch status ")[1]


def wait(job: str, ready: Callable[[JobStatus], bool]) -> JobStatus:
    deadline = time.monotonic() + WAIT_SECONDS
    shown = api.status(api.job(job))
    while not ready(shown) and time.monotonic() < deadline:
        time.sleep(0.1)
        shown = api.status(api.job(job))
    return shown


def sweep_of(sweep_id: str) -> Sweep:
    found = api.find(sweep_id)
    assert isinstance(found, Sweep)
    return found


def running(status: JobStatus) -> bool:
    return status.state == "RUNNING"


def ended(status: JobStatus) -> bool:
    return status.finished


# ------------------------------------------------------------------ render
def test_render_prints_the_launchers_artifact(
    scheduler: Scheduler, cli: Cli, tmp_path: Path
) -> None:
    launcher = LAUNCHERS[scheduler.name]
    path = recipe(tmp_path, scheduler)
    code, out, err = cli("render", str(path), "--entry", ENTRY, "--nproc-per-node", "1")
    assert code == 0, err
    assert str(WORK) in out  # the entry each rank runs
    plan = api.plan(path, entry=ENTRY, config=api.settings(check_paths=False))
    assert plan.artifact == out  # what a notebook gets is what the command prints
    assert launcher.artifact in plan.files and JOB_CONFIG in plan.files
    job_config = plan.files[JOB_CONFIG]
    assert "lr: 1.0e-5" in job_config and f"{scheduler.name}:" not in job_config
    assert plan.document is not None and plan.document.launcher == scheduler.name


def test_a_mistake_in_the_launchers_section_is_a_diagnostic_at_its_line(
    scheduler: Scheduler, cli: Cli, tmp_path: Path
) -> None:
    launcher = LAUNCHERS[scheduler.name]
    section = scheduler.section()
    if launcher.section_model is None:  # chosen by no section: nothing there to mistype
        assert section == ""
        return
    key = section.splitlines()[1].split(":")[0].strip()
    assert key in launcher.section_model.model_fields
    path = recipe(tmp_path, scheduler, f"  {key}x: 1\n")
    line = len((RECIPE + section).splitlines()) + 1
    code, out, _ = cli("validate", str(path), "--no-check-paths")
    assert code == 1
    lines = out.splitlines()
    said = lines.index(
        f"{path}:{line}:3: error[unknown-key] {scheduler.name}.{key}x: unknown key '{key}x' in "
        f"{scheduler.name}"
    )
    assert lines[said + 1] == f"    hint: did you mean '{key}'?"


# ------------------------------------------------------------------ submit, status, logs
@pytest.mark.parametrize("code", [0, 3])
def test_a_job_is_submitted_followed_to_its_end_and_its_log_read(
    scheduler: Scheduler, cli: Cli, tmp_path: Path, code: int
) -> None:
    launcher = LAUNCHERS[scheduler.name]
    job = submit(cli, scheduler, recipe(tmp_path, scheduler), "one")
    manifest = api.job(job)
    assert isinstance(manifest, Manifest)
    assert manifest.launcher == scheduler.name
    assert manifest.scheduler_id is not None and launcher.job_id.fullmatch(manifest.scheduler_id)
    job_dir = Path(manifest.job_dir)
    assert job_dir == tmp_path / "one"
    assert {launcher.artifact, JOB_CONFIG, MANIFEST} <= {p.name for p in job_dir.iterdir()}
    assert [j["id"] for j in api.jobs(launcher=scheduler.name)] == [job]

    scheduler.runs([manifest])
    assert wait(job, running).state == "RUNNING"
    scheduler.end([manifest], code)
    done = wait(job, ended)
    assert (done.state, done.exit_code) == (
        "COMPLETED" if code == 0 else "FAILED", scheduler.status_code(code)
    )  # fmt: skip
    said = f"started with lr 1.0e-5\nended with {code}\n"
    shown, out, _ = cli("logs", job)
    assert (shown, out) == (scheduler.logs_code(code, follow=False), said)
    followed, out, _ = cli("logs", job, "--follow")
    assert (followed, out) == (scheduler.logs_code(code, follow=True), said)


# ------------------------------------------------------------------ cancel
def test_a_running_job_is_cancelled(scheduler: Scheduler, cli: Cli, tmp_path: Path) -> None:
    job = submit(cli, scheduler, recipe(tmp_path, scheduler), "one")
    manifest = api.job(job)
    scheduler.runs([manifest])
    assert wait(job, running).state == "RUNNING"
    code, out, err = cli("cancel", job)
    assert code == 0, err
    assert out.splitlines()[-1] == "state: CANCELLED"
    after = api.status(manifest)
    assert (after.state, after.finished) == ("CANCELLED", True)
    if scheduler.real:  # nothing of the job is left to see its release and end
        release(manifest, 0)
        time.sleep(1)
        assert "ended with" not in Path(str(after.log_path)).read_text()
        assert api.status(manifest).state == "CANCELLED"


# ------------------------------------------------------------------ sweeps
def test_a_sweep_runs_each_point_with_its_values(
    scheduler: Scheduler, cli: Cli, tmp_path: Path
) -> None:
    launcher = LAUNCHERS[scheduler.name]
    sweep_id = submit(
        cli, scheduler, recipe(tmp_path, scheduler), "sweep", "--sweep", "optimizer.lr=0.1,0.2",
        "--max-parallel", "2",
    )  # fmt: skip
    points = list(sweep_of(sweep_id).points)
    assert [p.values for p in points] == [{"optimizer.lr": 0.1}, {"optimizer.lr": 0.2}]
    deadline = time.monotonic() + WAIT_SECONDS
    while any(p.scheduler_id is None for p in points) and time.monotonic() < deadline:
        time.sleep(0.1)  # a driver starts them
        points = list(sweep_of(sweep_id).points)
    ids = [str(p.scheduler_id) for p in points]
    if launcher.arrays:  # one job array: its tasks are the points
        assert ids == [f"{ids[0].split('_')[0]}_{index}" for index in range(2)]
    else:  # a job each, handed over one by one
        assert len(set(ids)) == 2 and all(launcher.job_id.fullmatch(i) for i in ids)
    scheduler.runs(points)
    scheduler.end(points, 0)
    deadline = time.monotonic() + WAIT_SECONDS
    shown = api.status(sweep_of(sweep_id))
    while not all(p.finished for p in shown.points) and time.monotonic() < deadline:
        time.sleep(0.1)
        shown = api.status(sweep_of(sweep_id))
    assert [p.state for p in shown.points] == ["COMPLETED", "COMPLETED"]
    for point, lr in zip(points, ("0.1", "0.2"), strict=True):
        code, out, _ = cli("logs", point.id)
        assert (code, out) == (0, f"started with lr {lr}\nended with 0\n")


# ------------------------------------------------------------------ requeue
def test_a_preempted_job_runs_again_where_the_scheduler_requeues(
    scheduler: Scheduler, cli: Cli, tmp_path: Path
) -> None:
    if scheduler.requeue is None:
        path = recipe(tmp_path, scheduler, "fault_tolerance:\n  requeue: true\n")
        code, _, err = cli("submit", str(path), "--entry", ENTRY, "--no-preflight")
        assert code != 0
        where = f"next to {scheduler.name}:" if scheduler.name != "interactive" else (
            "without a launcher")  # fmt: skip
        assert f"fault_tolerance works only with Slurm, not {where}" in err
        return
    job = submit(cli, scheduler, recipe(tmp_path, scheduler, scheduler.requeue), "again")
    manifest = api.job(job)
    scheduler.runs([manifest])
    scheduler.preempt(manifest)
    again = wait(job, lambda s: s.state == "REQUEUED")
    assert (again.state, again.finished) == ("REQUEUED", False)
    scheduler.end([manifest], 0)
    assert wait(job, ended).state == "COMPLETED"
    code, out, _ = cli("logs", job)
    assert (code, out) == (0, "started with lr 1.0e-5\nstarted with lr 1.0e-5\nended with 0\n")


# ------------------------------------------------------------------ dependencies
def test_a_job_waits_for_another_where_the_scheduler_can(
    scheduler: Scheduler, cli: Cli, tmp_path: Path
) -> None:
    launcher = LAUNCHERS[scheduler.name]
    first = submit(cli, scheduler, recipe(tmp_path, scheduler), "first")
    path = recipe(tmp_path, scheduler)
    if not launcher.dependencies:
        code, _, err = cli(
            "submit", str(path), "--entry", ENTRY, "--no-preflight", "--after", first
        )  # fmt: skip
        assert code == 2
        assert (
            f"error: --after: {scheduler.name} jobs cannot wait for another job; only Slurm's "
            "can (sbatch --dependency)"
        ) in err.splitlines()
        if scheduler.real:  # the first job ends now, not 10 minutes later under another test
            release(api.job(first), 0)
            assert wait(first, ended).state == "COMPLETED"
        return
    second = submit(cli, scheduler, path, "second", "--after", first)
    waits_for = api.job(first).scheduler_id
    assert (
        f"#SBATCH --dependency=afterok:{waits_for}"
        in (Path(api.job(second).job_dir) / LAUNCHERS[scheduler.name].artifact).read_text()
    )
    if scheduler.real:  # both end now, not 10 minutes later under another test
        for job in (first, second):
            release(api.job(job), 0)
        assert [wait(job, ended).state for job in (first, second)] == ["COMPLETED"] * 2
