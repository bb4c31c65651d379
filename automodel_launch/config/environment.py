"""Rules for environment references and secrets inside launcher sections.

Pure: looks only at the config text. Whether a referenced variable is set on this
host is a host check (:mod:`automodel_launch.checks`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from automodel_launch.diagnostics import Collector, Loc
from automodel_launch.loading import env

SHELL_TEXT_FIELDS = frozenset({"setup"})
"""Fields that are shell text, where ``$VAR`` and ``$(...)`` are meant for the shell."""
SECRET_FIELDS = frozenset({"hf_token", "wandb_key"})


def strings(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Every text value below ``loc``, with its loc."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, (*loc, index))


def check_references(section: str, raw: dict[str, Any], sink: Collector) -> None:
    for loc, text in strings(raw, (section,)):
        if loc[1] in SHELL_TEXT_FIELDS:
            continue
        found = env.scan(text)
        for bad in found.malformed:
            sink.add(
                "invalid-env-reference",
                loc,
                f"'{bad}' is not a valid reference",
                "write ${NAME}, ${NAME,default} or ${oc.env:NAME,default}",
            )
        for name in found.bare:
            sink.add(
                "bare-env-reference",
                loc,
                f"${name} is not expanded: the value keeps the literal text '${name}'",
                f"write ${{{name}}} to use the variable",
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
