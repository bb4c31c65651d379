"""Rules for environment references and secrets inside launcher sections.

Pure: looks only at the config text. Whether a referenced variable is set on this
host is a host check (:mod:`automodel_launch.checks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, get_args

from automodel_launch import secrets
from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.config.types import SecretReference
from automodel_launch.diagnostics import CODES, Collector, Diagnostic, Loc, Severity
from automodel_launch.loading import env

SHELL_TEXT_FIELDS = frozenset({"setup"})
"""Fields that are shell text, where ``$VAR`` and ``$(...)`` are meant for the shell."""


def _credential_fields() -> dict[str, str]:
    """Every ``SecretReference`` field of the launcher models and the variable it is
    exported as: the reference its description shows (``${HF_TOKEN}``)."""
    found: dict[str, str] = {}
    for model in (SlurmConfig, SkyPilotConfig):
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
CREDENTIAL_FIELDS = _credential_fields()
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
        len(loc) > 2 and loc[1] == "env_vars" and secrets.is_secret_name(str(loc[2]))
    )
    return named or secrets.looks_like_token(text)


def is_recipe_secret(key: Any, value: Any) -> bool:
    """A literal (not a ``${VAR}``) under a secret-named recipe key (``api_key: ...``)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    return isinstance(key, str) and secrets.is_secret_key(key) and not _only_a_reference(str(value))


def _only_a_reference(text: str) -> bool:
    """``${NAME}``, or ``${NAME,default}`` with an empty or null default: nothing literal."""
    if env.is_reference_only(text):
        return True
    text = text.strip()
    refs = env.scan(text).references
    return (
        len(refs) == 1
        and (refs[0].start, refs[0].end) == (0, len(text))
        and (refs[0].default or "").strip() in ("", "null", "None", "~")
    )


@dataclass(frozen=True)
class RecipeCredential:
    loc: Loc
    kind: Literal["key", "value", "named"]
    """A token-shaped key, a token-shaped value, a literal under a secret-named key."""
    value: Any = None


def recipe_credentials(data: dict[str, Any]) -> list[RecipeCredential]:
    """Every credential in the recipe sections, in one walk over keys and values."""
    found: list[RecipeCredential] = []

    def walk(value: Any, loc: Loc) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                where = (*loc, key)
                if secrets.looks_like_token(str(key)):
                    found.append(RecipeCredential(where, "key"))
                if isinstance(item, (dict, list)):
                    walk(item, where)
                elif isinstance(item, str) and secrets.looks_like_token(item):
                    found.append(RecipeCredential(where, "value", item))
                elif is_recipe_secret(key, item):
                    found.append(RecipeCredential(where, "named", item))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, (dict, list)):
                    walk(item, (*loc, index))
                elif isinstance(item, str) and secrets.looks_like_token(item):
                    found.append(RecipeCredential((*loc, index), "value", item))

    for name, section in data.items():
        if name not in LAUNCHER_SECTIONS:
            walk({name: section}, ())
    return found


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


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters but tab and newline (ANSI/OSC escapes, bidi overrides)."""


def check_control_characters(section: str, raw: dict[str, Any], sink: Collector) -> None:
    """A value written into a script must not carry terminal escapes: ``render`` prints it."""
    for loc, text in strings(raw, (section,)):
        found = _CONTROL.search(text)
        if found:
            sink.add(
                "control-character",
                loc,
                f"this value holds the control character {found.group()!r}, which the "
                "script (and a terminal printing it) would receive raw",
                "remove it; write the text it stands for",
            )


def check_references(section: str, raw: dict[str, Any], sink: Collector) -> None:
    check_control_characters(section, raw, sink)
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


def check_recipe_secrets(data: dict[str, Any], sink: Collector, severity: Severity) -> None:
    """Credentials in recipe sections: the job config would carry them to the job.

    A token-shaped key or value, and a literal under a secret-named key
    (``password: hunter2``). ``severity``: a warning to validate, an error to render.
    """
    carried = "the job config would carry it into the job directory"
    for credential in recipe_credentials(data):
        loc = credential.loc
        if credential.kind == "key":
            sink.add(
                "secret-in-recipe",
                loc,
                f"this key looks like a credential; {carried}",
                "keep credentials out of the file: reference them as ${NAME}",
                at_key=True,
                severity=severity,
            )
        elif credential.kind == "value":
            sink.add(
                "secret-in-recipe",
                loc,
                f"this value looks like a credential; {carried}",
                "reference it as ${NAME} (AutoModel resolves it on the nodes) and set NAME "
                "where the job runs",
                severity=severity,
            )
        else:
            variable = _variable_for(loc)
            sink.add(
                "secret-in-recipe",
                loc,
                f"'{loc[-1]}' holds a credential written into the file; {carried}",
                f"write {loc[-1]}: ${{{variable}}} (AutoModel resolves it on the nodes) and "
                f"set {variable} where the job runs",
                severity=severity,
            )


def _variable_for(loc: Loc) -> str:
    """``("wandb", "api_key")`` -> ``WANDB_API_KEY``."""
    words = [str(p) for p in loc if isinstance(p, str)][-2:]
    name = re.sub(r"[^A-Za-z0-9]+", "_", "_".join(words)).strip("_").upper()
    return name if name and not name[0].isdigit() else f"SECRET_{name}"


_COMMENT = re.compile(r"(?:^|(?<=\s))#")


def check_comment_secrets(text: str, sink: Collector) -> None:
    """Comments holding a credential: the job config keeps the recipe's comments, so
    they are redacted there; say so, and where."""
    if "#" not in text:
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if "#" not in line or not secrets.looks_like_token(line):
            continue
        for found in _COMMENT.finditer(line):
            if secrets.looks_like_token(line[found.start() :]):
                sink.items.append(
                    Diagnostic(
                        CODES["secret-in-comment"][0],
                        "secret-in-comment",
                        "",
                        number,
                        found.start() + 1,
                        "this comment holds a credential; the job config never carries it "
                        "(redacted)",
                        "delete it from the file (and revoke it if the file was shared)",
                    )
                )
                break
