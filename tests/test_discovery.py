"""automodel_launch/discovery.py: a validate run never passes on nothing it could not read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from automodel_launch.discovery import discover
from automodel_launch.validation import validate_paths
from tests.conftest import RECIPE, ROOT, offline_settings, run_cli

CLEAN = 'slurm:\n  time: "04:00:00"\n' + RECIPE


def found(paths: list[Path], base: Path) -> list[str]:
    """``relative path`` for files to validate, ``relative path: code`` for skipped ones."""
    out = []
    for target in discover(paths):
        where = os.path.relpath(target.path, base)
        out.append(where + "".join(f": {d.code}" for d in target.problems))
    return out


def test_yaml_in_any_letter_case_sorted(tmp_path: Path) -> None:
    for name in ["b.yml", "A.YAML", "c.Yml", "sub/d.yaml", "notes.txt", "e.yaml.bak"]:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(CLEAN)
    assert found([tmp_path], tmp_path) == ["A.YAML", "b.yml", "c.Yml", "sub/d.yaml"]


def test_named_files_keep_their_order_and_are_not_filtered(tmp_path: Path) -> None:
    paths = [tmp_path / "z.txt", tmp_path / "missing.yaml", tmp_path / "a.yaml"]
    assert found(paths, tmp_path) == ["z.txt", "missing.yaml", "a.yaml"]


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    reports = validate_paths([tmp_path / "empty"], offline_settings())
    assert [(r.path, [d.code for d in r.diagnostics]) for r in reports] == [
        (str(tmp_path / "empty"), ["no-config-found"])
    ]
    problem = reports[0].diagnostics[0]
    assert problem.is_error
    assert problem.message == f"no .yaml or .yml file found in {tmp_path / 'empty'}"
    assert problem.hint == "name the config files, or a directory that holds them"


def test_a_dangling_link_is_reported_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text(CLEAN)
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    assert found([tmp_path], tmp_path) == ["gone.yaml: file-not-found", "ok.yaml"]
    report = validate_paths([tmp_path], offline_settings())[0]
    assert report.diagnostics[0].message == (
        f"{tmp_path / 'gone.yaml'} is a symbolic link to {tmp_path / 'nowhere.yaml'}, "
        "which does not exist; skipped"
    )


def test_a_link_loop_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    assert found([tmp_path], tmp_path) == [
        "a.yaml: file-unreadable",
        "b.yaml: file-unreadable",
    ]  # each skipped path is an error of its own; no second one for the same cause
    report = validate_paths([tmp_path], offline_settings())[0]
    assert report.diagnostics[0].message == (
        f"cannot read {tmp_path / 'a.yaml'}: a symbolic link loop; skipped"
    )


def test_a_directory_link_loop_is_searched_once(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.yaml").write_text(CLEAN)
    (tmp_path / "sub" / "again").symlink_to(tmp_path, target_is_directory=True)
    assert found([tmp_path], tmp_path) == ["sub/x.yaml"]


def test_a_pipe_named_yaml_is_reported_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "dir.yaml").mkdir()
    (tmp_path / "dir.yaml" / "inner.yml").write_text(CLEAN)
    assert found([tmp_path], tmp_path) == ["dir.yaml/inner.yml", "pipe.yaml: file-unreadable"]


def test_an_unreadable_subdirectory_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tests may run as root, which lists any directory: refuse it at the boundary
    (tmp_path / "ok.yaml").write_text(CLEAN)
    (tmp_path / "locked").mkdir()
    real = os.scandir

    def scandir(path: object) -> object:
        if Path(str(path)) == tmp_path / "locked":
            raise PermissionError(13, "Permission denied")
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    assert found([tmp_path], tmp_path) == ["locked: file-unreadable", "ok.yaml"]
    report = validate_paths([tmp_path], offline_settings())[0]
    assert report.diagnostics[0].message == (
        f"cannot search directory {tmp_path / 'locked'}: permission denied; skipped"
    )


def test_a_really_unreadable_subdirectory(tmp_path: Path) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked").chmod(0)
    try:
        done = run_cli("validate", ".", cwd=tmp_path, user=True)
    finally:
        (tmp_path / "locked").chmod(0o700)
    assert done.returncode == 1
    assert done.stdout.splitlines()[::2] == [
        "locked:1:1: error[file-unreadable] cannot search directory locked: permission denied; "
        "skipped",
        "1 file checked against AutoModel 0.7.0: 1 error, 0 warnings; 1 failed",  # none loaded
    ]


# ------------------------------------------------------------------ both command paths
def _fast(*args: str, cwd: Path) -> tuple[int, str]:
    result = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout


def _typer(*args: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, ["validate", *args])
    return result.exit_code, result.stdout


@pytest.mark.parametrize("runner", ["fast", "typer"])
def test_the_command_fails_on_a_directory_with_nothing_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner: str
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "A.YAML").write_text(CLEAN)
    (tmp_path / "configs" / "dangling.yml").symlink_to("missing.yml")
    args = ("--no-check-paths", "--no-check-env", "empty", "configs")
    if runner == "fast":
        code, out = _fast(*args, cwd=tmp_path)
    else:
        code, out = _typer(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    found = " (installed here)" if runner == "fast" else ""  # a child sees the test venv's
    assert code == 1
    assert out.splitlines() == [
        "empty:1:1: error[no-config-found] no .yaml or .yml file found in empty",
        "    hint: name the config files, or a directory that holds them",
        "configs/dangling.yml:1:1: error[file-not-found] configs/dangling.yml is a symbolic "
        "link to missing.yml, which does not exist; skipped",
        "    hint: fix or remove the link",
        f"3 files checked against AutoModel 0.7.0{found}: 2 errors, 0 warnings; 2 failed",
    ]
