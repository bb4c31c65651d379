"""Interpolations in recipe values that AutoModel's loader does not resolve.

Configs copied from OmegaConf/Hydra projects carry resolvers (``${oc.select:key,default}``,
``${now:...}``), references to other keys (``${model.name}``) and resolvers inside others.
AutoModel's loader (``components/config/loader.py``) is no OmegaConf:

- to 0.2.0 it resolves nothing: the code receives the text as written;
- from 0.3.0 (``resolve_yaml_env_vars``) every ``${...}`` is an environment variable:
  ``${VAR}``, ``${VAR,default}``, ``${oc.env:VAR,default}``, dots and colons being part of
  the name. So ``${oc.select:a.b,5}`` reads the variable ``oc.select:a.b`` (never set):
  the value is its default, ``5``; without a default, or ``${model.name}`` with no
  variable of that name, the job stops at startup (KeyError); a resolver inside another
  is cut at the first ``}``.

Each is a warning at the value, saying what the code receives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from automodel_launch.automodel.versions import at_least
from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import Loc
from automodel_launch.rules.context import Context

FIRST_RESOLVING = "0.3.0"
_RESOLVER = re.compile(r"\$\{\s*([A-Za-z_][\w.-]*)\s*:")
_DOTTED = re.compile(r"\$\{\s*([A-Za-z_]\w*)\.[\w.]+\s*\}")
_LONGEST = 2000


def interpolations(ctx: Context) -> None:
    version = ctx.release().version
    resolving = at_least(version, FIRST_RESOLVING)
    keys = {k for k in ctx.data if isinstance(k, str)}
    for name, value in ctx.data.items():
        if name in LAUNCHER_SECTIONS or not isinstance(value, (dict, list)):
            continue
        for loc, text in _texts(value, (name,)):
            found = _unresolved(text, keys)
            if found is None:
                continue
            kind, expression = found
            ctx.sink.add(
                "unresolved-interpolation",
                loc,
                _message(kind, expression, version, resolving),
                "write the value itself: AutoModel has no interpolation of other keys or "
                "resolvers, only ${VAR} environment variables (set where the job runs)",
            )


def _texts(value: dict[Any, Any] | list[Any], loc: Loc) -> Iterator[tuple[Loc, str]]:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, str):
            if "${" in item and len(item) <= _LONGEST:
                yield (*loc, key), item
        elif isinstance(item, (dict, list)):
            yield from _texts(item, (*loc, key))


def _unresolved(text: str, keys: set[str]) -> tuple[str, str] | None:
    """(``nested``, ``resolver`` or ``reference``, the expression) for the first
    interpolation in ``text`` that is not an environment variable reference."""
    start = text.find("${")
    while start >= 0:
        close = text.find("}", start)
        inner = text.find("${", start + 2)
        if 0 <= inner < close or (close < 0 and inner >= 0):
            end = _balanced_end(text, start)
            return "nested", text[start:end]
        expression = text[start : close + 1] if close >= 0 else text[start:]
        resolver = _RESOLVER.match(expression)
        if resolver and resolver.group(1) != "oc.env":
            return "resolver", expression
        dotted = _DOTTED.fullmatch(expression)
        if dotted and dotted.group(1) in keys:
            return "reference", expression
        start = text.find("${", start + 2)
    return None


def _balanced_end(text: str, start: int) -> int:
    depth = 0
    for at in range(start, len(text)):
        if text.startswith("${", at):
            depth += 1
        elif text[at] == "}":
            depth -= 1
            if depth == 0:
                return at + 1
    return len(text)


def _message(kind: str, expression: str, version: str, resolving: bool) -> str:
    release = f"AutoModel {version}"
    if not resolving:
        return (
            f"{release}'s loader resolves no interpolation: the code receives "
            f"'{expression}' as written"
        )
    if kind == "nested":
        first = expression[: expression.find("}") + 1]
        return (
            f"{release}'s loader does not resolve a resolver inside another: it reads "
            f"'{first}' as one environment variable and leaves the rest as text"
        )
    body = expression[2:-1].strip()
    name, comma, default = body.partition(",")
    if kind == "reference":
        return (
            f"{release}'s loader has no references to other keys: it reads '{expression}' "
            f"as the environment variable '{name}', and stops the job at startup where it "
            "is not set (KeyError)"
        )
    if comma:
        return (
            f"{release}'s loader has no '{name.split(':', 1)[0]}' resolver: it reads "
            f"'{expression}' as the environment variable '{name}', which is never set, so "
            f"the code receives the default '{default.strip()}'"
        )
    return (
        f"{release}'s loader has no '{name.split(':', 1)[0]}' resolver: it reads "
        f"'{expression}' as the environment variable '{name}', which is never set: the job "
        "stops at startup (KeyError)"
    )
