"""The variables a job exports: ``env_vars`` plus the credential fields."""

from __future__ import annotations

from dataclasses import dataclass

from automodel_launch import secrets
from automodel_launch.config.environment import CREDENTIAL_FIELDS
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.loading import env


@dataclass(frozen=True)
class Value:
    text: str
    is_secret: bool


def exported_variables(cfg: SlurmConfig | SkyPilotConfig) -> list[tuple[str, Value]]:
    """(NAME, value) in order: credentials first, then env_vars (which win on a clash)."""
    out: dict[str, Value] = {}
    for field, name in CREDENTIAL_FIELDS.items():
        reference = getattr(cfg, field)
        if reference is not None:
            out[name] = Value(reference, True)
    for name, text in cfg.env_vars.items():
        out[name] = Value(text, secrets.is_secret_name(name) or _references_secret(text))
    return list(out.items())


def _references_secret(text: str) -> bool:
    return any(secrets.is_secret_name(ref.name) for ref in env.scan(text).references)


def variable_lines(cfg: SlurmConfig | SkyPilotConfig) -> list[tuple[str, str]]:
    """``submit``'s summary lines of what the job exports: the plain names, then the
    credentials by name (their values are never written)."""
    variables = exported_variables(cfg)
    plain = [name for name, value in variables if not value.is_secret]
    secret = [name for name, value in variables if value.is_secret]
    lines = [("env", ", ".join(plain))] if plain else []
    if secret:
        lines.append(("credentials", ", ".join(secret) + " (by name; values never written)"))
    return lines
