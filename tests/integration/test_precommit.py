"""pre-commit: the ``automodel-launch`` hook, built and run by real pre-commit.

pre-commit installs a hook repository from its git state, never from a working tree,
so this repository's working tree (tracked and new files; .gitignore'd ones left out)
is committed into a throwaway repository first. That works the same on a clean CI
clone and with uncommitted changes (``pre-commit try-repo`` would drop untracked
files, such as a new ``.pre-commit-hooks.yaml``). A second throwaway repository is the
user's project, whose ``.pre-commit-config.yaml`` points at the first with
``rev: <sha>``. ``PRE_COMMIT_HOME`` is temporary and shared by the tests, so the hook's
virtualenv (which pip fills from the package index) is built once per session.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from tests.conftest import ROOT
from tests.integration.conftest import unavailable

pytestmark = pytest.mark.integration

HOOK = "automodel-launch"
HEADER = "automodel-launch validate"
IDENTITY = ["-c", "user.name=automodel-launch tests", "-c", "user.email=tests@example.invalid"]

BAD = """\
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
slurm:
  ntask_per_node: 8
  time: "4h"
recipe: TrainFinetuneRecipeForNextTokenPrediction
"""
BAD_LINES = [
    "{path}:4:3: error[unknown-key] slurm.ntask_per_node: unknown key 'ntask_per_node' in slurm",
    "{path}:5:9: error[invalid-time] slurm.time: '4h' is not a Slurm time limit",
]
GOOD = """\
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
slurm:
  nodes: 2
  ntasks_per_node: 8
  time: "04:00:00"
  master_port: 13742
recipe: TrainFinetuneRecipeForNextTokenPrediction
"""
WARNS = """\
slurm:
  env_vars:
    WANDB_PROJECT: $PROJECT
"""


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without git's or pre-commit's per-run variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "PRE_COMMIT")) and k not in ("SKIP", "FORCE_COLOR")
    }
    env.update(extra)
    return env


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def pre_commit() -> list[str]:
    if shutil.which("git") is None:
        unavailable("git is not installed")
    if importlib.util.find_spec("pre_commit") is not None:
        return [sys.executable, "-m", "pre_commit"]
    found = shutil.which("pre-commit")
    if found is None:
        unavailable("pre-commit is not installed (pip install pre-commit)")
    assert found is not None
    return [found]


@pytest.fixture(scope="session")
def hook_repo(pre_commit: list[str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This repository's working tree, committed into a throwaway repo: (path, sha)."""
    # safe.directory: a CI checkout may belong to another user than the one running tests
    trust = ["-c", f"safe.directory={ROOT}"]
    listing = subprocess.run(
        ["git", *trust, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if listing.returncode != 0:
        unavailable(f"{ROOT} is not a git checkout: {listing.stderr.strip()}")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listing.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():  # tracked files deleted in the working tree are left out
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    assert (snapshot / ".pre-commit-hooks.yaml").is_file()
    git(snapshot, "init", "-q")
    git(snapshot, "add", "-A")
    git(snapshot, "commit", "-q", "-m", "working tree snapshot")
    return snapshot, git(snapshot, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@dataclass
class Project:
    """A user's git repository with a ``.pre-commit-config.yaml`` using the hook."""

    root: Path
    command: list[str]
    home: Path
    hook_repo: tuple[Path, str]

    def configure(self, **hook_options: str) -> None:
        repo, sha = self.hook_repo
        options = "".join(f"        {key}: {value}\n" for key, value in hook_options.items())
        (self.root / ".pre-commit-config.yaml").write_text(
            f"repos:\n  - repo: {repo}\n    rev: {sha}\n    hooks:\n      - id: {HOOK}\n{options}",
            encoding="utf-8",
        )

    def write(self, name: str, text: str) -> str:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        git(self.root, "add", name)
        return name

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        git(self.root, "add", ".pre-commit-config.yaml")
        return subprocess.run(
            [*self.command, "run", "--color=never", *args],
            cwd=self.root,
            env=clean_env(PRE_COMMIT_HOME=str(self.home)),
            capture_output=True,
            text=True,
            timeout=900,  # the first run builds the hook's virtualenv from the index
        )


@pytest.fixture
def project(
    tmp_path: Path, pre_commit: list[str], pre_commit_home: Path, hook_repo: tuple[Path, str]
) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    project = Project(root, pre_commit, pre_commit_home, hook_repo)
    project.configure()
    return project


def validate_output(cwd: Path, *files: str) -> str:
    """What ``automodel-launch validate --no-check-paths --no-check-env FILE...`` prints."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, ["validate", "--no-check-paths", "--no-check-env", *files])
    finally:
        os.chdir(old)
    return result.stdout


def status_line(output: str) -> str:
    (line,) = [line for line in output.splitlines() if line.startswith(HEADER)]
    return line


def test_fails_on_a_bad_config_with_positioned_diagnostics(project: Project) -> None:
    path = project.write("recipes/bad.yaml", BAD)
    done = project.run("--files", path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert status_line(done.stdout).endswith("Failed")
    assert f"- hook id: {HOOK}\n- exit code: 1\n" in done.stdout
    lines = done.stdout.splitlines()
    for expected in BAD_LINES:
        assert expected.format(path=path) in lines
    assert validate_output(project.root, path) in done.stdout  # exactly what the CLI prints


def test_passes_on_a_good_config(project: Project) -> None:
    path = project.write("recipes/good.yaml", GOOD)
    done = project.run("--files", path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert status_line(done.stdout).endswith("Passed")
    assert "error[" not in done.stdout


def test_default_selection_is_yaml_minus_files_that_are_never_recipes(project: Project) -> None:
    listed = "- id: not-a-recipe\n  name: a list at the top level\n"
    project.write(".pre-commit-hooks.yaml", listed)
    project.write(".github/workflows/ci.yml", listed)
    project.write("notes.txt", BAD)
    bad = project.write("recipes/bad.yml", BAD)
    project.write("recipes/good.yaml", GOOD)
    done = project.run("--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    found = [line.split(":", 1)[0] for line in done.stdout.splitlines() if ": error[" in line]
    assert found == [bad, bad]


def test_files_option_narrows_the_hook(project: Project) -> None:
    project.configure(files=r"^examples/.*\.yaml$")
    project.write("recipes/bad.yaml", BAD)
    done = project.run("--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert status_line(done.stdout).endswith("(no files to check)Skipped")
    bad = project.write("examples/bad.yaml", BAD)
    done = project.run("--all-files")
    assert done.returncode == 1
    assert BAD_LINES[0].format(path=bad) in done.stdout.splitlines()


def test_warnings_pass_unless_args_make_them_fail(project: Project) -> None:
    path = project.write("recipes/warns.yaml", WARNS)
    done = project.run("--files", path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert status_line(done.stdout).endswith("Passed")
    project.configure(args="[--strict]")
    done = project.run("--files", path)
    assert done.returncode == 1
    assert f"{path}:3:20: warning[bare-env-reference] slurm.env_vars.WANDB_PROJECT:" in done.stdout
