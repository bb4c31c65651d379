"""Rules for environment references and secrets inside launcher sections.

Pure: looks only at the config text. Whether a referenced variable is set on this
host is a host check (:mod:`automodel_launch.checks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, get_args

from pydantic import BaseModel

from automodel_launch import secrets
from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.config.recipe_secrets import recipe_credentials
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.config.types import SecretReference
from automodel_launch.diagnostics import Collector, Loc
from automodel_launch.loading import env

SHELL_TEXT_FIELDS = frozenset({"setup", "command"})
"""Fields that are shell text, where ``$VAR`` and ``$(...)`` are meant for the shell."""
UNREFERENCED_FIELDS = SHELL_TEXT_FIELDS | {"sbatch_args"}
"""Fields whose ``${VAR}`` is not ours to resolve: shell text, and ``#SBATCH`` text that
sbatch reads as written (the field itself refuses a ``$`` there)."""


def credential_fields(
    models: tuple[type[BaseModel], ...] = (SlurmConfig, SkyPilotConfig),
) -> dict[str, str]:
    """Every ``SecretReference`` field of the launcher models and the variable it is
    exported as: the reference its description shows (``${HF_TOKEN}``)."""
    found: dict[str, str] = {}
    for model in models:
        for name, info in model.model_fields.items():
            if not _is_secret_reference(info.annotation):
                continue
            shown = _SHOWN_REFERENCE.search(info.description or "")
            found.setdefault(name, shown.group(1) if shown else name.upper())
    return found


def _is_secret_reference(annotation: Any) -> bool:
    if annotation is SecretReference:
        return True
    return any(arg is SecretReference for arg in get_args(annotation))


_SHOWN_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
CREDENTIAL_FIELDS = credential_fields()
"""Credential fields and the variable each one is exported as."""
SECRET_FIELDS = frozenset(CREDENTIAL_FIELDS)


def scalars(value: Any, loc: Loc) -> list[tuple[Loc, Any]]:
    """Every scalar below ``loc``, with its loc, in document order.

    A list, built by one call per mapping or sequence: placeholders read every value of
    every file ``validate`` reads, and a generator per node costs that walk half its time.
    """
    if not isinstance(value, (dict, list)):
        return [] if value is None else [(loc, value)]
    found: list[tuple[Loc, Any]] = []
    _scalars(value, loc, found)
    return found


def _scalars(value: Any, loc: Loc, found: list[tuple[Loc, Any]]) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, (dict, list)):
            _scalars(item, (*loc, key), found)
        elif item is not None:
            found.append(((*loc, key), item))


def strings(value: Any, loc: Loc) -> list[tuple[Loc, str]]:
    """Every text value below ``loc``, with its loc."""
    return [(where, item) for where, item in scalars(value, loc) if isinstance(item, str)]


def is_sensitive(loc: Loc, text: str) -> bool:
    """A credential field, a secret-named variable, or a value that looks like a token,
    holding more than a reference."""
    if env.is_reference_only(text):
        return False
    named = loc[1] in SECRET_FIELDS or (
        len(loc) > 2 and loc[1] == "env_vars" and secrets.is_secret_name(str(loc[2]))
    )
    return named or secrets.looks_like_token(text)


def redactor(data: dict[str, Any], plain: dict[Loc, str]) -> secrets.Redactor:
    """Removes this file's credential values from any text (see :mod:`secrets`); the
    values are gathered on first use, as most files never report anything."""

    def values() -> Iterator[str]:
        for section in LAUNCHER_SECTIONS:
            raw = data.get(section)
            if not isinstance(raw, (dict, list)):
                continue
            for loc, value in scalars(raw, (section,)):
                text = str(value)
                if is_sensitive(loc, text):
                    yield from (v for v in (text, plain.get(loc)) if v)
        for credential in recipe_credentials(data):
            if credential.kind != "key":
                text = str(credential.value)
                yield from (v for v in (text, plain.get(credential.loc)) if v)

    return secrets.Redactor(values)


def check_control_characters(section: str, raw: dict[str, Any], sink: Collector) -> None:
    """A value written into a script must not carry terminal escapes: ``render`` prints it."""
    for loc, text in strings(raw, (section,)):
        found = secrets.control_character(text, allowed="\t\n")
        if found is not None:
            sink.add(
                "control-character",
                loc,
                f"this value holds the control character {found!r}, which the "
                "script (and a terminal printing it) would receive raw",
                "remove it; write the text it stands for",
            )


def check_references(section: str, raw: dict[str, Any], sink: Collector) -> None:
    check_control_characters(section, raw, sink)
    for loc, text in strings(raw, (section,)):
        if loc[1] in UNREFERENCED_FIELDS:
            continue
        found = env.scan(text)
        quiet = is_sensitive(loc, text)
        for bad in found.malformed[:1] if quiet else found.malformed:
            shown = "a '${' in this value" if quiet else f"'{bad}'"
            sink.add(
                "invalid-env-reference",
                loc,
                f"{shown} is not a valid reference",
                "write ${NAME}, ${NAME,default} or ${oc.env:NAME,default}",
            )
        for name in found.bare[:1] if quiet else found.bare:
            sink.add(
                "bare-env-reference",
                loc,
                "a '$' in this value is not expanded: it stays literal text"
                if quiet
                else f"${name} is not expanded: the value keeps the literal text '${name}'",
                "write ${NAME} to use a variable"
                if quiet
                else f"write ${{{name}}} to use the variable",
            )
        if found.command_substitution:
            sink.add(
                "command-substitution",
                loc,
                "$(...) and backticks are never run: they stay literal text",
                "compute the value before submitting and pass it as ${NAME}",
            )


def check_secrets(section: str, raw: dict[str, Any], sink: Collector) -> None:
    env_vars = raw.get("env_vars")
    names = env_vars if isinstance(env_vars, dict) else {}
    for name, value in names.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or env.is_reference_only(value):
            continue
        if secrets.looks_like_token(str(name)):
            sink.add(
                "secret-in-plain-text",
                (section, "env_vars", name),
                "this variable name looks like a credential",
                "the name is written into the job: move the credential into a variable's "
                "value, as ${NAME}",
                at_key=True,
            )
            continue
        if secrets.is_secret_name(str(name)) or secrets.looks_like_token(value):
            sink.add(
                "secret-in-plain-text",
                (section, "env_vars", name),
                f"{name} holds a credential written into the config file",
                f"write {name}: ${{{name}}} and set {name} where you submit",
            )
    for loc, text in strings(raw, (section,)):
        if loc[1] in SECRET_FIELDS or loc[1] == "env_vars":
            continue
        if secrets.looks_like_token(text):
            sink.add(
                "secret-in-plain-text",
                loc,
                "this value looks like a credential",
                "keep credentials out of the file: reference them as ${NAME}",
            )
