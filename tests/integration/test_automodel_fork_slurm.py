"""On the real local Slurm cluster: a job whose ``repo_root`` is a fork of AutoModel (a
stand-in whose StepScheduler takes one more keyword, ``warmup_steps``) validates clean
against the fork's own code and runs it; the same recipe against the 0.7.0 table is
refused at that keyword. A release installed here that no table has (the stand-in as
``nemo-automodel`` 0.8.0) is read from its source, and the job runs it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.automodel.standin import installed, standin
from tests.integration.test_jobs_slurm import Cli, cli  # noqa: F401  (the fixture)
from tests.snapshot.gitrepo import repo

pytestmark = pytest.mark.integration
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}
RECIPE = (
    "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
    "step_scheduler:\n  global_batch_size: 8\n  warmup_steps: 10\n"
)


def test_a_fork_in_repo_root_is_checked_as_it_is_and_runs(cli: Cli) -> None:  # noqa: F811
    fork = cli.tmp / "fork"
    commit = repo(fork, standin(cli.tmp / "scratch", ", warmup_steps=0"))
    config = cli.config("fork", extra=f"  repo_root: {fork}\n  master_port: auto\n")
    config.write_text(config.read_text() + RECIPE)

    checked = cli.run("validate", "--no-check-paths", str(config))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout == (
        f"1 file checked against AutoModel main (slurm.repo_root at {commit[:7]}): no problems\n"
    )
    table = cli.run("validate", "--no-check-paths", "--set", "automodel_version=0.7.0", str(config))
    assert table.returncode == 1
    assert re.search(
        r"^\S+fork\.yaml:\d+:3: error\[unknown-argument\] step_scheduler\.warmup_steps: "
        r"step_scheduler \(built as StepScheduler\) takes no argument 'warmup_steps' in "
        r"AutoModel 0\.7\.0: the job stops at startup with a TypeError$",
        table.stdout,
        re.M,
    ), table.stdout

    _runs_the_stand_in(cli, config, "main")  # AutoModel's own entry point


def test_a_release_installed_here_that_no_table_has_is_read_and_runs(cli: Cli) -> None:  # noqa: F811
    site = installed(cli.tmp / "site", "0.8.0", ", warmup_steps=0")
    env = {"PYTHONPATH": f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    job_env = f"    PYTHONPATH: {site}\n"  # the job's Python has it installed too
    config = cli.config("release", extra="  master_port: auto\n")
    text = config.read_text().replace("  env_vars:\n", "  env_vars:\n" + job_env)
    config.write_text(text + RECIPE)

    checked = cli.run("validate", "--no-check-paths", str(config), **env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout == (
        "1 file checked against AutoModel 0.8.0 (installed here): no problems\n"
    )

    _runs_the_stand_in(cli, config, "0.8.0", **env)


def _runs_the_stand_in(runner: Cli, config: Path, version: str, **env: str) -> None:
    """``submit`` of ``config``: the job completes, trained by the stand-in AutoModel with
    its added keyword, and its record names ``version``."""
    done = runner.run("submit", str(config), "--no-preflight", **env)
    assert done.returncode == 0, done.stderr
    match = re.search(r"^recorded as job (\w+): ", done.stdout, re.M)
    assert match, done.stdout + done.stderr
    shown = runner.wait_for(match.group(1), ENDED)
    log = Path(shown["log_path"]).read_text()
    assert shown["state"] == "COMPLETED", log
    assert "stand-in AutoModel trained with ['global_batch_size', 'warmup_steps']" in log, log
    assert shown["automodel_version"] == version
