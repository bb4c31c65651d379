"""What an AutoModel release's recipes are, and the keywords AutoModel passes itself.

- ``recipes``: what AutoModel's CLI (0.4.0 on, ``cli/utils.py``) finds: classes named
  ``*Recipe*`` at the top of a ``recipes/`` file whose name does not start with ``_``,
  ``BaseRecipe`` excepted. The same rule lists the recipe classes of 0.1 to 0.3.
- ``supplied``: ``SUPPLIED_BY_HAND``, the keywords of every ``.instantiate(...)`` and
  ``.instantiate_path(...)`` call, and of every call of a configured value (a local name
  or ``self`` attribute holding a resolved ``_target_``, called with ``**kwargs``:
  ``self.factory(tokenizer=..., **kw)``).

How the sections a recipe builds are found: :mod:`.sections`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from automodel_launch.automodel.extract.index import dotted_name, nodes_of, top_level
from automodel_launch.automodel.extract.signatures import Index

PACKAGE = "nemo_automodel"

# supplied where ast does not see it: from 0.6.0 the typed recipes build the data loader
# with the dataset themselves, and call a collate function with the batch, positionally
SUPPLIED_BY_HAND = frozenset({"dataset", "batch"})

# names AutoModel's code gives a callable resolved from a config's ``_target_``
CONFIGURED = frozenset({"factory", "target", "func", "fn", "builder", "constructor"})

_CALL_WORDS = tuple(f"{name}(" for name in ("instantiate", "instantiate_path", *CONFIGURED))


def calls_configured(source: str) -> bool:
    """Whether ``source`` calls ``instantiate``/``instantiate_path`` or a name of
    :data:`CONFIGURED` (each a whole word)."""
    for word in _CALL_WORDS:
        at = source.find(word)
        while at >= 0:
            if at == 0 or not (source[at - 1] == "_" or source[at - 1].isalnum()):
                return True
            at = source.find(word, at + 1)
    return False


RECIPE_CLASS = re.compile(r"^class\s+(\w*Recipe\w*)\s*[\(:]", re.MULTILINE)


def functions_of(tree: ast.Module) -> list[tuple[ast.ClassDef | None, ast.FunctionDef]]:
    found: list[tuple[ast.ClassDef | None, ast.FunctionDef]] = []
    for stmt in top_level(tree.body):
        if isinstance(stmt, ast.FunctionDef):
            found.append((None, stmt))
        elif isinstance(stmt, ast.ClassDef):
            found += [(stmt, s) for s in stmt.body if isinstance(s, ast.FunctionDef)]
    return found


def calls_and_names(func: ast.FunctionDef) -> tuple[list[ast.Call], set[str]]:
    """The calls in ``func`` and the names it binds (parameters, assignments): one walk,
    kept on the function."""
    known: tuple[list[ast.Call], set[str]] | None = getattr(func, "_calls", None)
    if known is None:
        calls: list[ast.Call] = []
        local = {a.arg for a in nodes_of(func.args) if isinstance(a, ast.arg)}
        for node in nodes_of(func):
            if isinstance(node, ast.Call):
                calls.append(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                local.add(node.id)
        known = func._calls = (calls, local)  # type: ignore[attr-defined]
    return known


def _keywords(call: ast.Call) -> set[str]:
    return {k.arg for k in call.keywords if k.arg is not None}


def supplied_keywords(index: Index) -> set[str]:
    supplied: set[str] = set()
    for module in index.modules.values():
        if not calls_configured(module.source):
            continue
        for owner, func in functions_of(module.tree):
            methods = {
                s.name for s in (owner.body if owner else []) if isinstance(s, ast.FunctionDef)
            }
            calls, local = calls_and_names(func)
            for call in calls:
                callee = call.func
                if isinstance(callee, ast.Attribute) and callee.attr in {
                    "instantiate",
                    "instantiate_path",
                }:
                    supplied |= supplied_around(func, call, pops=False)
                    continue
                if not any(k.arg is None for k in call.keywords):
                    continue
                name = callee.id if isinstance(callee, ast.Name) else None
                if isinstance(callee, ast.Attribute) and dotted_name(callee.value) == "self":
                    name = callee.attr if callee.attr not in methods else None
                if name in CONFIGURED and (name in local or isinstance(callee, ast.Attribute)):
                    supplied |= supplied_around(func, call, pops=False)
    return supplied


def dict_keys(node: ast.expr | None) -> set[str]:
    if isinstance(node, ast.Dict):
        return {
            k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    if isinstance(node, ast.Call) and dotted_name(node.func) == "dict":
        return _keywords(node) | (dict_keys(node.args[0]) if node.args else set())
    return set()


def supplied_around(func: ast.FunctionDef, call: ast.Call, *, pops: bool = True) -> set[str]:
    """Keywords the function gives ``call`` itself: its own, the string keys of the dict it
    spreads with ``**``, and (``pops``) the keys the function pops (consumed, not passed)."""
    found = _keywords(call)
    spread = {k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)}
    for node in nodes_of(func):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in spread:
                    found |= dict_keys(node.value)
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
                    found |= dict_keys(node.args[0]) if node.args else set()
            elif node.func.attr == "pop" and node.args and pops:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return found


def recipe_classes(sources: Mapping[str, str]) -> dict[str, str]:
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
