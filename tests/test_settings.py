"""automodel_launch/settings.py: defaults < user config file < AUTOMODEL_LAUNCH_* < CLI flags."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from automodel_launch.cli.common import load_settings
from automodel_launch.settings import Settings, SettingsError, resolve_settings, user_config_file
from tests.conftest import ROOT

SPOT_WARNING = """\
step_scheduler:
  ckpt_every_steps: 100
checkpoint:
  checkpoint_dir: /ckpt
  restore_from: null
skypilot:
  cloud: aws
  use_spot: true
  setup: pip install nemo-automodel
  file_mounts:
    /ckpt: {source: s3://bucket/ckpt}
"""


def write_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_CONFIG", str(path))
    return path


def run_validate(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        timeout=60,
        check=False,
    )


# ------------------------------------------------------------------ defaults
def test_defaults() -> None:
    settings = resolve_settings()
    assert settings.spot_checkpoint_interval_warn == 500
    assert settings.checkpoint_margin_minutes == 10
    assert settings.check_paths is True
    assert settings.check_env is True
    assert settings.strict is False
    assert settings.format == "text"


# ------------------------------------------------------------------ where the config file is
def test_the_config_file_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUTOMODEL_LAUNCH_CONFIG", str(tmp_path / "explicit.toml"))
    assert user_config_file() == tmp_path / "explicit.toml"
    monkeypatch.delenv("AUTOMODEL_LAUNCH_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_config_file() == tmp_path / "xdg" / "automodel-launch" / "config.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_config_file() == tmp_path / "home" / ".config" / "automodel-launch" / "config.toml"


def test_the_xdg_config_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "automodel-launch").mkdir()
    (tmp_path / "automodel-launch" / "config.toml").write_text("checkpoint_margin_minutes = 3\n")
    assert resolve_settings().checkpoint_margin_minutes == 3


def test_a_missing_default_config_file_is_fine() -> None:
    assert resolve_settings().model_dump() == Settings.model_construct().model_dump()


def test_a_missing_explicit_config_file_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a typo in the path would otherwise run with defaults, silently
    monkeypatch.setenv("AUTOMODEL_LAUNCH_CONFIG", str(tmp_path / "absent.toml"))
    with pytest.raises(SettingsError) as caught:
        resolve_settings()
    assert str(caught.value) == (
        f"AUTOMODEL_LAUNCH_CONFIG names {tmp_path / 'absent.toml'}, which is not a file; "
        "fix the path, or unset it to use the default config file"
    )
    result = run_validate("examples/llm_finetune_slurm.yaml")
    assert result.returncode == 2
    assert "absent.toml" in result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------ precedence
CONFIG = """\
spot_checkpoint_interval_warn = 100
checkpoint_margin_minutes = 5
check_paths = false
strict = true
format = "json"
"""


def test_the_config_file_beats_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write_config(tmp_path, monkeypatch, CONFIG)
    settings = resolve_settings()
    assert settings.spot_checkpoint_interval_warn == 100
    assert settings.checkpoint_margin_minutes == 5
    assert settings.check_paths is False
    assert settings.check_env is True  # not in the file: default
    assert settings.strict is True
    assert settings.format == "json"


def test_the_environment_beats_the_config_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write_config(tmp_path, monkeypatch, CONFIG)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SPOT_CHECKPOINT_INTERVAL_WARN", "200")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STRICT", "false")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_FORMAT", "github")
    settings = resolve_settings()
    assert settings.spot_checkpoint_interval_warn == 200
    assert settings.strict is False
    assert settings.format == "github"
    assert settings.checkpoint_margin_minutes == 5  # only in the file


def test_flags_beat_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write_config(tmp_path, monkeypatch, CONFIG)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STRICT", "false")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_FORMAT", "github")
    settings = load_settings(strict=True, format="text", check_paths=None, check_env=None)
    assert settings.strict is True
    assert settings.format == "text"
    assert settings.check_paths is False  # flag not given: the file's value stays


@pytest.mark.parametrize(
    ("value", "parsed"), [("1", True), ("true", True), ("0", False), ("no", False)]
)
def test_environment_booleans(monkeypatch: pytest.MonkeyPatch, value: str, parsed: bool) -> None:
    monkeypatch.setenv("AUTOMODEL_LAUNCH_CHECK_ENV", value)
    assert resolve_settings().check_env is parsed


def test_an_unknown_key_in_the_config_file_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = write_config(tmp_path, monkeypatch, "strcit = true\n")
    with pytest.raises(SettingsError) as caught:
        resolve_settings()
    assert str(caught.value) == f"unknown setting 'strcit' in {path}; did you mean strict?"
    for args in (
        ("examples/llm_finetune_slurm.yaml",),
        ("examples/llm_finetune_slurm.yaml", "-f", "xml"),
    ):
        result = run_validate(*args)  # the fast path and typer's
        assert result.returncode == 2
        assert f"unknown setting 'strcit' in {path}; did you mean strict?" in result.stderr
        assert "Traceback" not in result.stderr


def test_an_unknown_key_in_the_xdg_config_file_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "automodel-launch").mkdir()
    (tmp_path / "automodel-launch" / "config.toml").write_text("future_setting = 1\n")
    with pytest.raises(SettingsError) as caught:
        resolve_settings()
    assert str(caught.value) == (
        f"unknown setting 'future_setting' in {tmp_path / 'automodel-launch' / 'config.toml'}"
        "; known names: automodel_source, automodel_version, check_env, check_paths, "
        "checkpoint_margin_minutes, format, spot_checkpoint_interval_warn, strict"
    )


@pytest.mark.parametrize(
    ("name", "close"),
    [
        ("AUTOMODEL_LAUNCH_STIRCT", "AUTOMODEL_LAUNCH_STRICT"),
        ("AUTOMODEL_LAUNCH_CHECK_PATH", "AUTOMODEL_LAUNCH_CHECK_PATHS"),
        ("automodel_launch_fromat", "AUTOMODEL_LAUNCH_FORMAT"),
    ],
)
def test_an_unknown_variable_is_an_error(
    monkeypatch: pytest.MonkeyPatch, name: str, close: str
) -> None:
    monkeypatch.setenv(name, "1")
    with pytest.raises(SettingsError) as caught:
        resolve_settings()
    assert str(caught.value) == f"unknown variable {name}; did you mean {close}?"
    result = run_validate("examples/llm_finetune_slurm.yaml")
    assert result.returncode == 2
    assert f"unknown variable {name}; did you mean {close}?" in result.stderr


@pytest.mark.parametrize(
    "name",
    [
        "AUTOMODEL_LAUNCH_DEBUG",
        "AUTOMODEL_LAUNCH_REQUIRE_INTEGRATION",
        "AUTOMODEL_LAUNCH_UPDATE_GOLDEN",
    ],
)
def test_the_variables_that_are_not_settings(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "1")
    assert resolve_settings() == Settings()


# ------------------------------------------------------------------ bad values: usage errors
@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('spot_checkpoint_interval_warn = "lots"\n', "spot_checkpoint_interval_warn"),
        ("spot_checkpoint_interval_warn = 0\n", "spot_checkpoint_interval_warn"),
        ("checkpoint_margin_minutes = -1\n", "checkpoint_margin_minutes"),
        ('format = "xml"\n', "format"),
        ('strict = "maybe"\n', "strict"),
    ],
)
def test_a_bad_value_in_the_config_file_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str, field: str
) -> None:
    write_config(tmp_path, monkeypatch, text)
    with pytest.raises(typer.BadParameter, match=field):
        load_settings()
    result = run_validate("examples/llm_finetune_slurm.yaml")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert field in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AUTOMODEL_LAUNCH_STRICT", "maybe"),
        ("AUTOMODEL_LAUNCH_SPOT_CHECKPOINT_INTERVAL_WARN", "many"),
        ("AUTOMODEL_LAUNCH_FORMAT", "xml"),
    ],
)
def test_a_bad_environment_value_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    result = run_validate("examples/llm_finetune_slurm.yaml")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("text", ["spot_checkpoint_interval_warn = \n", "[unterminated\n"])
def test_a_config_file_that_is_not_toml_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str
) -> None:
    write_config(tmp_path, monkeypatch, text)
    result = run_validate("examples/llm_finetune_slurm.yaml")
    assert "Traceback" not in result.stderr
    assert result.returncode == 2


# ------------------------------------------------------------------ end to end through the CLI
def test_precedence_end_to_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    recipe = tmp_path / "spot.yaml"
    recipe.write_text(SPOT_WARNING)
    # Defaults: interval 100 <= 500, no warning: exit 0.
    assert run_validate(str(recipe), "--no-check-env").returncode == 0
    # The config file lowers the threshold: a warning; strict from the file makes it fail.
    write_config(tmp_path, monkeypatch, "spot_checkpoint_interval_warn = 50\nstrict = true\n")
    result = run_validate(str(recipe), "--no-check-env")
    assert result.returncode == 1
    assert "warning[spot-long-checkpoint-interval]" in result.stdout
    # The environment turns strict off again.
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STRICT", "false")
    assert run_validate(str(recipe), "--no-check-env").returncode == 0
    # The flag wins over the environment.
    assert run_validate(str(recipe), "--no-check-env", "--strict").returncode == 1
    # And the environment threshold beats the file's.
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SPOT_CHECKPOINT_INTERVAL_WARN", "1000")
    result = run_validate(str(recipe), "--no-check-env", "--strict")
    assert result.returncode == 0
    assert "no problems" in result.stdout


def test_format_from_the_config_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write_config(tmp_path, monkeypatch, 'format = "json"\n')
    result = run_validate("examples/llm_finetune_slurm.yaml", "--no-check-env", "--no-check-paths")
    assert result.returncode == 0
    assert result.stdout.startswith("{")
    result = run_validate(
        "examples/llm_finetune_slurm.yaml", "--no-check-env", "--no-check-paths", "--format", "text"
    )
    assert result.stdout == "1 file checked against AutoModel 0.7.0 (installed here): no problems\n"


def test_an_unknown_variable_far_from_every_name_lists_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AUTOMODEL_LAUNCH_XYZZY", "1")
    with pytest.raises(SettingsError) as caught:
        resolve_settings()
    assert str(caught.value).startswith(
        "unknown variable AUTOMODEL_LAUNCH_XYZZY; known names: AUTOMODEL_LAUNCH_AUTOMODEL_SOURCE, "
    )
