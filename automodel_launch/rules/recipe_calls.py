"""The recipe checked as the AutoModel release that runs it builds it.

AutoModel's config loader imports every ``_target_`` (and every string under a key ending
in ``_fn``) as it reads the file, and calls a ``_target_`` with the mapping's other keys as
keyword arguments; nested mappings with a ``_target_`` are built first, the ones without
are passed as plain dicts, lists item by item. A mapping under a ``*_fn`` key is not called
there: the recipe binds its keys and calls it later with the data (a collate function),
so its keys must be arguments but the rest comes from the caller. Sections a recipe builds
without a ``_target_`` (``step_scheduler``, ``checkpoint``, ``distributed``, ...) are
checked against what the release builds them with (:meth:`Table.section`).

Every mistake here is a ``TypeError`` or ``ImportError`` after the queue wait, so each is an
error naming the callable and the release. The signature table is loaded only when a recipe
section holds something to check.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.automodel import versions
from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import Loc, dotted
from automodel_launch.rules import recipe_names
from automodel_launch.rules.context import Context
from automodel_launch.rules.recipe_built import typed_mappings

if TYPE_CHECKING:
    from automodel_launch.automodel.table import SectionBuild, Signature, Table

TARGET = "_target_"
RECIPE = "recipe"
_SHOWN = 12
"""At most this many of a callable's arguments are listed in a hint."""
RETIRED = {
    "grad_acc_steps": "remove it: AutoModel accumulates global_batch_size / (local_batch_size "
    "x dp_size) micro-batches per step",
    "checkpoint_interval": "write ckpt_every_steps, AutoModel's name for the checkpoint interval",
}
"""Keywords older recipes used that current releases dropped, and what replaces them."""


@dataclass
class _Check:
    table: Table
    ctx: Context
    release: str
    recipe: str | None
    path: str
    section_names: frozenset[str]
    varying: frozenset[str]
    """Sections some recipe builds its own way: with no recipe named, not judged."""


def recipe_calls(ctx: Context) -> None:
    if not _has_recipe_sections(ctx.data):
        return
    version = ctx.release().version
    table = ctx.release().table()
    check = _Check(
        table,
        ctx,
        f"AutoModel {version}",
        _recipe(ctx, table, version),
        ctx.path,
        table.built_sections,
        table.varying_sections,
    )
    for name, value in ctx.data.items():
        if isinstance(value, (dict, list)) and name not in LAUNCHER_SECTIONS and name != RECIPE:
            _walk(check, value, (name,), name if isinstance(name, str) else None, called=True)


def _has_recipe_sections(data: dict[str, Any]) -> bool:
    return any(
        name == RECIPE or (name not in LAUNCHER_SECTIONS and isinstance(value, (dict, list)))
        for name, value in data.items()
    )


def _places(path: str) -> tuple[Path, ...]:
    """Where a module named by a relative ``_target_`` could be: beside the config, and in
    the working directory the job starts in."""
    beside = Path(path).parent if path else Path()
    return (beside, Path()) if beside != Path() else (Path(),)


def _walk(check: _Check, value: Any, loc: Loc, name: str | None, *, called: bool) -> None:
    """``name``: the dotted path of a mapping reached through mappings only (a section the
    table may list); ``called``: AutoModel calls it with its keys (not under ``*_fn``)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                _walk(check, item, (*loc, index), None, called=called)
        return
    listed, built = (
        _section(check, name) if name is not None and name in check.section_names else (False, None)
    )
    if built is not None and (TARGET not in value or TARGET in built.supplied):
        _check_section(check, value, loc, built)
    elif TARGET in value and not (listed and built is None):
        _check_target(check, value, loc, value[TARGET], called=called, built=built)
    elif isinstance(value.get(TARGET), str):
        _check_name(check, value[TARGET], (*loc, TARGET))
    for key, item in value.items():
        if isinstance(item, str):
            if isinstance(key, str) and key.endswith("_fn"):
                _check_name(check, item, (*loc, key))
        elif isinstance(item, (dict, list)) and isinstance(key, str) and key != TARGET:
            inner = f"{name}.{key}" if name is not None else None
            _walk(check, item, (*loc, key), inner, called=not key.endswith("_fn"))


def _section(check: _Check, name: str) -> tuple[bool, SectionBuild | None]:
    """Whether the table lists the mapping at ``name`` (one of ``check.section_names``)
    as a section, and how the recipe builds it (None when listed: the recipe reads it key
    by key and calls nothing)."""
    if check.recipe is None and name in check.varying:
        return False, None
    listed = any(name in check.table.sections.get(key, {}) for key in (check.recipe, "*") if key)
    return listed, check.table.section(check.recipe, name)


def _check_target(
    check: _Check,
    mapping: dict[str, Any],
    loc: Loc,
    target: Any,
    *,
    called: bool,
    built: SectionBuild | None = None,
) -> None:
    """``built``: a section the recipe calls this target for, taking its listed keys out
    first or filling them itself."""
    if not _literal(target):
        return
    sig = recipe_names.signature(check.table, target)
    if sig is None:
        _check_name(check, target, (*loc, TARGET))
        return
    read = built.supplied if built is not None else frozenset()
    _check_keywords(check, mapping, loc, sig, target, read=read)
    if called or _short(target)[:1].isupper():
        # a class under a *_fn key (a collator) is built at startup with what AutoModel
        # gives it (the tokenizer); a function there is called later with the data and
        # whatever its recipe passes: its arguments are not all known here
        supplied = check.table.supplied | read
        _check_required(check, mapping, loc, sig, target, supplied, (*loc, TARGET))
    typed_mappings(check.ctx, check.table, check.release, mapping, loc, target)


def _check_section(check: _Check, mapping: dict[str, Any], loc: Loc, built: SectionBuild) -> None:
    """A mapping the recipe builds itself: without ``_target_``, or with one it drops
    (``_target_`` among the keys it takes out); ``choose`` picks the class by a key's value."""
    if isinstance(mapping.get(TARGET), str):
        _check_name(check, mapping[TARGET], (*loc, TARGET))
    target = built.target_for(mapping.get(built.choose)) if built.choose else built.target
    sig = check.table.signature(target) if target is not None else None
    if target is None or sig is None:
        return
    who = f"{dotted(loc)} (built as {_short(target)})"
    _check_keywords(check, mapping, loc, sig, who, read=built.supplied)
    supplied = built.supplied | check.table.supplied
    _check_required(check, mapping, loc, sig, who, supplied, loc)


def _check_keywords(
    check: _Check,
    mapping: dict[str, Any],
    loc: Loc,
    sig: Signature,
    who: str,
    read: frozenset[str] = frozenset(),
) -> None:
    """``read``: keys the recipe takes out of a section itself before building it."""
    if sig.var_keyword:
        return
    for key in mapping:
        if not isinstance(key, str) or key == TARGET or sig.accepts(key) or key in read:
            continue
        close = recipe_names.suggest_keyword(key, sig.names)
        hint = f"did you mean '{close}'?" if close else RETIRED.get(key) or _arguments(sig)
        check.ctx.sink.add(
            "unknown-argument",
            (*loc, key),
            f"{who} takes no argument '{key}' in {check.release}: the job stops at startup "
            "with a TypeError",
            hint,
            at_key=True,
        )


def _check_required(
    check: _Check,
    mapping: dict[str, Any],
    loc: Loc,
    sig: Signature,
    who: str,
    supplied: frozenset[str],
    at: Loc,
) -> None:
    for name in sig.required:
        if name in mapping or name in supplied:
            continue
        check.ctx.sink.add(
            "missing-argument",
            at,
            f"{who} needs the argument '{name}' in {check.release}, and neither "
            f"{dotted(loc)} nor AutoModel gives it: the job stops at startup with a TypeError",
            f"add {name}: <value> under {dotted(loc)}",
            at_key=True,
        )


def _check_name(check: _Check, target: str, loc: Loc) -> None:
    """A name AutoModel imports as it reads the file, not found in the table."""
    if not _literal(target) or check.table.resolve(target) is not None:
        return
    if recipe_names.signature(check.table, target) is not None:
        return
    table = check.table
    if table.covered(target):
        close = recipe_names.suggest_target(table, target)
        check.ctx.sink.add(
            "unknown-target",
            loc,
            f"{check.release} has no '{target}': the job stops at startup with an ImportError",
            f"did you mean '{close}'?" if close else None,
        )
        return
    full = recipe_names.abbreviation(table, target, lambda: _places(check.path))
    if full is not None:
        head = target.split(".", 1)[0]
        check.ctx.sink.add(
            "unknown-target",
            loc,
            f"'{target}' cannot be imported: there is no module '{head}' beside the config or "
            f"in the working directory; {check.release} has it as '{full}'",
            f"write the full path: {full}",
        )


def _recipe(ctx: Context, table: Table, version: str) -> str | None:
    """The recipe the file names (its path, for the sections it builds); a name the
    release has no recipe for is an error where the release's CLI reads ``recipe:``."""
    value = ctx.data.get(RECIPE)
    loc: Loc = (RECIPE,)
    if isinstance(value, dict):
        value, loc = value.get(TARGET), (RECIPE, TARGET)
    if not isinstance(value, str) or not value.strip() or not _literal(value):
        return None
    name = value.strip()
    found = table.recipe(name)
    if found is not None or versions.entry_form(version) != "config":
        return found
    if "." in name and not table.covered(name):
        return None  # a recipe class of the user's own
    close = recipe_names.suggest_recipe(table, name)
    ctx.sink.add(
        "unknown-recipe",
        loc,
        f"AutoModel {version} has no recipe '{name}': the job stops before training starts",
        f"did you mean '{close}'?" if close else _recipes(table, name),
    )
    return None


def _literal(value: Any) -> bool:
    """A name as written: not an interpolation or environment reference."""
    return isinstance(value, str) and "$" not in value and ":" not in value


def _short(target: str) -> str:
    return target.rsplit(".", 1)[-1]


def _arguments(sig: Signature) -> str:
    names = list(_first(sig.names, _SHOWN))
    more = ", ..." if len(sig.names) > _SHOWN else ""
    return (
        f"{_short(sig.target)} takes: {', '.join(names)}{more}"
        if names
        else (f"{_short(sig.target)} takes no keyword arguments")
    )


def _recipes(table: Table, name: str) -> str | None:
    bare = sorted(set(table.recipes.values()))
    if not bare:
        return None
    shown = ", ".join(_first(bare, _SHOWN))
    return f"recipes: {shown}{', ...' if len(bare) > _SHOWN else ''}"


def _first(items: tuple[str, ...] | list[str], count: int) -> Iterator[str]:
    return (item for _, item in zip(range(count), items, strict=False))
