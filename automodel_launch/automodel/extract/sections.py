"""The sections an AutoModel release's recipes build without a ``_target_``, read with ``ast``.

- ``SECTION_TARGETS`` below, kept by hand (the recipes build them in ways ast does not
  follow: a dict merged into ``**kwargs``, a typed config view); the keywords the recipe
  supplies are found by ast around each call of the target: its keywords, the string keys
  of the ``**`` dict it receives, keys the function pops.
- ``distributed`` is found by ast (``distributed_build``); ``dist_env`` and
  ``packed_sequence`` (read key by key, the rest ignored) are left out.
- ``dataloader`` and ``validation_dataloader`` (``loader_consumed``): the keys a recipe's
  loader builder takes out of the node it is handed (``del cfg_dl.dataloader_type`` to
  0.5.0; ``loader_kwargs.pop("group_by_length")`` in the typed config from 0.6.0).
- ``UNBUILT_CANDIDATES`` (``unread_sections``): ``_target_`` sections no recipe module of
  the release reads from its config: listed as null under ``"*"`` (imported, never called).
"""

from __future__ import annotations

import ast
import re

from automodel_launch.automodel.extract.builds import (
    calls_and_names,
    dict_keys,
    functions_of,
    supplied_around,
)
from automodel_launch.automodel.extract.index import Module, dotted_name, nodes_of, top_level
from automodel_launch.automodel.extract.signatures import Index

# section -> where its class may be defined (the first the release has wins)
SECTION_TARGETS: dict[str, tuple[str, ...]] = {
    "step_scheduler": ("nemo_automodel.components.training.step_scheduler.StepScheduler",),
    "checkpoint": (
        "nemo_automodel.components.checkpoint.checkpointing.CheckpointingConfig",
        "nemo_automodel.components.checkpoint.config.CheckpointingConfig",
    ),
}

# the sections the recipes hand to their data loader builder, and the class it makes when
# the section names none (the typed recipes from 0.6.0 drop the section's _target_)
LOADER_SECTIONS = ("dataloader", "validation_dataloader")
LOADER_TARGET = "torchdata.stateful_dataloader.StatefulDataLoader"
# how the recipes name the parameter holding the loader's config node (cfg_dl, dataloader_node)
LOADER_PARAM = re.compile(r"(^|_)(dl|dataloader)(_|$)")

# top-level _target_ sections real configs carry that a release's recipes may never read
# (AutoModel resolves the _target_ as it loads the file and builds nothing): kept when ast
# finds no recipe module reading the key from its config
UNBUILT_CANDIDATES = ("parallelizer", "moe_config", "rng")
# what the recipes call the config they read keys from (self.cfg, cfg, the typed view's _raw)
CONFIG_NAME = re.compile(r"(^|[._])(cfg|config|_raw)$")


def section_builds(
    index: Index, callables: dict[str, str], recipes: dict[str, str]
) -> dict[str, dict[str, dict[str, object] | None]]:
    """``{"*": {section: build}}``, and ``{recipe: {section: None}}`` for a recipe whose
    module calls the section's class only with explicit keywords (``StepScheduler(
    global_batch_size=cfg.step_scheduler.global_batch_size, ...)``): it reads the keys it
    knows and ignores the others, so its sections are not checked key by key."""
    built: dict[str, dict[str, object] | None] = {}
    explicit_only: dict[str, set[str]] = {}  # module -> sections it builds key by key
    for section, candidates in SECTION_TARGETS.items():
        target = next((c for c in candidates if c in callables), None)
        if target is None:
            continue
        name = target.rsplit(".", 1)[-1]
        supplied: set[str] = set()
        for module in index.modules.values():
            if f"{name}(" not in module.source:
                continue
            spreads: list[bool] = []
            for _, func in functions_of(module.tree):
                for call in calls_and_names(func)[0]:
                    if (dotted_name(call.func) or "").rsplit(".", 1)[-1] == name:
                        supplied |= supplied_around(func, call)
                        spreads.append(any(k.arg is None for k in call.keywords))
            if spreads and not any(spreads):
                explicit_only.setdefault(module.name, set()).add(section)
        built[section] = {"target": target, "supplied": " ".join(sorted(supplied))}
    distributed = distributed_build(index)
    if distributed is not None:
        built["distributed"] = distributed
    consumed = loader_consumed(index)
    for section in LOADER_SECTIONS if consumed else ():
        built[section] = {"target": LOADER_TARGET, "supplied": " ".join(sorted(consumed))}
    unbuilt: dict[str, dict[str, object] | None] = {
        section: None for section in unread_sections(index)
    }
    sections: dict[str, dict[str, dict[str, object] | None]] = {"*": {**built, **unbuilt}}
    for recipe in recipes:
        for section in sorted(explicit_only.get(recipe.rpartition(".")[0], ())):
            sections.setdefault(recipe, {})[section] = None
    return sections


def _recipe_modules(index: Index) -> list[ast.Module]:
    return [m.tree for m in index.modules.values() if m.name.split(".")[1:2] == ["recipes"]]


def loader_consumed(index: Index) -> set[str]:
    """Keys the recipes' loader builders take out of the loader's node before building:
    ``del NODE.key`` and ``NODE.pop("key")``, on the parameter holding the node or on a
    local made from it (``loader_kwargs = _as_dict(dataloader_node)``)."""
    consumed: set[str] = set()
    for tree in _recipe_modules(index):
        for _, func in functions_of(tree):
            every = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
            names = {a.arg for a in every if LOADER_PARAM.search(a.arg)}
            if names:
                consumed |= _taken_out(func, names)
    return consumed


def _taken_out(func: ast.FunctionDef, params: set[str]) -> set[str]:
    names = set(params)
    for node in nodes_of(func):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and any(isinstance(a, ast.Name) and a.id in params for a in node.value.args)
        ):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    found: set[str] = set()
    for node in nodes_of(func):
        if isinstance(node, ast.Delete):
            found |= {
                t.attr
                for t in node.targets
                if isinstance(t, ast.Attribute) and dotted_name(t.value) in names
            }
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "pop"
            and dotted_name(node.func.value) in names
            and node.args
        ):
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
    return found


def unread_sections(index: Index) -> list[str]:
    """``UNBUILT_CANDIDATES`` no recipe module reads from its config (``cfg.KEY``,
    ``cfg.get("KEY")``, ``"KEY" in cfg``)."""
    read: set[str] = set()
    for tree in _recipe_modules(index):
        for node in nodes_of(tree):
            if isinstance(node, ast.Attribute) and CONFIG_NAME.search(
                dotted_name(node.value) or ""
            ):
                read.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and CONFIG_NAME.search(dotted_name(node.func.value) or "")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                read.add(str(node.args[0].value).split(".", 1)[0])
            elif (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Constant)
                and any(CONFIG_NAME.search(dotted_name(c) or "") for c in node.comparators)
            ):
                read.add(str(node.left.value))
    return [section for section in UNBUILT_CANDIDATES if section not in read]


def _module_dicts(module_tree: ast.Module) -> dict[str, ast.Dict]:
    found: dict[str, ast.Dict] = {}
    for stmt in top_level(module_tree.body):
        target: ast.expr | None = stmt.target if isinstance(stmt, ast.AnnAssign) else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        value = getattr(stmt, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            found[target.id] = value
    return found


def distributed_build(index: Index) -> dict[str, object] | None:
    """``distributed:`` (0.3.0 on): ``parse_distributed_section`` pops the mesh sizes and
    sub-sections, drops ``_target_``, and passes the rest to the class its ``strategy:``
    picks from ``STRATEGY_MAP`` (``fsdp2`` when absent)."""
    choices: dict[str, str] = {}
    parse: tuple[Module, ast.FunctionDef] | None = None
    for module in index.modules.values():
        dicts = _module_dicts(module.tree)
        for name in ("STRATEGY_MAP", "_STRATEGY_MAP"):
            mapping = dicts.get(name)
            for key, value in zip(mapping.keys, mapping.values, strict=False) if mapping else ():
                found = index.lookup(index._qualify(module, dotted_name(value) or "?"))
                if isinstance(key, ast.Constant) and isinstance(found, tuple):
                    choices[str(key.value)] = f"{found[0].name}.{getattr(found[1], 'name', '')}"
        for _, func in functions_of(module.tree):
            if func.name == "parse_distributed_section":
                parse = (module, func)
    if parse is None or not choices:
        return None
    module, func = parse
    dicts = _module_dicts(module.tree)
    supplied: set[str] = set()
    default = "fsdp2"
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            if node.func.attr == "pop" and isinstance(first, ast.Constant):
                supplied.add(str(first.value))
                if first.value == "strategy" and len(node.args) > 1:
                    second = node.args[1]
                    default = str(second.value) if isinstance(second, ast.Constant) else default
        elif isinstance(node, ast.Name) and node.id in dicts:
            supplied |= dict_keys(dicts[node.id])
        elif isinstance(node, ast.Assign) and isinstance(
            node.value, ast.Set | ast.Tuple | ast.List
        ):
            supplied |= {
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return {
        "target": choices.get(default, ""),
        "supplied": " ".join(sorted(supplied)),
        "choose": "strategy",
        "default": default,
        "choices": choices,
    }
