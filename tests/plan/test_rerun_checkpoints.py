"""``rerun``: a plain rerun resumes from the checkpoints of the job it runs again, and says
from which step; one that changes a recipe value trains from step 0 in a directory of its
own (``--fresh`` and ``--resume`` choose). ``sbatch`` is a stand-in answering a job id."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.errors import UsageError
from automodel_launch.plan.checkpoints import Latest
from automodel_launch.plan.rerun import Checkpoints, changes, checkpoints_of
from automodel_launch.profiles.overrides import parse_override
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.support.fake_slurm import FakeSlurm


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str


class Cli:
    """The command line, in this process (``sbatch`` the stand-in), in ``tmp``."""

    def __init__(self, tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.tmp, self.capsys = tmp, capsys

    def __call__(self, *args: str) -> Done:
        extra = {"submit": ["--no-preflight", "--no-check-paths"], "rerun": ["--no-preflight"]}
        code = errors.run(lambda: run_app([*args, *extra.get(args[0], [])]))
        return Done(code, *self.capsys.readouterr())

    def ok(self, *args: str) -> Done:
        done = self(*args)
        assert done.code == 0, done.stderr
        return done

    def manifest(self, job: str) -> dict[str, Any]:
        for path in self.tmp.glob("**/manifest.json"):
            found: dict[str, Any] = json.loads(path.read_text())
            if found["id"] == job:
                return found
        raise AssertionError(f"no job {job}")

    def job_config(self, job: str) -> str:
        return (Path(self.manifest(job)["job_dir"]) / "job_config.yaml").read_text()


@pytest.fixture
def cli(
    fake_slurm: FakeSlurm,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return Cli(tmp_path, capsys)


@pytest.fixture
def first(cli: Cli) -> tuple[str, Path]:
    """A job whose recipe writes its checkpoints to ``ck``, and that directory."""
    ck = cli.tmp / "ck"
    (cli.tmp / "r.yaml").write_text(SLURM + RECIPE + f"checkpoint:\n  checkpoint_dir: {ck}\n")
    return job_id(cli.ok("submit", "r.yaml").stdout), ck


def job_id(stdout: str) -> str:
    found = re.search(r"recorded as job (\w+)", stdout)
    assert found, stdout
    return found.group(1)


def checkpoints_line(stderr: str) -> str:
    (line,) = [x for x in stderr.splitlines() if x.startswith("  checkpoints ")]
    return line.removeprefix("  checkpoints    ")


def test_a_plain_rerun_resumes_and_says_from_which_step(cli: Cli, first: tuple[str, Path]) -> None:
    job, ck = first
    done = cli.ok("rerun", job, "--dry-run")
    assert checkpoints_line(done.stderr) == f"{ck}: no checkpoint yet: starts from step 0"
    for name in ("epoch_0_step_30", "epoch_1_step_60", "epoch_1_step_90"):
        (ck / name).mkdir(parents=True)
    (ck / "epoch_1_step_90/.incomplete").write_text("")  # a save the time limit cut short
    done = cli.ok("rerun", job)
    assert checkpoints_line(done.stderr) == f"{ck}: resumes from step 60 of job {job}'s checkpoints"
    new = job_id(done.stdout)
    assert f"checkpoint_dir: {ck}\n" in cli.job_config(new)
    assert cli.ok("diff", job, new).stdout == f"jobs {job} and {new} do not differ\n"
    # a launcher value, or a recipe value given again as it was, changes no training
    done = cli.ok("rerun", job, "--dry-run", "--set", "slurm.nodes=2", "--set", "optimizer.lr=1e-5")
    assert checkpoints_line(done.stderr) == f"{ck}: resumes from step 60 of job {job}'s checkpoints"


def test_a_rerun_that_changes_a_value_trains_in_a_directory_of_its_own(
    cli: Cli, first: tuple[str, Path]
) -> None:
    job, ck = first
    (ck / "epoch_0_step_60").mkdir(parents=True)
    done = cli.ok("rerun", job, "--set", "optimizer.lr=1e-3")
    new = job_id(done.stdout)
    own = f"{ck}/rerun-{new}"
    assert checkpoints_line(done.stderr) == (
        f"{own}: starts from step 0, in a directory of its own (the rerun changes "
        f"optimizer.lr; --resume resumes job {job}'s)"
    )
    assert f"checkpoint_dir: {own}\n" in cli.job_config(new)
    assert cli.ok("diff", job, new).stdout.splitlines() == [
        "--set optimizer.lr: (none) -> 1e-3",
        f"config.checkpoint.checkpoint_dir: {ck} -> {own}",
        "config.optimizer.lr: 1e-05 -> 0.001",
    ]
    # --resume keeps the directory, and says the values changed
    done = cli.ok("rerun", job, "--dry-run", "--resume", "--set", "optimizer.lr=1e-3")
    assert checkpoints_line(done.stderr) == (
        f"{ck}: resumes from step 60 of job {job}'s checkpoints, with changed values (optimizer.lr)"
    )
    # --fresh gives a directory of its own without a change
    done = cli.ok("rerun", job, "--fresh")
    fresh = job_id(done.stdout)
    assert checkpoints_line(done.stderr) == (
        f"{ck}/rerun-{fresh}: starts from step 0, in a directory of its own (--fresh)"
    )
    manifest = cli.manifest(fresh)
    assert (manifest["rerun_of"], manifest["overrides"]) == (job, [])
    assert f"checkpoint_dir: {ck}/rerun-{fresh}\n" in cli.job_config(fresh)


def test_a_point_of_a_sweep_resumes_in_its_own_directory(cli: Cli) -> None:
    ck = cli.tmp / "ck"
    (cli.tmp / "r.yaml").write_text(SLURM + RECIPE + f"checkpoint:\n  checkpoint_dir: {ck}\n")
    done = cli.ok("submit", "r.yaml", "--sweep", "optimizer.lr=1e-5,3e-4", "--job-dir", "sw")
    point = json.loads((cli.tmp / "sw/points/1/manifest.json").read_text())
    own = f"{ck}/sweep-{point['sweep']}/points/1"
    assert checkpoints_line(done.stderr) == (
        f"{ck}/sweep-{point['sweep']}/points/INDEX, one per point"
    )
    Path(own, "epoch_0_step_5").mkdir(parents=True)
    again = cli.ok("rerun", point["sweep"], "--point", "1", "--dry-run")
    assert checkpoints_line(again.stderr) == (
        f"{own}: resumes from step 5 of job {point['id']}'s checkpoints"
    )
    # with another value: a directory of its own; the point's record of its own directory
    # is dropped (it no longer holds), as its --sweep value is
    changed = cli.ok("rerun", point["sweep"], "--point", "1", "--set", "optimizer.lr=1e-2")
    new = job_id(changed.stdout)
    assert [(o["option"], o["argument"]) for o in cli.manifest(new)["overrides"]] == [
        ("--set", "optimizer.lr=1e-2"),
    ]
    assert f"checkpoint_dir: {own}/rerun-{new}\n" in cli.job_config(new)
    # --point of a point is no point of a sweep
    done = cli("rerun", point["id"], "--point", "0")
    assert (done.code, done.stderr) == (2, (
        f"error: --point 0: '{point['id']}' is job {point['id']}, point 1 of sweep "
        f"{point['sweep']}, not a sweep\n"
        f"    hint: automodel-launch rerun {point['sweep']} --point 0\n"
    ))  # fmt: skip


@pytest.mark.parametrize(
    ("args", "recipe", "error", "hint"),
    [
        (["--fresh", "--resume"], "", "--fresh and --resume: choose one", None),
        (["--resume"], "checkpoint:\n  enabled: false\n",
         "--resume: job {job} writes no checkpoints (checkpoint.enabled is false): there is "
         "nothing to resume from", None),
        (["--resume"], "",
         "--resume: job {job}'s checkpoint_dir 'checkpoints/' is relative: each job reads it in "
         "its own working directory, and the rerun's is another",
         "give the job an absolute checkpoint.checkpoint_dir to resume it"),
        (["--fresh", "--set", "checkpoint.checkpoint_dir=/x"], "",
         "--fresh with --set checkpoint.checkpoint_dir: the --set value chooses the directory",
         "give one of them"),
        (["--set", "optimizer.lr=1"], "checkpoint:\n  restore_from: epoch_0_step_5\n",
         "checkpoint.restore_from 'epoch_0_step_5' is a checkpoint inside checkpoint_dir "
         "checkpoints/, but this rerun writes a directory of its own",
         "--set checkpoint.restore_from=checkpoints/epoch_0_step_5, or --resume"),
        (["--point", "3"], "", "--point 3: '{job}' is job {job}, not a sweep",
         "automodel-launch rerun {job}, without --point"),
    ],
)  # fmt: skip
def test_a_rerun_asked_what_cannot_hold_is_a_usage_error(
    fake_slurm: FakeSlurm, cli: Cli, args: list[str], recipe: str, error: str, hint: str | None
) -> None:
    (cli.tmp / "r.yaml").write_text(SLURM + RECIPE + recipe)
    job = job_id(cli.ok("submit", "r.yaml").stdout)
    done = cli("rerun", job, *args)
    expected = f"error: {error.format(job=job)}\n"
    if hint is not None:
        expected += f"    hint: {hint.format(job=job)}\n"
    assert (done.code, done.stderr) == (2, expected)
    assert len(fake_slurm.called("sbatch")) == 1


DATA = {"recipe": "r", "optimizer": {"lr": 1e-5, "betas": [0.9, 0.99]}, "slurm": {"nodes": 1}}


@pytest.mark.parametrize(
    ("arguments", "changed"),
    [
        (["optimizer.lr=1.0e-5", "slurm.nodes=4", "automodel_version=0.6.0"], ()),
        (["optimizer.lr=2e-5"], ("optimizer.lr",)),
        (["optimizer.betas=[0.9, 0.99]", "optimizer.betas[1]=0.99"], ()),
        (["optimizer.betas[1]=0.9", "optimizer.eps=1e-8", "peft.dim=8"],
         ("optimizer.betas[1]", "optimizer.eps", "peft.dim")),
        (["optimizer={lr: 1.0e-5, betas: [0.9, 0.99]}"], ()),
        (["optimizer.lr=null"], ("optimizer.lr",)),
        (["fault_tolerance.enabled=true", "optimizer.lr=[a"], ()),  # a launcher's; unread
    ],
)  # fmt: skip
def test_the_recipe_values_a_rerun_changes(arguments: list[str], changed: tuple[str]) -> None:
    assert changes(DATA, [parse_override(a) for a in arguments]) == changed


def test_a_whole_number_for_a_number_with_a_point_is_a_change() -> None:
    assert changes({"a": {"b": 2.0}}, [parse_override("a.b=2")]) == ("a.b",)
    assert changes({"a": {"b": True}}, [parse_override("a.b=1")]) == ("a.b",)
    assert changes({"a": {"b": None}}, [parse_override("a.b=null")]) == ()


CK = {"recipe": "r", "checkpoint": {"checkpoint_dir": "/ck"}}


def test_where_a_rerun_writes() -> None:
    sets = [parse_override("optimizer.lr=1")]
    assert checkpoints_of(CK, (), "a1", "b2", "auto") == (Checkpoints("/ck", "a1", False), ())
    own, given = checkpoints_of(CK, sets, "a1", "b2", "auto")
    assert own == Checkpoints("/ck/rerun-b2", "a1", True, ("optimizer.lr",))
    assert [(o.argument, o.option, o.value) for o in given] == [
        ("checkpoint.checkpoint_dir=/ck/rerun-b2", "--fresh", "/ck/rerun-b2")
    ]
    assert checkpoints_of(CK, sets, "a1", "b2", "resume")[0] == Checkpoints(
        "/ck", "a1", False, ("optimizer.lr",), explicit=True
    )
    fresh = checkpoints_of(CK, (), "a1", "b2", "fresh")[0]
    assert fresh == Checkpoints("/ck/rerun-b2", "a1", True, explicit=True)
    named = [parse_override("checkpoint.checkpoint_dir=/x")]
    assert checkpoints_of(CK, named, "a1", "b2", "auto") == (
        Checkpoints("/x", "a1", False, ("checkpoint.checkpoint_dir",), given=True),
        (),
    )
    assert checkpoints_of({"slurm": {}}, (), "a1", "b2", "auto") == (None, ())
    off = {**CK, "checkpoint": {"enabled": False}}
    assert checkpoints_of(off, sets, "a1", "b2", "fresh") == (None, ())
    with pytest.raises(UsageError, match=r"--resume with --set checkpoint\.checkpoint_dir"):
        checkpoints_of(CK, named, "a1", "b2", "resume")
    restoring = {"recipe": "r", "checkpoint": {"checkpoint_dir": "/ck", "restore_from": "/s/x"}}
    assert checkpoints_of(restoring, sets, "a1", "b2", "auto")[0] == Checkpoints(
        "/ck/rerun-b2", "a1", True, ("optimizer.lr",), restore_from="/s/x"
    )
    latest = {"recipe": "r", "checkpoint": {"checkpoint_dir": "/ck", "restore_from": "Latest"}}
    assert checkpoints_of(latest, (), "a1", "b2", "resume")[0] == Checkpoints(
        "/ck", "a1", False, explicit=True
    )


@pytest.mark.parametrize(
    ("where", "found", "line"),
    [
        (Checkpoints("/ck", "j1", False), Latest(60),
         "/ck: resumes from step 60 of job j1's checkpoints"),
        (Checkpoints("/ck", "j1", False), Latest(note="not looked into: on cluster eos"),
         "/ck: resumes from job j1's latest checkpoint, if any (not looked into: on cluster eos)"),
        (Checkpoints("ck/", "j1", False), Latest(note="x"),
         "ck/: relative to the rerun's own working directory: starts from step 0 there"),
        (Checkpoints("/ck", "j1", False, ("a.b", "c"), explicit=True), Latest(),
         "/ck: no checkpoint yet: starts from step 0, with changed values (a.b, c)"),
        (Checkpoints("/x", "j1", False, ("checkpoint.checkpoint_dir",), given=True), Latest(3),
         "/x (--set): resumes from step 3 of the checkpoints"),
        (Checkpoints("/x", "j1", False, given=True), Latest(note="n"),
         "/x (--set): resumes from the latest checkpoint, if any (n)"),
        (Checkpoints("/ck", "j1", False, restore_from="/s/e_step_5"), Latest(9),
         "/ck: restores /s/e_step_5 (checkpoint.restore_from)"),
        (Checkpoints("/ck/rerun-n", "j1", True, ("a",), restore_from="/s/e"), Latest(),
         "/ck/rerun-n: restores /s/e, in a directory of its own (the rerun changes a; "
         "--resume resumes job j1's)"),
        (Checkpoints("/ck/rerun-n", "j1", True, explicit=True), Latest(),
         "/ck/rerun-n: starts from step 0, in a directory of its own (--fresh)"),
    ],
)  # fmt: skip
def test_what_a_rerun_s_summary_says(where: Checkpoints, found: Latest, line: str) -> None:
    assert where.line(found) == line


def test_the_api_chooses_as_the_options_do(cli: Cli, first: tuple[str, Path]) -> None:
    from automodel_launch import api

    job, ck = first
    manifest = api.job(job)
    with pytest.raises(UsageError, match="fresh and resume: choose one"):
        api.rerun(job, fresh=True, resume=True)
    with pytest.raises(UsageError, match="point names a point of the sweep ref names"):
        api.rerun(manifest, point=1)
    (fresh,) = api.rerun(manifest, fresh=True).manifests
    assert f"checkpoint_dir: {ck}/rerun-{fresh.id}\n" in cli.job_config(fresh.id)
    (kept,) = api.rerun(job, sets=["optimizer.lr=1e-3"], resume=True).manifests
    assert f"checkpoint_dir: {ck}\n" in cli.job_config(kept.id)
