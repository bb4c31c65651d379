"""The Python API given what no option parser has read: every public function, every kind
of bad argument. Each raises a LaunchError whose message names the argument and what it
takes, never another exception; and every message comes back masked as the command line
prints it, whatever token the user pasted where a job's name or a value belongs."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from automodel_launch import api
from automodel_launch.api_edge import ArgumentError, HostError, cleaned, edge
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.jobs.manifest import Manifest
from tests.hostile.tokens import KINDS, make
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.support.fake_slurm import FakeSlurm

PUBLIC = sorted(
    name for name, value in vars(api).items()
    if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == api.__name__
)  # fmt: skip


@pytest.fixture
def place(fake_slurm: FakeSlurm, tmp_path: Path) -> Iterator[Path]:
    """A recipe (``r.yaml``), a registry of one job (``one``) and sweeps of 4 and 3 points;
    an sbatch that must not be called (nothing bad reaches a scheduler)."""
    fake_slurm.answer("sbatch", code=1)
    fake_slurm.in_front()
    (tmp_path / "r.yaml").write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n" + RECIPE)
    record(job(tmp_path / "jobs" / "one", "b00000000000", "99", name="one"))
    sweep(tmp_path / "jobs", 4)
    sweep(tmp_path / "jobs", 3, array=200, sweep_id=THREE)
    yield tmp_path
    assert fake_slurm.calls == []


def _one(place: Path) -> Manifest:
    found = api.find("one")
    assert isinstance(found, Manifest)
    return found


class _BytesPath:
    """A path-like whose path is bytes (``os.scandir(b".")`` gives such)."""

    def __fspath__(self) -> bytes:
        return b"r.yaml"


R = "r.yaml"
THREE = "fedcba543210"
CASES: list[tuple[str, Callable[[Path], Any], str]] = [
    ("settings", lambda p: api.settings(strict="maybe"), "strict: Input should be a valid "
     "boolean, unable to interpret input"),
    ("settings", lambda p: api.settings(bogus=1), "bogus: Extra inputs are not permitted"),
    ("validate", lambda p: api.validate(R), "paths takes a list of paths, not str"),
    ("validate", lambda p: api.validate(None), "paths takes a list of paths, not NoneType"),
    ("validate", lambda p: api.validate([3]), "each of paths takes a path (a text or a Path), "
     "not int"),
    ("validate", lambda p: api.validate([R], config={}), "config takes what api.settings() "
     "returns, not dict"),
    ("validate", lambda p: api.validate(), "api.validate: missing a required argument: 'paths'"),
    ("validate", lambda p: api.validate([R], sets="x=1"), "sets takes a list of texts, not str"),
    ("validate", lambda p: api.validate([R], sets=["x"]), "sets: 'x' has no '=': write "
     "KEY=VALUE, e.g. slurm.nodes=4"),
    ("validate", lambda p: api.validate([R], profile=3), "profile takes a text, not int"),
    ("validate", lambda p: api.validate([R], cluster="yes"), "cluster takes True or False, not "
     "str"),
    ("validate", lambda p: api.validate([R], remote="lab"), "remote names the cluster "
     "cluster=True asks: give both"),
    ("validate", lambda p: api.validate([R], cluster=True, remote=3), "remote takes a text, not "
     "int"),
    ("validate", lambda p: api.validate([R], cluster=True, remote="nosuch"), "no cluster "
     "'nosuch': no profile file defines clusters:"),
    ("plan", lambda p: api.plan(3), "recipe takes a path (a text or a Path), not int"),
    ("plan", lambda p: api.plan(_BytesPath()), "recipe takes a path (a text or a Path), not "
     "bytes"),
    ("plan", lambda p: api.plan(R, sets="slurm.nodes=2"), "sets takes a list of texts, not str"),
    ("plan", lambda p: api.plan(R, sets=["nokey"]), "sets: 'nokey' has no '=': write KEY=VALUE, "
     "e.g. slurm.nodes=4"),
    ("plan", lambda p: api.plan(R, sets=[3]), "each of sets takes a text, not int"),
    ("plan", lambda p: api.plan(R, sets={1: 2}), "each key of sets takes a text, not int"),
    ("plan", lambda p: api.plan(R, sets={"optimizer.lr": object()}), "sets['optimizer.lr']: "
     "Object of type object is not JSON serializable; give numbers, texts, lists, mappings, "
     "True, False or None"),
    ("plan", lambda p: api.plan(R, sets=["optimizer.lr=\x00"]), "sets: it holds the control "
     "character 0x00; a --set value is one line"),
    ("plan", lambda p: api.plan(R, sweep="optimizer.lr=1,2"), "sweep takes a list of texts, "
     "not str"),
    ("plan", lambda p: api.plan(R, sweep=["x"]), "--sweep 'x' has no '=': write KEY=V1,V2,..., "
     "e.g. optimizer.lr=1e-5,1e-4"),
    ("plan", lambda p: api.plan(R, sweep={"optimizer.lr": 1}), "sweep['optimizer.lr'] takes a "
     "list of values, not int"),
    ("plan", lambda p: api.plan(R, sweep={"optimizer.lr": "12"}), "sweep['optimizer.lr'] takes "
     "a list of values, not str"),
    ("plan", lambda p: api.plan(R, profile=3), "profile takes a text, not int"),
    ("plan", lambda p: api.plan(R, max_parallel="2"), "max_parallel takes a whole number or "
     "None, not str"),
    ("plan", lambda p: api.plan(R, max_parallel=True), "max_parallel takes a whole number or "
     "None, not bool"),
    ("plan", lambda p: api.plan(R, entry=3), "entry takes a text, not int"),
    ("plan", lambda p: api.plan(R, entry="run\nrm -rf ~"), "entry: it holds the control "
     "character 0x0a, which no script line can carry"),
    ("plan", lambda p: api.plan(R, entry="'"), "the entry point is not a command line (no "
     "closing quotation)"),
    ("plan", lambda p: api.plan(R, job_dir=3.5), "job_dir takes a path (a text or a Path), "
     "not float"),
    ("plan", lambda p: api.plan(R, after="one"), "after takes a list of texts, not str"),
    ("plan", lambda p: api.plan(R, after=["nowhere"]), "--after nowhere: no job or sweep is "
     "'nowhere' (an id, scheduler id, job directory or name); `automodel-launch jobs` lists "
     "them"),
    ("plan", lambda p: api.plan(R, submitting="yes"), "submitting takes True or False, not str"),
    ("plan", lambda p: api.plan(R, snapshot=None), "snapshot takes True or False, not NoneType"),
    ("plan", lambda p: api.plan(R, config="strict"), "config takes what api.settings() returns, "
     "not str"),
    ("plan", lambda p: api.plan(R, bogus=1), "api.plan: got an unexpected keyword argument "
     "'bogus'"),
    ("render", lambda p: api.render(3), "recipe takes a path (a text or a Path), not int"),
    ("render", lambda p: api.render(R, sets="slurm.nodes=2"), "sets takes a list of texts, not "
     "str"),
    ("render", lambda p: api.render(R, nproc_per_node=0), "nproc_per_node is at least 1, not 0"),
    ("render", lambda p: api.render(R, nproc_per_node="2"), "nproc_per_node takes a whole "
     "number, not str"),
    ("render", lambda p: api.render(R, remote=3), "remote takes a text, not int"),
    ("render", lambda p: api.render(R, remote="lab"), "--remote lab: give --job-dir too"),
    ("render", lambda p: api.render(R, job_dir="out", remote="a b"), "--remote: 'a b' is not a "
     "cluster name"),
    ("render", lambda p: api.render(R, job_dir=str(p / R)), f"{os.sep}r.yaml already exists "
     "and is not empty; pick a new job directory"),
    ("render", lambda p: api.render(R, submitting=True), "api.render: got an unexpected keyword "
     "argument 'submitting'"),
    ("submit", lambda p: api.submit(3), "recipe takes a path (a text or a Path), not int"),
    ("submit", lambda p: api.submit(R, preflight="yes"), "preflight takes True or False, not "
     "str"),
    ("submit", lambda p: api.submit(R, remote=3), "remote takes a text, not int"),
    ("submit", lambda p: api.submit(R, remote=""), "remote is empty: give a cluster's name, or "
     "None for the profile's remote: (else this host)"),
    ("submit", lambda p: api.submit(R, remote="nosuch"), "no cluster 'nosuch': no profile file "
     "defines clusters:"),
    ("submit", lambda p: api.submit(api.plan(R, submitting=True), remote="lab"), "api.submit: "
     "remote is for a recipe or a plan to be shown; this plan was rendered to be submitted "
     "(submitting=True), aimed where its profile sends it"),
    ("submit", lambda p: api.submit(R, bogus=1), "api.submit: 'bogus' is no option of a plan; "
     "give after, config, entry, job_dir, max_parallel, profile, sets, snapshot, sweep"),
    ("submit", lambda p: api.submit(R, submitting=False), "api.submit: 'submitting' is no "
     "option of a plan; give after, config, entry, job_dir, max_parallel, profile, sets, "
     "snapshot, sweep"),
    ("submit", lambda p: api.submit(api.plan(R), max_parallel=2), "api.submit: max_parallel is "
     "for a recipe; a plan is submitted as it was planned"),
    ("submit", lambda p: api.submit(R, dry_run="no"), "dry_run takes True or False, not str"),
    ("submit", lambda p: api.submit(R, job_dir=str(p / R)), f"{os.sep}r.yaml already exists "
     "and is not empty; pick a new job directory"),
    ("jobs", lambda p: api.jobs(state=3), "state takes a text, not int"),
    ("jobs", lambda p: api.jobs(launcher=["slurm"]), "launcher takes a text, not list"),
    ("jobs", lambda p: api.jobs(since=2), "since takes a text, not int"),
    ("jobs", lambda p: api.jobs(sweep=3), "sweep takes a text, not int"),
    ("jobs", lambda p: api.jobs("one"), "api.jobs: too many positional arguments"),
    ("job_list", lambda p: api.job_list(limit="5"), "limit takes a whole number, not str"),
    ("job_list", lambda p: api.job_list(limit=-1), "limit is at least 0, not -1"),
    ("job_list", lambda p: api.job_list(state="done"), "state: 'done' is no job state: use one "
     "of PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, REQUEUED, UNKNOWN"),
    ("find", lambda p: api.find(3), "ref takes a text, not int"),
    ("find", lambda p: api.find(None), "ref takes a text, not NoneType"),
    ("find", lambda p: api.find(p / "jobs"), "ref takes a text, not PosixPath"),
    ("find", lambda p: api.find("x" * 5000), "x" * 5000 + ": File name too long"),
    ("job", lambda p: api.job(3), "ref takes a text, not int"),
    ("job", lambda p: api.job(SWEEP, point="1"), "point takes a whole number or None, not str"),
    ("job", lambda p: api.job(SWEEP, point=-1), f"sweep {SWEEP} has no point -1: its points "
     "are 0 to 3"),
    ("job", lambda p: api.job("one", point=0), "'one' is job b00000000000, not a sweep: --point "
     "is for a sweep"),
    ("status", lambda p: api.status(3), "ref takes a text, a Manifest or a Sweep, not int"),
    ("status", lambda p: api.status(["one"]), "ref takes a text, a Manifest or a Sweep, not "
     "list"),
    ("cancel", lambda p: api.cancel(b"one"), "ref takes a text, a Manifest or a Sweep, not "
     "bytes"),
    ("diff", lambda p: api.diff(3, "one"), "old takes a text or a Manifest, not int"),
    ("diff", lambda p: api.diff("one", api.find(SWEEP)), "new takes a text or a Manifest, not "
     "Sweep"),
    ("diff", lambda p: api.diff("one"), "api.diff: missing a required argument: 'new'"),
    ("diff", lambda p: api.diff(SWEEP[:6], "one"), f"'{SWEEP[:6]}' is sweep {SWEEP} of 4 points, "
     "not one job: name a point by its id (abcdef000000, abcdef000001, abcdef000002, ...; "
     f"`automodel-launch status {SWEEP}` lists them)"),
    ("diff", lambda p: api.diff("one", THREE), f"'{THREE}' is sweep {THREE} of 3 points, not one "
     "job: name a point by its id (fedcba000000, fedcba000001, fedcba000002; "
     f"`automodel-launch status {THREE}` lists them)"),
    ("rerun", lambda p: api.rerun(3), "ref takes a text or a Manifest, not int"),
    ("rerun", lambda p: api.rerun(_one(p), sets="x=1"), "sets takes a list of texts, not str"),
    ("rerun", lambda p: api.rerun(_one(p), sets=["x"]), "sets: 'x' has no '=': write "
     "KEY=VALUE, e.g. slurm.nodes=4"),
    ("rerun", lambda p: api.rerun(_one(p), job_dir=3), "job_dir takes a path (a text or a "
     "Path), not int"),
    ("rerun", lambda p: api.rerun(_one(p), dry_run=1), "dry_run takes True or False, not int"),
    ("rerun", lambda p: api.rerun(_one(p), preflight=1), "preflight takes True or False, not "
     "int"),
    ("rerun", lambda p: api.rerun(_one(p), remote=["lab"]), "remote takes a text, not list"),
    ("rerun", lambda p: api.rerun(_one(p), config=object()), "config takes what "
     "api.settings() returns, not object"),
    ("rerun", lambda p: api.rerun(SWEEP, point=True), "point takes a whole number or None, "
     "not bool"),
    ("rerun", lambda p: api.rerun(_one(p), point=0), "point names a point of the sweep ref "
     "names: give ref a text"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("function", "call", "said"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_a_bad_argument_is_a_launch_error_that_names_it(
    place: Path, monkeypatch: pytest.MonkeyPatch, function: str, call: Callable[[Path], Any],
    said: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(place)
    with pytest.raises(LaunchError) as caught:
        call(place)
    assert str(caught.value).endswith(said)
    assert isinstance(caught.value, UsageError | HostError) or " is no job state" not in said
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_every_public_function_is_driven_with_bad_arguments() -> None:
    assert sorted({function for function, _, _ in CASES}) == PUBLIC


def test_a_setting_of_the_environment_that_cannot_be_used_is_a_usage_error(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(place)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STRICT", "maybe")
    for call in (lambda: api.validate([R]), lambda: api.plan(R), lambda: api.settings()):
        with pytest.raises(UsageError) as caught:
            call()
        assert str(caught.value).startswith("bad setting (command-line flags, AUTOMODEL_LAUNCH_")
        assert str(caught.value).endswith(
            "strict: Input should be a valid boolean, unable to interpret input"
        )


def test_the_edge_of_any_function() -> None:
    def failing(text: str, *, count: int = 1) -> str:
        raise LaunchError(f"{text} failed {count}", hint=f"not {text}")

    checked = edge(failing)
    assert checked.__name__ == "failing" and checked.__wrapped__ is failing  # type: ignore[attr-defined]
    token = make("hugging-face", 1).value
    with pytest.raises(LaunchError) as caught:
        checked(token, count=2)
    assert (caught.value.args, caught.value.hint) == (("*** failed 2",), "not ***")
    with pytest.raises(ArgumentError, match=r"^api\.failing: missing a required argument: 'text'$"):
        checked()


def test_an_error_with_more_than_text_keeps_the_rest() -> None:
    exc = LaunchError("a\x1bb")
    exc.args = ("a\x1bb", 3)
    assert cleaned(exc).args == ("a\\x1bb", 3) and exc.hint is None


def test_the_system_error_an_argument_caused() -> None:
    full = HostError(OSError(36, "File name too long", "x" * 300))
    assert (str(full), full.errno) == ("x" * 300 + ": File name too long", 36)
    assert str(HostError(OSError(28, "No space left on device"))) == "No space left on device"
    assert (str(HostError(OSError())), HostError(OSError()).errno) == ("OSError", None)


def test_a_wrong_type_is_a_type_error_too(place: Path) -> None:
    with pytest.raises(TypeError) as caught:
        api.plan(place / R, sets="slurm.nodes=2")
    assert isinstance(caught.value, ArgumentError) and caught.value.exit_code == 2


# ------------------------------------------------------------------ tokens in what is given
SAMPLES = [make(kind, 7) for kind in KINDS if not make(kind, 7).needs_key_name]
SECRET_VALUE = "correct-horse-battery-staple"  # no token shape: masked as HF_TOKEN's value


def _token_calls(value: str) -> dict[str, Callable[[], Any]]:
    """Every function that takes a text the user typed, given ``value`` there."""
    return {
        "plan-recipe": lambda: api.submit(value),
        "plan-sets": lambda: api.plan(R, sets=[value]),
        "plan-sweep": lambda: api.plan(R, sweep=[value]),
        "plan-after": lambda: api.plan(R, after=[value]),
        "plan-job_dir": lambda: api.submit(R, job_dir=f"{value}\n"),
        "submit-remote": lambda: api.submit(R, remote=value),
        "render-remote": lambda: api.render(R, remote=value, job_dir="out"),
        "validate-remote": lambda: api.validate([R], cluster=True, remote=value),
        "jobs-state": lambda: api.jobs(state=value),
        "jobs-launcher": lambda: api.jobs(launcher=value),
        "job_list-since": lambda: api.job_list(since=value),
        "find": lambda: api.find(value),
        "job": lambda: api.job(value, point=0),
        "status": lambda: api.status(value),
        "cancel": lambda: api.cancel(value),
        "diff": lambda: api.diff("one", value),
        "rerun": lambda: api.rerun(value),
        "settings": lambda: api.settings(automodel_version=f"{value}\x1b[2J"),
    }


UNQUOTED = {"settings"}
"""Functions whose message does not quote the value (pydantic's names what it takes)."""


TOKEN_CALLS = sorted(_token_calls("x"))


def _shown(exc: LaunchError) -> str:
    return repr(exc.args) + str(exc) + repr(exc.hint) + repr(exc)


@pytest.mark.parametrize("where", TOKEN_CALLS)
def test_a_token_given_comes_back_masked(
    place: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    monkeypatch.chdir(place)
    monkeypatch.setenv("HF_TOKEN", SECRET_VALUE)
    for value, middle in [(t.value, t.middle) for t in SAMPLES] + [(SECRET_VALUE, "battery")]:
        with pytest.raises(LaunchError) as caught:
            _token_calls(value)[where]()
        shown = _shown(caught.value)
        assert middle not in shown and "\x1b" not in shown, (where, shown)
        assert "***" in shown or where in UNQUOTED, (where, shown)


@pytest.mark.parametrize("command", ["status", "cancel", "logs", "rerun", "diff"])
def test_the_api_masks_a_reference_as_the_command_line_prints_it(
    place: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    token = make("github-ghp", 3)
    functions = {"status": api.status, "cancel": api.cancel, "logs": api.job,
                 "rerun": api.rerun, "diff": lambda ref: api.diff("one", ref)}  # fmt: skip
    with pytest.raises(LaunchError) as caught:
        functions[command](token.value)
    args = ["diff", "one", token.value] if command == "diff" else [command, token.value]
    assert errors.run(lambda: run_app(args)) == 1
    assert capsys.readouterr().err == f"error: {caught.value}\n"
    assert str(caught.value) == (
        "no job or sweep is '***' (an id, scheduler id, job directory or name); "
        "`automodel-launch jobs` lists them"
    )


def test_a_setting_from_the_environment_is_masked_in_what_the_api_raises(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WANDB_API_KEY", SECRET_VALUE)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_AUTOMODEL_VERSION", SECRET_VALUE)
    with pytest.raises(UsageError) as caught:
        api.jobs(state=SECRET_VALUE)
    assert str(caught.value) == (
        "state: '***' is no job state: use one of PENDING, RUNNING, COMPLETED, FAILED, "
        "CANCELLED, TIMEOUT, PREEMPTED, REQUEUED, UNKNOWN"
    )
    with pytest.raises(UsageError) as bad_setting:
        api.settings()
    assert SECRET_VALUE not in _shown(bad_setting.value)
