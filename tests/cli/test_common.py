"""automodel_launch/cli/common.py: command-line values that reach a script are checked.

A newline in ``--domain`` or ``--command`` ended the ``#SBATCH`` header and ran the
rest as a command; ``--entry ''`` silently meant the default entry point.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SLURM = ROOT / "examples" / "llm_finetune_slurm.yaml"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60,
        env={**os.environ, "COLUMNS": "200", "HF_TOKEN": "set"},
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.parametrize("command", ["render", "submit"])
@pytest.mark.parametrize("option", ["--domain", "--command", "--entry", "--job-dir"])
@pytest.mark.parametrize("char", ["\n", "\r", "\t", "\x1b", "\x7f", "\x85"])
def test_control_characters_are_a_usage_error(
    tmp_path: Path, command: str, option: str, char: str
) -> None:
    value = f"llm{char}#SBATCH --wrap=touch_pwned"
    args = [command, str(SLURM), option, value, "--no-check-paths"]
    result = run(*args, *(["--dry-run"] if command == "submit" else []), cwd=tmp_path)
    assert result.returncode == 2
    assert f"Invalid value for '{option}'" in result.stderr
    assert f"control character {ord(char):#04x}" in result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("entry", ["", "   "])
def test_an_empty_entry_is_a_usage_error(tmp_path: Path, entry: str) -> None:
    result = run("render", str(SLURM), "--entry", entry, "--no-check-paths", cwd=tmp_path)
    assert result.returncode == 2
    assert "Invalid value for '--entry': it is empty; leave --entry out" in result.stderr


def test_an_unclosed_quote_in_the_entry_is_a_usage_error(tmp_path: Path) -> None:
    result = run("render", str(SLURM), "--entry", "train.py 'x", "--no-check-paths", cwd=tmp_path)
    assert result.returncode == 2
    assert "it is not a command line (no closing quotation)" in result.stderr


def test_ordinary_values_pass(tmp_path: Path) -> None:
    result = run(
        "render", str(SLURM), "--entry", "-m my_pkg.train --config {config}",
        "--domain", "vlm", "--no-check-paths", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "my_pkg.train" in result.stdout


def test_a_settings_error_never_shows_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    from automodel_launch.cli.common import load_settings

    token = "ghp_" + "S3tt1ngs" * 5
    monkeypatch.setenv(f"AUTOMODEL_LAUNCH_{token}", "1")
    with pytest.raises(typer.BadParameter) as raised:
        load_settings()
    from automodel_launch.secrets import display

    # the list is long enough to be cut as every message is (600 characters)
    assert str(raised.value) == display(
        "unknown variable AUTOMODEL_LAUNCH_***; known names: "
        "AUTOMODEL_LAUNCH_AUTOMODEL_SOURCE, AUTOMODEL_LAUNCH_AUTOMODEL_VERSION, "
        "AUTOMODEL_LAUNCH_CHECKPOINT_MARGIN_MINUTES, "
        "AUTOMODEL_LAUNCH_CHECK_ENV, "
        "AUTOMODEL_LAUNCH_CHECK_PATHS, AUTOMODEL_LAUNCH_CONFIG, AUTOMODEL_LAUNCH_DEBUG, "
        "AUTOMODEL_LAUNCH_FORMAT, AUTOMODEL_LAUNCH_POLL_SECONDS, AUTOMODEL_LAUNCH_PROFILE, "
        "AUTOMODEL_LAUNCH_REGISTRY_TIMEOUT, "
        "AUTOMODEL_LAUNCH_REQUIRE_INTEGRATION, AUTOMODEL_LAUNCH_SITE_PROFILES, "
        "AUTOMODEL_LAUNCH_SLURMD_PORT, AUTOMODEL_LAUNCH_SLURM_CPUS, "
        "AUTOMODEL_LAUNCH_SLURM_CTLD_PORT, AUTOMODEL_LAUNCH_SLURM_DIR, "
        "AUTOMODEL_LAUNCH_SLURM_TIMEOUT, AUTOMODEL_LAUNCH_SPOT_CHECKPOINT_INTERVAL_WARN, "
        "AUTOMODEL_LAUNCH_STATE_DIR, "
        "AUTOMODEL_LAUNCH_STRICT, AUTOMODEL_LAUNCH_UPDATE_GOLDEN"
    )
    assert token not in str(raised.value)
