"""Mappings without ``_target_`` that AutoModel itself turns into a typed config.

A release's model builders take some keys' plain mappings and call a config class with
them (``kwargs["backend"] = BackendConfig(**kwargs["backend"])``, 0.4.0 on: the table's
``typed``, read from the source by :mod:`automodel_launch.automodel.extract.facts`). A key
the class does not take is a TypeError at startup, as in any call; a model class with its
own resolver (BAGEL's) may take others, so a key any of those classes takes passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.diagnostics import Loc, dotted
from automodel_launch.rules import recipe_names

if TYPE_CHECKING:
    from automodel_launch.automodel.table import Signature, Table
    from automodel_launch.rules.context import Context

TARGET = "_target_"


def typed_mappings(
    ctx: Context, table: Table, release: str, mapping: dict[str, Any], loc: Loc, target: str
) -> None:
    """The keys of ``mapping`` (a call of ``target``) whose plain mappings the release
    makes a config class of."""
    where = table.resolve(target)
    if where is None or not table.typed:
        return
    for key, fact in table.typed.items():
        value = mapping.get(key)
        if not isinstance(value, dict) or TARGET in value:
            continue
        if not where.startswith(str(fact.get("within", "")) + "."):
            continue
        names = [str(fact["target"]), *(str(t) for t in fact.get("also", ()))]
        signatures = [s for s in (table.signature(n) for n in names) if s is not None]
        if not signatures or any(s.var_keyword for s in signatures):
            continue
        _check(ctx, release, value, (*loc, key), signatures)


def _check(
    ctx: Context, release: str, value: dict[str, Any], loc: Loc, signatures: list[Signature]
) -> None:
    built = signatures[0]
    name = built.target.rsplit(".", 1)[-1]
    who = f"{dotted(loc)} (a mapping without _target_, which {release} builds as {name})"
    for key in value:
        if not isinstance(key, str) or any(s.accepts(key) for s in signatures):
            continue
        close = recipe_names.suggest_keyword(key, built.names)
        shown = ", ".join(built.names[:12]) + (", ..." if len(built.names) > 12 else "")
        ctx.sink.add(
            "unknown-argument",
            (*loc, key),
            f"{who} takes no argument '{key}': the job stops at startup with a TypeError",
            f"did you mean '{close}'?" if close else f"{name} takes: {shown}",
            at_key=True,
        )
    if len(signatures) > 1:
        return  # another class may be built instead: what it needs is not known here
    for needed in built.required:
        if needed not in value:
            ctx.sink.add(
                "missing-argument",
                loc,
                f"{who} needs the argument '{needed}': the job stops at startup with a TypeError",
                f"add {needed}: <value> under {dotted(loc)}",
                at_key=True,
            )
