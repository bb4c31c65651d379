"""Rules for environment references and secrets inside launcher sections.

Pure: looks only at the config text. Whether a referenced variable is set on this
host is a host check (:mod:`automodel_launch.checks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import Collector, Loc, Severity
from automodel_launch.loading import env

SHELL_TEXT_FIELDS = frozenset({"setup"})
"""Fields that are shell text, where ``$VAR`` and ``$(...)`` are meant for the shell."""
CREDENTIAL_FIELDS = {"hf_token": "HF_TOKEN", "wandb_key": "WANDB_API_KEY"}
"""Credential fields and the variable each one is exported as."""
SECRET_FIELDS = frozenset(CREDENTIAL_FIELDS)


def scalars(value: Any, loc: Loc) -> Iterator[tuple[Loc, Any]]:
    """Every scalar below ``loc``, with its loc."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from scalars(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from scalars(item, (*loc, index))
    elif value is not None:
        yield loc, value


def strings(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Every text value below ``loc``, with its loc."""
    for where, item in scalars(value, loc):
        if isinstance(item, str):
            yield where, item


def is_sensitive(loc: Loc, text: str) -> bool:
    """A credential field, a secret-named variable, or a value that looks like a token,
    holding more than a reference."""
    if env.is_reference_only(text):
        return False
    named = loc[1] in SECRET_FIELDS or (
        len(loc) > 2 and loc[1] == "env_vars" and env.is_secret_name(str(loc[2]))
    )
    return named or env.looks_like_secret_value(text)


def redactor(data: dict[str, Any], plain: dict[Loc, str]) -> Callable[[str], str]:
    """A function that removes this file's credential values from any text."""
    values: set[str] = set()
    for section in ("slurm", "skypilot"):
        raw = data.get(section)
        if not isinstance(raw, dict):
            continue
        for loc, value in scalars(raw, (section,)):
            text = str(value)
            if is_sensitive(loc, text):
                values.update(v for v in (text, plain.get(loc)) if v and len(v) >= 3)
    ordered = sorted(values, key=len, reverse=True)

    def hide(message: str) -> str:
        for value in ordered:
            message = message.replace(value, "***")
        return env.redact_secret_values(message)

    return hide


def check_references(section: str, raw: dict[str, Any], sink: Collector) -> None:
    for loc, text in strings(raw, (section,)):
        if loc[1] in SHELL_TEXT_FIELDS:
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
        if env.is_secret_name(str(name)) or env.looks_like_secret_value(value):
            sink.add(
                "secret-in-plain-text",
                (section, "env_vars", name),
                f"{name} holds a credential written into the config file",
                f"write {name}: ${{{name}}} and set {name} where you submit",
            )
    for loc, text in strings(raw, (section,)):
        if loc[1] in SECRET_FIELDS or loc[1] == "env_vars":
            continue
        if env.looks_like_secret_value(text):
            sink.add(
                "secret-in-plain-text",
                loc,
                "this value looks like a credential",
                "keep credentials out of the file: reference them as ${NAME}",
            )


def check_recipe_secrets(data: dict[str, Any], sink: Collector, severity: Severity) -> None:
    """Token-shaped values in recipe sections: the job config would carry them to the job."""
    for name, section in data.items():
        if name in LAUNCHER_SECTIONS:
            continue
        for loc, text in strings(section, (name,)):
            if env.looks_like_secret_value(text):
                sink.add(
                    "secret-in-recipe",
                    loc,
                    "this value looks like a credential; the job config would carry it into "
                    "the job directory",
                    "reference it as ${NAME} (AutoModel resolves it on the nodes) and set NAME "
                    "where the job runs",
                    severity=severity,
                )
