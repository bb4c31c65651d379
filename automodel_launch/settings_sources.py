"""The environment and config-file sources of :mod:`automodel_launch.settings`."""

from __future__ import annotations

from pathlib import Path

from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from automodel_launch.settings import (
    ENV_PREFIX,
    Settings,
    SettingsError,
    did_you_mean,
    user_config_file,
)


class SourcedSettings(BaseSettings, Settings):
    """Flags (init) over ``AUTOMODEL_LAUNCH_*`` variables over the user config file."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", frozen=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = CheckedTomlSource(settings_cls, toml_file=user_config_file())
        return (init_settings, env_settings, toml)


class CheckedTomlSource(TomlConfigSettingsSource):
    """The user config file; a key that is not a setting (``strcit``) is an error naming it."""

    def __init__(self, settings_cls: type[BaseSettings], toml_file: Path) -> None:
        super().__init__(settings_cls, toml_file=toml_file)
        known = set(Settings.model_fields)
        for key in sorted(set(self.toml_data) - known):
            raise SettingsError(
                f"unknown setting '{key}' in {toml_file}" + did_you_mean(key, known)
            )
