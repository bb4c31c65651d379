"""Thresholds and switches, from one place.

Precedence, highest first:

1. command-line flags (passed in by the CLI as keyword arguments);
2. ``AUTOMODEL_LAUNCH_*`` environment variables (e.g. ``AUTOMODEL_LAUNCH_CHECK_PATHS=false``);
3. the user config file: ``$AUTOMODEL_LAUNCH_CONFIG``, else
   ``$XDG_CONFIG_HOME/automodel-launch/config.toml`` (``~/.config/...``);
4. the defaults below.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

OutputFormat = Literal["text", "json", "github"]


def user_config_file() -> Path:
    explicit = os.environ.get("AUTOMODEL_LAUNCH_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "automodel-launch" / "config.toml"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AUTOMODEL_LAUNCH_", extra="ignore")

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

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=user_config_file())
        return (init_settings, env_settings, toml)
