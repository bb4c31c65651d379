"""The server's settings: initialization options and ``workspace/didChangeConfiguration``.

Editors send a JSON object, either bare or under an ``automodelLaunch`` (or
``automodel-launch``) key. Its keys are the fields of
:class:`automodel_launch.settings.Settings`, in snake_case or camelCase
(``strict``, ``checkPaths``, ``checkEnv``, ``spotCheckpointIntervalWarn``,
``checkpointMarginMinutes``), plus ``hostChecks`` (both host checks at once) and
``debounceMs``. What the editor says wins over ``AUTOMODEL_LAUNCH_*`` variables and the
user config file, which win over the defaults; except that host checks (paths, unset
variables) are on only when the editor turns them on: a buffer being edited is not yet
on the host where it will run, so the server is offline by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from automodel_launch.settings import Settings, SettingsError, resolve_settings

SECTIONS = ("automodelLaunch", "automodel-launch", "automodel_launch")
OFFLINE = {"check_paths": False, "check_env": False}
DEBOUNCE_MS = 30


@dataclass
class Options:
    settings: Settings = field(default_factory=lambda: Settings(**OFFLINE))
    debounce_ms: int = DEBOUNCE_MS
    problems: list[str] = field(default_factory=list)
    """What could not be used, to show the user once."""


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower().replace("-", "_")


def parse(raw: Any) -> Options:
    """Options from what the client sent; anything unusable is named in ``problems``."""
    problems: list[str] = []
    given = _section(raw)
    flags: dict[str, Any] = dict(OFFLINE)
    debounce = DEBOUNCE_MS
    for key, value in given.items():
        name = snake(str(key))
        if name == "host_checks" and isinstance(value, bool):
            flags["check_paths"] = flags["check_env"] = value
        elif name == "debounce_ms" and isinstance(value, int) and 0 <= value <= 5000:
            debounce = value
        elif name in Settings.model_fields and name != "format":
            flags[name] = value
        else:
            problems.append(f"unknown or unusable setting {key!r}")
    try:
        settings = resolve_settings(**flags)
    except SettingsError as exc:
        problems.append(str(exc))
        settings = _fallback(flags, problems)
    return Options(settings, debounce, problems)


def _section(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {}
    for name in SECTIONS:
        if isinstance(raw.get(name), dict):
            return dict(raw[name])
    if any(name in raw for name in SECTIONS):
        return {}
    return dict(raw)


def _fallback(flags: dict[str, Any], problems: list[str]) -> Settings:
    """The editor's flags alone (a bad variable or config file must not stop checking)."""
    from pydantic import ValidationError

    try:
        return Settings(**flags)
    except ValidationError as exc:
        problems.extend(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return Settings(**OFFLINE)
