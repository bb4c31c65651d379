"""References that would reach the wrong job, on every command and API function that
takes one: an empty or blank JOB (an unset shell variable: ``cancel "$JOB"``), foreign
ones (SQL's wildcards, a glob, a directory that holds no job) and, for ``--after``, a job
of another cluster.

An empty JOB is a start of every id (and, as a path, the current directory): each entry
point refuses it as a usage error before anything is looked up, cancelled or written.
A Slurm job can only wait for a job of its own cluster: ``--after`` a job of another one
is refused, in each direction, and nothing is written or submitted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from automodel_launch import api
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.errors import UsageError
from automodel_launch.jobs.origins import RemoteRecord
from automodel_launch.jobs.status import JobError
from tests.jobs.sweep_helpers import job, record
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.support.fake_slurm import FakeSlurm

BLANK = ["", " ", "\t\n"]
HINT = "`automodel-launch jobs` lists them; an unset shell variable gives an empty argument"
CLUSTERS = (
    "clusters:\n  lab: {host: lab-login, remote_dir: /scratch/me}\n"
    "  big: {host: big-login, remote_dir: /big/me}\n"
)


def refused(text: str) -> str:
    said = "empty" if not text else "only blanks"
    return (
        f"the job reference {text!r} is {said}: give a job's id (or a unique start of it), "
        "its scheduler id, its job directory or its name"
    )


@pytest.fixture
def slurm(fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeSlurm:
    """One Slurm job recorded (``train``, 4242, running), a job of cluster ``lab``
    (``far``, 4343) and the clusters ``lab`` and ``big``; the command runs in the first
    job's directory, so an empty JOB taken as a path would name that job too."""
    fake_slurm.squeue({"job_id": 4242, "job_state": "RUNNING", "state_reason": "None"})
    fake_slurm.answer("scancel")
    fake_slurm.answer("sbatch", "777\n")
    here = job(tmp_path / "jobs" / "train", "a00000000001", "4242", name="train")
    there = RemoteRecord(name="lab", host="lab-login", job_dir="/scratch/me/far")
    far = job(tmp_path / "jobs" / "far", "b00000000002", "4343", name="far", remote=there)
    record(here, far)
    config = tmp_path / "no-xdg-config" / "automodel-launch"
    config.mkdir(parents=True)
    (config / "profiles.yaml").write_text(CLUSTERS)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(tmp_path / "no-site.yaml"))
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    monkeypatch.chdir(here.job_dir)
    return fake_slurm


Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    def run(*args: str) -> tuple[int, str, str]:
        code = errors.run(lambda: run_app(list(args)))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def untouched(slurm: FakeSlurm, tmp_path: Path) -> None:
    """Nothing cancelled, submitted or written."""
    assert slurm.called("scancel") == [] and slurm.called("sbatch") == []
    assert not (tmp_path / "jobs" / "train" / "cancelled").exists()
    assert sorted(p.name for p in (tmp_path / "jobs").iterdir()) == ["far", "train"]
    assert not (tmp_path / "jobs" / "train" / "slurm_jobs").exists()


COMMANDS = [
    ["status"], ["status", "--format", "json"], ["logs"], ["logs", "--point", "0"], ["cancel"],
    ["rerun"], ["rerun", "--dry-run"], ["diff", "train"],
]  # fmt: skip


@pytest.mark.parametrize("text", BLANK)
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_an_empty_job_is_a_usage_error_on_every_command(
    slurm: FakeSlurm, cli: Cli, tmp_path: Path, command: list[str], text: str
) -> None:
    assert cli(*command, text) == (2, "", f"error: {refused(text)}\n    hint: {HINT}\n")
    untouched(slurm, tmp_path)


@pytest.mark.parametrize("command", [["status", "--watch"], ["logs", "--follow"]], ids=" ".join)
def test_an_empty_job_is_a_usage_error_when_watching(
    slurm: FakeSlurm, cli: Cli, tmp_path: Path, command: list[str]
) -> None:
    """The job has ended, so a command that took "" for it would end too (not hang)."""
    slurm.squeue()
    slurm.answer("sacct")
    (tmp_path / "jobs" / "train" / "exit_code").write_text("0\n")
    assert cli(*command, "") == (2, "", f"error: {refused('')}\n    hint: {HINT}\n")


@pytest.mark.parametrize("text", BLANK)
def test_an_empty_job_is_a_usage_error_on_either_side_of_diff(
    slurm: FakeSlurm, cli: Cli, text: str
) -> None:
    assert cli("diff", text, "train")[0] == 2
    assert cli("diff", "train", text) == (2, "", f"error: {refused(text)}\n    hint: {HINT}\n")


@pytest.mark.parametrize("text", BLANK)
def test_an_empty_after_is_a_usage_error(
    slurm: FakeSlurm, cli: Cli, tmp_path: Path, text: str
) -> None:
    submit = ["submit", str(tmp_path / "r.yaml"), "--no-preflight", "--no-check-paths"]
    assert cli(*submit, "--after", text) == (
        2, "", f"error: --after {text!r}: {refused(text)}\n    hint: {HINT}\n"
    )  # fmt: skip
    assert cli(*submit, "--after", "train", "--after", f"{text}:any") == (
        2, "", f"error: --after {text + ':any'!r}: {refused(text)}\n    hint: {HINT}\n"
    )  # fmt: skip
    untouched(slurm, tmp_path)


def _plan(tmp_path: Path, after: list[str]) -> Any:
    return api.plan(tmp_path / "r.yaml", after=after, config=api.settings(check_paths=False))


def _submit(tmp_path: Path, after: list[str]) -> Any:
    return api.submit(tmp_path / "r.yaml", after=after, config=api.settings(check_paths=False))


API: dict[str, Callable[[Path, str], object]] = {
    "find": lambda _, ref: api.find(ref),
    "job": lambda _, ref: api.job(ref),
    "job point": lambda _, ref: api.job(ref, point=0),
    "status": lambda _, ref: api.status(ref),
    "cancel": lambda _, ref: api.cancel(ref),
    "diff old": lambda _, ref: api.diff(ref, "train"),
    "diff new": lambda _, ref: api.diff("train", ref),
    "rerun": lambda _, ref: api.rerun(ref),
    "jobs sweep": lambda _, ref: api.jobs(sweep=ref),
    "job_list sweep": lambda _, ref: api.job_list(sweep=ref),
}


@pytest.mark.parametrize("text", BLANK)
@pytest.mark.parametrize("function", sorted(API))
def test_an_empty_reference_is_a_usage_error_in_every_api_function(
    slurm: FakeSlurm, tmp_path: Path, function: str, text: str
) -> None:
    with pytest.raises(UsageError) as caught:
        API[function](tmp_path, text)
    assert (str(caught.value), caught.value.hint) == (refused(text), HINT)
    untouched(slurm, tmp_path)


@pytest.mark.parametrize("text", BLANK)
@pytest.mark.parametrize("function", [_plan, _submit])
def test_an_empty_after_is_a_usage_error_in_the_api(
    slurm: FakeSlurm, tmp_path: Path, function: Callable[[Path, list[str]], object], text: str
) -> None:
    with pytest.raises(UsageError) as caught:
        function(tmp_path, ["train", text])
    assert (str(caught.value), caught.value.hint) == (f"--after {text!r}: {refused(text)}", HINT)
    untouched(slurm, tmp_path)


FOREIGN = ["%", "_", "a%", "*", "nojob"]
"""Names no job: SQL's wildcards and a glob are literal text, ``nojob`` a directory (in
the current directory) that holds no manifest."""


def unknown(text: str) -> str:
    return (
        f"no job or sweep is '{text}' (an id, scheduler id, job directory or name); "
        "`automodel-launch jobs` lists them"
    )


@pytest.mark.parametrize("text", FOREIGN)
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_foreign_job_names_none_on_every_command(
    slurm: FakeSlurm, cli: Cli, tmp_path: Path, command: list[str], text: str
) -> None:
    (tmp_path / "jobs" / "train" / "nojob").mkdir(exist_ok=True)
    assert cli(*command, text) == (1, "", f"error: {unknown(text)}\n")
    submit = ["submit", str(tmp_path / "r.yaml"), "--no-preflight", "--no-check-paths"]
    assert cli(*submit, "--after", f"{text}:any") == (
        2, "", f"error: --after {text}:any: {unknown(text)}\n"
    )  # fmt: skip
    untouched(slurm, tmp_path)


@pytest.mark.parametrize("text", FOREIGN)
@pytest.mark.parametrize("function", sorted(set(API) - {"jobs sweep", "job_list sweep"}))
def test_a_foreign_reference_names_none_in_every_api_function(
    slurm: FakeSlurm, tmp_path: Path, function: str, text: str
) -> None:
    (tmp_path / "jobs" / "train" / "nojob").mkdir(exist_ok=True)
    with pytest.raises(JobError) as caught:
        API[function](tmp_path, text)
    assert str(caught.value) == unknown(text)
    with pytest.raises(UsageError) as after:
        _plan(tmp_path, [text])
    assert str(after.value) == f"--after {text}: {unknown(text)}"
    assert api.jobs(sweep=text) == []
    untouched(slurm, tmp_path)


def across(given: str, job_id: str, there: str, here: str, hint: str) -> str:
    return (
        f"error: --after {given}: job {job_id} ran on {there}, and this job goes to {here}; "
        f"a Slurm dependency only names jobs of the same cluster\n    hint: submit this job "
        f"{hint} as well, or submit it once job {job_id} has ended (`automodel-launch status "
        f"{job_id}` says when)\n"
    )


def test_after_a_job_of_another_cluster_is_refused_both_ways(
    slurm: FakeSlurm, cli: Cli, tmp_path: Path
) -> None:
    submit = ["submit", str(tmp_path / "r.yaml"), "--no-preflight", "--no-check-paths"]
    assert cli(*submit, "--after", "far") == (2, "", across(
        "far", "b00000000002", "cluster lab", "this host's Slurm", "to cluster lab (--remote lab)"
    ))  # fmt: skip
    assert cli(*submit, "--remote", "lab", "--after", "train:any") == (2, "", across(
        "train:any", "a00000000001", "this host's Slurm", "cluster lab", "here (without --remote)"
    ))  # fmt: skip
    assert cli(*submit, "--remote", "big", "--after", "far") == (2, "", across(
        "far", "b00000000002", "cluster lab", "cluster big", "to cluster lab (--remote lab)"
    ))  # fmt: skip
    untouched(slurm, tmp_path)


def test_after_a_job_of_another_cluster_is_refused_in_the_api(
    slurm: FakeSlurm, tmp_path: Path
) -> None:
    for function in (_plan, _submit):
        with pytest.raises(UsageError) as caught:
            function(tmp_path, ["train", "far"])
        said = across("far", "b00000000002", "cluster lab", "this host's Slurm",
                      "to cluster lab (--remote lab)")  # fmt: skip
        assert f"error: {caught.value}\n    hint: {caught.value.hint}\n" == said
    untouched(slurm, tmp_path)
