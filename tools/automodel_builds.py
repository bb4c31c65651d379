"""What an AutoModel release's recipes build, supply and are called, read with ``ast``.

- ``recipes``: what AutoModel's CLI (0.4.0 on, ``cli/utils.py``) finds: classes named
  ``*Recipe*`` at the top of a ``recipes/`` file whose name does not start with ``_``,
  ``BaseRecipe`` excepted. The same rule lists the recipe classes of 0.1 to 0.3.
- ``sections``: ``SECTION_TARGETS`` below, kept by hand (the recipes build them in ways
  ast does not follow: a dict merged into ``**kwargs``, a typed config view); the
  keywords the recipe supplies are found by ast around each call of the target: its
  keywords, the string keys of the ``**`` dict it receives, keys the function pops.
  ``distributed`` is found by ast (``distributed_build``); ``dist_env`` and
  ``packed_sequence`` (read key by key, the rest ignored) are left out.
  ``dataloader`` and ``validation_dataloader`` (``loader_consumed``): the keys a recipe's
  loader builder takes out of the node it is handed (``del cfg_dl.dataloader_type`` to
  0.5.0; ``loader_kwargs.pop("group_by_length")`` in the typed config from 0.6.0).
  ``UNBUILT_CANDIDATES`` (``unread_sections``): ``_target_`` sections no recipe module of
  the release reads from its config: listed as null under ``"*"`` (imported, never called).
- ``supplied``: ``SUPPLIED_BY_HAND``, the keywords of every ``.instantiate(...)`` and
  ``.instantiate_path(...)`` call, and of every call of a configured value (a local name
  or ``self`` attribute holding a resolved ``_target_``, called with ``**kwargs``:
  ``self.factory(tokenizer=..., **kw)``).
"""

from __future__ import annotations

import ast
import re

from signature_extract import Index, _dotted, _top_level

PACKAGE = "nemo_automodel"

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

# supplied where ast does not see it: from 0.6.0 the typed recipes build the data loader
# with the dataset themselves, and call a collate function with the batch, positionally
SUPPLIED_BY_HAND = frozenset({"dataset", "batch"})

# names AutoModel's code gives a callable resolved from a config's ``_target_``
CONFIGURED = frozenset({"factory", "target", "func", "fn", "builder", "constructor"})

CALLS_CONFIGURED = re.compile(r"\binstantiate(_path)?\(|\b(" + "|".join(CONFIGURED) + r")\(")

RECIPE_CLASS = re.compile(r"^class\s+(\w*Recipe\w*)\s*[\(:]", re.MULTILINE)


def _functions(tree: ast.Module) -> list[tuple[ast.ClassDef | None, ast.FunctionDef]]:
    found: list[tuple[ast.ClassDef | None, ast.FunctionDef]] = []
    for stmt in _top_level(tree.body):
        if isinstance(stmt, ast.FunctionDef):
            found.append((None, stmt))
        elif isinstance(stmt, ast.ClassDef):
            found += [(stmt, s) for s in stmt.body if isinstance(s, ast.FunctionDef)]
    return found


_FACTS: dict[int, tuple[ast.FunctionDef, list[ast.Call], set[str]]] = {}


def _facts(func: ast.FunctionDef) -> tuple[list[ast.Call], set[str]]:
    """The calls in ``func`` and the names it binds (parameters, assignments): one walk."""
    known = _FACTS.get(id(func))
    if known is None or known[0] is not func:
        calls: list[ast.Call] = []
        local = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
        for node in ast.walk(func):
            if isinstance(node, ast.Call):
                calls.append(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                local.add(node.id)
        known = _FACTS[id(func)] = (func, calls, local)
    return known[1], known[2]


def _keywords(call: ast.Call) -> set[str]:
    return {k.arg for k in call.keywords if k.arg is not None}


def supplied_keywords(index: Index) -> set[str]:
    supplied: set[str] = set()
    for module in index.modules.values():
        if not CALLS_CONFIGURED.search(module.source):
            continue
        for owner, func in _functions(module.tree):
            methods = {
                s.name for s in (owner.body if owner else []) if isinstance(s, ast.FunctionDef)
            }
            calls, local = _facts(func)
            for call in calls:
                callee = call.func
                if isinstance(callee, ast.Attribute) and callee.attr in {
                    "instantiate",
                    "instantiate_path",
                }:
                    supplied |= _supplied_around(func, call, pops=False)
                    continue
                if not any(k.arg is None for k in call.keywords):
                    continue
                name = callee.id if isinstance(callee, ast.Name) else None
                if isinstance(callee, ast.Attribute) and _dotted(callee.value) == "self":
                    name = callee.attr if callee.attr not in methods else None
                if name in CONFIGURED and (name in local or isinstance(callee, ast.Attribute)):
                    supplied |= _supplied_around(func, call, pops=False)
    return supplied


def _dict_keys(node: ast.expr | None) -> set[str]:
    if isinstance(node, ast.Dict):
        return {
            k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    if isinstance(node, ast.Call) and _dotted(node.func) == "dict":
        return _keywords(node) | (_dict_keys(node.args[0]) if node.args else set())
    return set()


def _supplied_around(func: ast.FunctionDef, call: ast.Call, *, pops: bool = True) -> set[str]:
    """Keywords the function gives ``call`` itself: its own, the string keys of the dict it
    spreads with ``**``, and (``pops``) the keys the function pops (consumed, not passed)."""
    found = _keywords(call)
    spread = {k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in spread:
                    found |= _dict_keys(node.value)
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in spread
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    found.add(target.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr in {"update", "setdefault"} and isinstance(owner, ast.Name):
                if owner.id in spread:
                    found |= _keywords(node) | {
                        a.value
                        for a in node.args[:1]
                        if isinstance(a, ast.Constant) and isinstance(a.value, str)
                    }
                    found |= _dict_keys(node.args[0]) if node.args else set()
            elif node.func.attr == "pop" and node.args and pops:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return found


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
            for _, func in _functions(module.tree):
                for call in _facts(func)[0]:
                    if (_dotted(call.func) or "").rsplit(".", 1)[-1] == name:
                        supplied |= _supplied_around(func, call)
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
        for _, func in _functions(tree):
            every = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
            names = {a.arg for a in every if LOADER_PARAM.search(a.arg)}
            if names:
                consumed |= _taken_out(func, names)
    return consumed


def _taken_out(func: ast.FunctionDef, params: set[str]) -> set[str]:
    names = set(params)
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and any(isinstance(a, ast.Name) and a.id in params for a in node.value.args)
        ):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    found: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Delete):
            found |= {
                t.attr
                for t in node.targets
                if isinstance(t, ast.Attribute) and _dotted(t.value) in names
            }
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "pop"
            and _dotted(node.func.value) in names
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
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and CONFIG_NAME.search(_dotted(node.value) or ""):
                read.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and CONFIG_NAME.search(_dotted(node.func.value) or "")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                read.add(str(node.args[0].value).split(".", 1)[0])
            elif (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Constant)
                and any(CONFIG_NAME.search(_dotted(c) or "") for c in node.comparators)
            ):
                read.add(str(node.left.value))
    return [section for section in UNBUILT_CANDIDATES if section not in read]


def _module_dicts(module_tree: ast.Module) -> dict[str, ast.Dict]:
    found: dict[str, ast.Dict] = {}
    for stmt in _top_level(module_tree.body):
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else None
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
    parse: tuple[object, ast.FunctionDef] | None = None
    for module in index.modules.values():
        dicts = _module_dicts(module.tree)
        for name in ("STRATEGY_MAP", "_STRATEGY_MAP"):
            mapping = dicts.get(name)
            for key, value in zip(mapping.keys, mapping.values, strict=False) if mapping else ():
                found = index.lookup(index._qualify(module, _dotted(value) or "?"))
                if isinstance(key, ast.Constant) and isinstance(found, tuple):
                    choices[str(key.value)] = f"{found[0].name}.{getattr(found[1], 'name', '')}"
        for _, func in _functions(module.tree):
            if func.name == "parse_distributed_section":
                parse = (module, func)
    if parse is None or not choices:
        return None
    module, func = parse
    dicts = _module_dicts(module.tree)  # type: ignore[attr-defined]
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
            supplied |= _dict_keys(dicts[node.id])
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


def recipe_classes(sources: dict[str, str]) -> dict[str, str]:
    recipes: dict[str, str] = {}
    for path, text in sorted(sources.items()):
        parts = path.split("/")
        if parts[:2] != [PACKAGE, "recipes"] or parts[-1].startswith("_"):
            continue
        module = ".".join([*parts[:-1], parts[-1][: -len(".py")]])
        for name in RECIPE_CLASS.findall(text):
            if name != "BaseRecipe":
                recipes[f"{module}.{name}"] = name
    return recipes
