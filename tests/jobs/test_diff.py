"""``diff JOB JOB``: what differs between two jobs, from their job directories."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.errors import UsageError
from automodel_launch.jobs.diff import CONFIG_BYTES, Difference, JobConfigError
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.layout import JOB_CONFIG
from tests.hostile.tokens import make
from tests.jobs.test_run_settings import recipe, submitted  # noqa: F401

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    def run(*args: str) -> tuple[int, str, str]:
        code = errors.run(lambda: run_app(list(args)))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_two_runs_differ_in_their_set_values_settings_and_recipe_values(recipe: Path) -> None:  # noqa: F811
    old = submitted(recipe, sets=["optimizer.lr=1e-5"])
    new = submitted(recipe, profile="eos", sets=["optimizer.lr=3e-5", "slurm.nodes=2"])
    found = api.diff(old.id, new.id).differences
    assert [d.line() for d in found] == [
        "slurm.nodes: 1 -> 2",
        "image: (none) -> nvcr.io#nvidia/nemo:25.02",
        "profile: (none) -> eos",
        "--set optimizer.lr: 1e-5 -> 3e-5",
        "--set slurm.nodes: (none) -> 2",
        "config.optimizer.lr: 1e-05 -> 3e-05",
    ]
    assert api.diff(new, submitted(recipe, profile="eos", sets=[
        "optimizer.lr=3e-5", "slurm.nodes=2"])).differences == []  # fmt: skip


def test_a_value_of_another_type_is_a_difference(recipe: Path) -> None:  # noqa: F811
    old = submitted(recipe, sets=["step_scheduler.max_steps=2"])
    new = submitted(recipe, sets=["step_scheduler.max_steps=2.0"])
    assert Difference("config.step_scheduler.max_steps", 2, 2.0) in api.diff(old, new).differences


def test_the_command_prints_one_line_a_difference_or_json(recipe: Path, cli: Cli) -> None:  # noqa: F811
    old = submitted(recipe, sets=["optimizer.lr=1e-5"])
    new = submitted(recipe, sets=["optimizer.lr=2e-5"])
    assert cli("diff", old.id, new.id) == (0, (
        "--set optimizer.lr: 1e-5 -> 2e-5\nconfig.optimizer.lr: 1e-05 -> 2e-05\n"), "")  # fmt: skip
    code, out, _ = cli("diff", old.id, new.id, "--format", "json")
    assert (code, json.loads(out)) == (0, {"old": old.id, "new": new.id, "differences": [
        {"key": "--set optimizer.lr", "old": "1e-5", "new": "2e-5"},
        {"key": "config.optimizer.lr", "old": 1e-05, "new": 2e-05},
    ]})  # fmt: skip
    again = submitted(recipe, sets=["optimizer.lr=1e-5"])
    assert cli("diff", old.id, again.id) == (
        0, f"jobs {old.id} and {again.id} do not differ\n", "")  # fmt: skip
    assert cli("diff", old.id, new.id, "--format", "yaml")[0] == 2


def test_two_names_of_one_job_are_said_to_be_one_job(recipe: Path, cli: Cli) -> None:  # noqa: F811
    """Not "do not differ": the same job was named twice (a usage error, exit 2)."""
    job = submitted(recipe)
    hint = "    hint: give two different jobs (`automodel-launch jobs` lists them)\n"
    for other in (job.id, job.id[:5], job.name, job.job_dir):
        assert cli("diff", job.id, other) == (2, "", (
            f"error: '{job.id}' and '{other}' are the same job ({job.id}): there is nothing "
            f"to compare\n{hint}"))  # fmt: skip
    with pytest.raises(UsageError) as raised:
        api.diff(job, job.name)
    assert str(raised.value) == (
        f"job {job.id} and '{job.name}' are the same job ({job.id}): there is nothing to compare"
    )


def _broken(job: Manifest, make: Callable[[Path], None]) -> None:
    path = Path(job.job_dir) / JOB_CONFIG
    path.unlink()
    make(path)


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.write_text("a: [1, 2\n"), "it is not a recipe ("),
        (lambda p: p.write_text("- a list\n"), "it is not a recipe (the top level is a list"),
        (
            lambda p: p.write_bytes(b"a: 1\n" * (CONFIG_BYTES // 4)),
            f"is more than the {CONFIG_BYTES}",
        ),
        (lambda p: os.mkfifo(p), "named pipe"),
        (lambda p: p.symlink_to("/etc/passwd"), "link"),
        (lambda p: None, f"has no {JOB_CONFIG}"),
    ],
    ids=["garbage", "not-a-mapping", "huge", "fifo", "link", "gone"],
)
def test_a_job_config_that_cannot_be_read_back_is_one_clear_error(
    recipe: Path,  # noqa: F811
    cli: Cli,
    make: Callable[[Path], None],
    says: str,
) -> None:
    old = submitted(recipe)
    new = submitted(recipe, sets=["optimizer.lr=2e-5"])
    _broken(new, make)
    with pytest.raises(JobConfigError, match=re.escape(says)):
        api.diff(old, new)
    code, out, err = cli("diff", old.id, new.id)
    assert (code, out) == (1, "")
    assert err.startswith("error: ") and says in err and "Traceback" not in err
    assert "    hint: submit wrote this file" in err


def test_a_sweep_is_no_job_to_compare(recipe: Path, cli: Cli) -> None:  # noqa: F811
    plan = api.plan(recipe, sweep=["optimizer.lr=1e-5,1e-4"], submitting=True, snapshot=False,
                    config=api.settings(check_paths=False))  # fmt: skip
    done = api.submit(plan)
    first, second = done.manifests
    # each point's own checkpoint directory is a --sweep value of the point, as its lr is
    assert [d.key for d in api.diff(first.id, second.id).differences] == [
        "--sweep checkpoint.checkpoint_dir", "--sweep optimizer.lr",
        "config.checkpoint.checkpoint_dir", "config.optimizer.lr",
    ]  # fmt: skip
    code, _, err = cli("diff", str(done.sweep), first.id)
    assert code == 1
    assert (
        f"error: '{done.sweep}' is sweep {done.sweep} of 2 points, not one job: name a point "
        f"by its id ({first.id}, {second.id}; `automodel-launch status {done.sweep}` lists them)"
        in err
    )


@pytest.mark.parametrize("garbage", [b"{not json", b"\x00" * 2_000_000, b'{"id": 3}'])
def test_a_manifest_that_is_garbage_is_one_clear_error(
    recipe: Path,  # noqa: F811
    cli: Cli,
    garbage: bytes,
) -> None:
    old = submitted(recipe)
    new = submitted(recipe, sets=["optimizer.lr=2e-5"])
    (Path(new.job_dir) / "manifest.json").write_bytes(garbage)
    code, out, err = cli("diff", old.id, new.job_dir)
    assert (code, out) == (1, "")
    assert err.startswith("error: ") and "manifest.json" in err and "Traceback" not in err


def test_values_are_shown_cleaned(recipe: Path, cli: Cli) -> None:  # noqa: F811
    token = make("ngc", 19)
    old = submitted(recipe)
    new = submitted(recipe, sets=["optimizer.lr=2e-5"])
    config = Path(new.job_dir) / JOB_CONFIG
    config.write_text(config.read_text() + f'hub:\n  token: {token.value}\n  note: "a\\x1b[2Jb"\n')
    code, out, _ = cli("diff", old.id, new.id)
    assert code == 0 and token.middle not in out and "\x1b" not in out
    assert "config.hub.token: (none) -> ***\n" in out
    assert "config.hub.note: (none) -> a\\x1b[2Jb\n" in out
    code, out, _ = cli("diff", old.id, new.id, "--format", "json")
    assert token.middle not in out and "\x1b" not in out and "\\u001b" not in out
