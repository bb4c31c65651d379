"""``validate`` as a user runs it: a release installed beside the tool that no table has, and
``--automodel-source`` (the fast path and typer's alike)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from tests.automodel.standin import installed, standin
from tests.conftest import ROOT, run_cli

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
WARMUP = "step_scheduler:\n  global_batch_size: 8\n  warmup_steps: 10\n"


def validate(*args: str, cwd: Path, path: str) -> subprocess.CompletedProcess[str]:
    """``python -m automodel_launch validate ARGS`` with ``path`` first on the import path."""
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{ROOT}"},
    )  # fmt: skip


def test_a_release_installed_here_that_no_table_has_is_read_and_used(tmp_path: Path) -> None:
    site = installed(tmp_path / "site", "0.8.0", ", warmup_steps=0")
    (tmp_path / "job.yaml").write_text(RECIPE + WARMUP)
    done = validate("--no-check-paths", "job.yaml", cwd=tmp_path, path=str(site))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "1 file checked against AutoModel 0.8.0 (installed here): no problems\n"
    (tmp_path / "bad.yaml").write_text(RECIPE + WARMUP.replace("warmup_steps", "warmup_step"))
    done = validate("-f", "json", "--no-check-paths", "bad.yaml", cwd=tmp_path, path=str(site))
    data = json.loads(done.stdout)
    assert done.returncode == 1 and data["automodel_version"] == "0.8.0"
    (entry,) = data["files"]
    assert (entry["automodel_found"], entry["automodel_why"]) == ("installed", "installed here")
    assert [d["path"] for d in entry["diagnostics"]] == ["step_scheduler.warmup_step"]
    assert entry["diagnostics"][0]["hint"] == "did you mean 'warmup_steps'?"
    # named as what is installed here, the release is accepted
    done = validate("--set", "automodel_version=0.8.0", "--no-check-paths", "job.yaml",
                    cwd=tmp_path, path=str(site))  # fmt: skip
    assert done.stdout == "1 file checked against AutoModel 0.8.0: no problems\n"


@pytest.mark.parametrize("runner", ["fast", "typer"])
def test_automodel_source_checks_against_that_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner: str
) -> None:
    standin(tmp_path / "fork", ", warmup_steps=0")
    (tmp_path / "job.yaml").write_text(RECIPE + WARMUP)
    args = ["validate", "--no-check-paths", "--automodel-source", "fork", "job.yaml"]
    if runner == "fast":
        done = run_cli(*args, cwd=tmp_path)
        code, out = done.returncode, done.stdout
    else:
        monkeypatch.chdir(tmp_path)
        result = CliRunner().invoke(app, args)
        code, out = result.exit_code, result.stdout
    assert (code, out) == (
        0, "1 file checked against AutoModel main (--automodel-source fork): no problems\n"
    )  # fmt: skip


def test_automodel_source_that_is_no_directory_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(RECIPE)
    done = run_cli("validate", "--automodel-source", "nowhere", "job.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "--automodel-source" in done.stderr and "nowhere" in done.stderr


def test_a_tree_it_may_not_read_is_a_note_and_the_release_found_next(tmp_path: Path) -> None:
    standin(tmp_path / "fork", ", warmup_steps=0")
    closed = tmp_path / "fork" / "nemo_automodel" / "components"
    (tmp_path / "job.yaml").write_text(RECIPE + WARMUP)
    closed.chmod(0)
    try:
        done = run_cli("validate", "--no-check-paths", "--automodel-source", "fork", "job.yaml",
                       cwd=tmp_path, user=True)  # fmt: skip
    finally:
        closed.chmod(0o755)
    assert done.returncode == 1 and done.stderr == ""
    note, hint, error, *_, last = done.stdout.splitlines()
    assert note == (
        f"job.yaml:1:1: note[automodel-not-read] the AutoModel source of --automodel-source "
        f"cannot be read: {closed.resolve()} cannot be listed (Permission denied); checked "
        "against AutoModel 0.7.0 (installed here)"
    )
    assert hint == "    hint: the shipped table of the release found next answers instead"
    assert error.startswith("job.yaml:4:3: error[unknown-argument] step_scheduler.warmup_steps: ")
    assert last.startswith("1 file checked against AutoModel 0.7.0 (installed here): 1 error")


def test_with_the_cache_validate_reads_and_imports_nothing_more(tmp_path: Path) -> None:
    standin(tmp_path / "fork", ", warmup_steps=0")
    (tmp_path / "job.yaml").write_text(RECIPE + WARMUP)
    environ = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = run_cli("validate", "--no-check-paths", "--automodel-source", "fork", "job.yaml",
                    cwd=tmp_path, environ=environ)  # fmt: skip
    assert first.returncode == 0, first.stdout + first.stderr
    script = (
        "import sys\n"
        "from automodel_launch.cli import main\n"
        "sys.argv = ['automodel-launch', 'validate', '--no-check-paths', '--automodel-source',"
        " 'fork', 'job.yaml']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "more = sorted(m for m in sys.modules\n"
        "              if m.split('.')[0] in {'sky', 'torch', 'jsonschema', 'typer', 'rich',\n"
        "                                     'click', 'nemo_automodel'}\n"
        "              or m.startswith('automodel_launch.automodel.extract')\n"
        "              or m in {'importlib.metadata', 'tempfile', 'subprocess'})\n"
        "print('MORE', more, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
        timeout=120, check=False,
        env={**os.environ, **environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert "MORE []" in done.stderr, done.stderr
    assert done.stdout == first.stdout
