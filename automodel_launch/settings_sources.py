"""The environment and config-file sources of :mod:`automodel_launch.settings`."""

from __future__ import annotations

from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from automodel_launch.settings import ENV_PREFIX, Settings, user_config_file


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
        toml = TomlConfigSettingsSource(settings_cls, toml_file=user_config_file())
        return (init_settings, env_settings, toml)
