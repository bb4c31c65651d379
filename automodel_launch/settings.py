"""Thresholds and switches, from one place.

:func:`resolve_settings` is the only way in. Precedence, highest first:

1. command-line flags (passed in by the CLI as keyword arguments);
2. ``AUTOMODEL_LAUNCH_*`` environment variables (e.g. ``AUTOMODEL_LAUNCH_CHECK_PATHS=false``);
3. the user config file: ``$AUTOMODEL_LAUNCH_CONFIG``, else
   ``$XDG_CONFIG_HOME/automodel-launch/config.toml`` (``~/.config/...``);
4. the defaults below.

Sources 2 and 3 are pydantic-settings sources (:mod:`automodel_launch.settings_sources`),
imported only when one of them has something to say: validate runs on every save in
editors and pre-commit, and pydantic-settings costs more to import than validating a file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ENV_PREFIX = "AUTOMODEL_LAUNCH_"
PROFILE_VARIABLE = "AUTOMODEL_LAUNCH_PROFILE"
"""The profile applied when neither ``--profile`` nor the section's ``profile:`` names one."""
SITE_PROFILES_VARIABLE = "AUTOMODEL_LAUNCH_SITE_PROFILES"
"""The site's profile file, instead of ``/etc/automodel-launch/profiles.yaml``."""
OTHER_VARIABLES = frozenset(
    {
        "AUTOMODEL_LAUNCH_CONFIG",
        "AUTOMODEL_LAUNCH_DEBUG",
        PROFILE_VARIABLE,
        "AUTOMODEL_LAUNCH_REQUIRE_INTEGRATION",
        SITE_PROFILES_VARIABLE,
        "AUTOMODEL_LAUNCH_UPDATE_GOLDEN",
        "AUTOMODEL_LAUNCH_SLURM_DIR",
        "AUTOMODEL_LAUNCH_SLURM_CTLD_PORT",
        "AUTOMODEL_LAUNCH_SLURMD_PORT",
        "AUTOMODEL_LAUNCH_SLURM_CPUS",
        "AUTOMODEL_LAUNCH_STATE_DIR",
        "AUTOMODEL_LAUNCH_REGISTRY_TIMEOUT",
        "AUTOMODEL_LAUNCH_SLURM_TIMEOUT",
        "AUTOMODEL_LAUNCH_POLL_SECONDS",
    }
)
"""``AUTOMODEL_LAUNCH_*`` variables that are not settings: the config file's path, the
traceback switch, the profile to apply and the site profile file
(:mod:`automodel_launch.profiles`), and the test suite's own (the test Slurm cluster's among
them)."""

OutputFormat = Literal["text", "json", "github"]
AutoModelVersion = Literal[
    "0.1.0", "0.1.2", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "main"
]  # fmt: skip
""":data:`automodel_launch.automodel.versions.KNOWN`, as a type (a test keeps them equal)."""


def user_config_file() -> Path:
    explicit = os.environ.get("AUTOMODEL_LAUNCH_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "automodel-launch" / "config.toml"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    spot_checkpoint_interval_warn: int = Field(
        default=500,
        ge=1,
        description="Warn when a spot job checkpoints less often than every N steps.",
    )
    checkpoint_margin_minutes: int = Field(
        default=10,
        ge=0,
        description="Minutes an async checkpoint needs before the Slurm time limit.",
    )
    check_paths: bool = Field(
        default=True, description="Check that mount sources and images exist on this host."
    )
    check_env: bool = Field(
        default=True, description="Warn about ${VAR} references to variables unset here."
    )
    strict: bool = Field(default=False, description="Treat warnings as errors.")
    format: OutputFormat = Field(default="text", description="Report format.")
    automodel_version: AutoModelVersion = Field(
        default="0.7.0",  # versions.DEFAULT (a test keeps them equal)
        description="The AutoModel release the job runs: the recipe is checked against its "
        "signatures, and the job starts with its entry point (`main` is AutoModel's main "
        "branch). Unset, the release is found: the repo_root checkout, the image's tag, the "
        "one installed here.",
    )
    automodel_source: Path | None = Field(
        default=None,
        description="A directory holding AutoModel's source (a checkout, or its "
        "nemo_automodel package): the recipe is checked against what that code accepts.",
    )

    @field_validator("automodel_source")
    @classmethod
    def _a_directory(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_dir():
            raise ValueError(f"{value} is not a directory")
        return value


class SettingsError(ValueError):
    """A setting that cannot be used; the message names where it came from."""


def resolve_settings(**flags: Any) -> Settings:
    """Settings from every source (see the module docstring); ``flags`` are the CLI's."""
    from pydantic import ValidationError

    given = {key: value for key, value in flags.items() if value is not None}
    _check_variables(os.environ)
    sourced = _sources_present()
    try:
        if not sourced:
            return Settings(**given)
        from automodel_launch.settings_sources import SourcedSettings

        # what no source set stays unset: an automodel_version nobody chose is found
        return Settings(**SourcedSettings(**given).model_dump(exclude_unset=True))
    except SettingsError:
        raise
    except ValidationError as exc:
        where = f"command-line flags, {ENV_PREFIX}* variables or {user_config_file()}"
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise SettingsError(f"bad setting ({where}): {problems}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SettingsError(f"cannot read the config file {user_config_file()}: {exc}") from None


def _sources_present() -> bool:
    names = _setting_variables()
    return any(key.upper() in names for key in os.environ) or user_config_file().is_file()


def _setting_variables() -> set[str]:
    return {ENV_PREFIX + name.upper() for name in Settings.model_fields}


def _check_variables(environ: Mapping[str, str]) -> None:
    """A misspelt ``AUTOMODEL_LAUNCH_*`` variable, or a config file that is not there,
    would silently leave a setting at its default: both are errors."""
    known = _setting_variables() | OTHER_VARIABLES
    for key in sorted(environ):
        name = key.upper()
        if name.startswith(ENV_PREFIX) and name not in known:
            raise SettingsError(f"unknown variable {key}" + did_you_mean(name, known, ENV_PREFIX))
    explicit = environ.get("AUTOMODEL_LAUNCH_CONFIG")
    if explicit and not Path(explicit).is_file():
        raise SettingsError(
            f"AUTOMODEL_LAUNCH_CONFIG names {explicit}, which is not a file; "
            "fix the path, or unset it to use the default config file"
        )


def did_you_mean(name: str, known: set[str] | frozenset[str], prefix: str = "") -> str:
    """``; did you mean X?`` for the closest known name, else the list of names.

    Names are compared without their common ``prefix``, which would make any two alike.
    """
    import difflib

    tails = {k.removeprefix(prefix): k for k in known}
    close = difflib.get_close_matches(name.removeprefix(prefix), sorted(tails), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {tails[close[0]]}?"
    return "; known names: " + ", ".join(sorted(known))
