"""Credentials in the recipe sections and in comments: what the job config would carry.

The job config is the recipe minus the launcher sections, comments included, so a
token-shaped key or value, or a literal under a secret-named key (``password:
hunter2``), would reach the job directory. Validation warns; rendering refuses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from automodel_launch import secrets
from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import CODES, Collector, Diagnostic, Loc, Severity
from automodel_launch.loading import env


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


_LAST: tuple[dict[str, Any], tuple[RecipeCredential, ...]] | None = None
"""The last file's data and its credentials: the rule and the file's redactor (on its
first diagnostic) both ask, and the walk is one of the costlier on every file."""


def recipe_credentials(data: dict[str, Any]) -> tuple[RecipeCredential, ...]:
    """Every credential in the recipe sections, in one walk over keys and values.

    This walk runs on every file ``validate`` reads, recipe sections being most of a
    file: a loc is built only for a credential or a nested section, and the cached
    questions (:func:`secrets.looks_like_token`, :func:`secrets.is_secret_key`) come
    first. Asked again of the same (never modified) data, the answer is the last one.
    """
    global _LAST
    last = _LAST
    if last is not None and last[0] is data:
        return last[1]
    found: list[RecipeCredential] = []
    token = secrets.looks_like_token
    secret_key = secrets.is_secret_key

    def walk(value: Any, loc: Loc) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                name = key if isinstance(key, str) else str(key)
                if token(name):
                    found.append(RecipeCredential((*loc, key), "key"))
                if isinstance(item, str):
                    if token(item):
                        found.append(RecipeCredential((*loc, key), "value", item))
                    elif secret_key(name) and not _only_a_reference(item):
                        found.append(RecipeCredential((*loc, key), "named", item))
                elif isinstance(item, (dict, list)):
                    walk(item, (*loc, key))
                elif is_recipe_secret(key, item):
                    found.append(RecipeCredential((*loc, key), "named", item))
        else:
            for index, item in enumerate(value):
                if isinstance(item, str):
                    if token(item):
                        found.append(RecipeCredential((*loc, index), "value", item))
                elif isinstance(item, (dict, list)):
                    walk(item, (*loc, index))

    for name, section in data.items():
        if name not in LAUNCHER_SECTIONS:
            walk({name: section}, ())
    _LAST = (data, tuple(found))
    return _LAST[1]


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
