"""What AutoModel checks as it starts, read from a release's sources with ``ast``.

- ``unsized``: data set classes with no length. A class is one when an iterable data set
  (``IterableDataset``, torch's or Hugging Face's) is among its bases and the first
  ``__len__`` its method resolution order finds is none, or one that only raises
  (``NanogptDataset``: ``raise NotImplementedError``). The StepScheduler takes the
  epoch's length from the loader; without one it needs ``max_steps`` (from 0.1.2:
  "epoch_len must be provided if max_steps is not provided").
- ``typed``: a key whose plain mapping AutoModel turns into a config class, found as
  ``kwargs["backend"] = BackendConfig(**kwargs["backend"])`` (``_transformers/
  model_init.py``, 0.4.0 on): ``{"backend": {"target": ..., "within": ...}}``, ``within``
  the package whose callables do it (a mapping with a ``_target_`` there). A model class
  may bring its own resolver (``backend_config_resolver``, BAGEL's): the classes the
  resolvers build are listed too (``also``), and a key any of them takes is taken.
- ``nemo_run_refuses``: whether NeMo-Run's ``apply_overrides`` raises on a field the
  executor lacks (0.7.0) or sets it anyway (None when the release has no such function).
"""

from __future__ import annotations

import ast
import re

from automodel_launch.automodel.extract.index import Module, dotted_name, nodes_of, top_level
from automodel_launch.automodel.extract.signatures import Index

ITERABLE = "IterableDataset"
_SPREAD_KEY = re.compile(r"\(\*\*\s*[\w.]+\s*\[")


def startup_facts(index: Index, callables: dict[str, str]) -> dict[str, object]:
    return {
        "unsized": unsized_datasets(index, callables),
        "typed": typed_configs(index, callables),
        "nemo_run_refuses": nemo_run_refuses(index),
    }


def _classes(index: Index) -> list[tuple[Module, ast.ClassDef]]:
    return [
        (module, stmt)
        for module in index.modules.values()
        for stmt in top_level(module.tree.body)
        if isinstance(stmt, ast.ClassDef)
    ]


def _only_raises(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # a docstring
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _length(index: Index, module: Module, cls: ast.ClassDef) -> bool | None:
    """False: the class has no length; True: it has one; None: a base outside the package
    other than an iterable data set decides."""
    for entry in index.mro(module, cls):
        if isinstance(entry, str):
            return False if entry.rsplit(".", 1)[-1] == ITERABLE else None
        for stmt in entry[1].body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "__len__":
                return not _only_raises(stmt)
    return None


def _iterable(index: Index, module: Module, cls: ast.ClassDef) -> bool:
    return any(
        isinstance(entry, str) and entry.rsplit(".", 1)[-1] == ITERABLE
        for entry in index.mro(module, cls)
    )


def unsized_datasets(index: Index, callables: dict[str, str]) -> list[str]:
    found = []
    for module, cls in _classes(index):
        path = f"{module.name}.{cls.name}"
        sized = _length(index, module, cls) if path in callables else True
        if sized is False and _iterable(index, module, cls):
            found.append(path)
    return sorted(found)


def _local_imports(index: Index, module: Module, func: ast.AST) -> dict[str, str]:
    """Names a function imports inside its body (``from x import BackendConfig``)."""
    names: dict[str, str] = {}
    for node in nodes_of(func):
        if isinstance(node, ast.ImportFrom):
            source = index._absolute(module, node.level, node.module)
            for alias in node.names:
                names[alias.asname or alias.name] = f"{source}.{alias.name}"
    return names


def _resolve(index: Index, module: Module, local: dict[str, str], written: str) -> str | None:
    head, _, rest = written.partition(".")
    dotted = (
        f"{local[head]}.{rest}".rstrip(".") if head in local else index._qualify(module, written)
    )
    found = index.lookup(dotted)
    if isinstance(found, tuple) and isinstance(found[1], ast.ClassDef):
        return f"{found[0].name}.{found[1].name}"
    return None


def _functions(module: Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        node
        for node in nodes_of(module.tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _spread_key(call: ast.Call) -> str | None:
    """``"backend"`` for ``Cls(**anything["backend"])`` (and nothing else passed)."""
    if call.args or len(call.keywords) != 1 or call.keywords[0].arg is not None:
        return None
    value = call.keywords[0].value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant):
        key = value.slice.value
        return key if isinstance(key, str) else None
    return None


def typed_configs(index: Index, callables: dict[str, str]) -> dict[str, dict[str, object]]:
    typed: dict[str, dict[str, object]] = {}
    for module in index.modules.values():
        if "(**" not in module.source or not _SPREAD_KEY.search(module.source):
            continue
        for func in _functions(module):
            local: dict[str, str] | None = None
            for node in nodes_of(func):
                if not isinstance(node, ast.Call):
                    continue
                key = _spread_key(node)
                written = dotted_name(node.func) if key is not None else None
                if key is None or written is None or key in typed:
                    continue
                local = _local_imports(index, module, func) if local is None else local
                target = _resolve(index, module, local, written)
                if target is not None and callables.get(target, "**").split()[-1:] != ["**"]:
                    within = ".".join(module.name.split(".")[:2])
                    typed[key] = {"target": target, "within": within}
    for key, fact in typed.items():
        fact["also"] = _resolver_classes(index, callables, key)
    return typed


def _resolver_classes(index: Index, callables: dict[str, str], key: str) -> list[str]:
    """Classes built by a ``{key}_config_resolver`` a model class names (``staticmethod(f)``):
    what ``f`` makes with ``Cls(**...)``."""
    found: set[str] = set()
    attribute = f"{key}_config_resolver"
    for module, cls in _classes(index):
        for stmt in cls.body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target, value = stmt.targets[0], stmt.value
            if not (isinstance(target, ast.Name) and target.id == attribute):
                continue
            if isinstance(value, ast.Call) and value.args:
                value = value.args[0]  # staticmethod(resolve)
            name = dotted_name(value)
            bound = index.lookup(index._qualify(module, name)) if name else None
            if isinstance(bound, tuple) and isinstance(bound[1], ast.FunctionDef):
                found |= _built(index, callables, bound[0], bound[1])
    return sorted(found)


def _built(index: Index, callables: dict[str, str], module: Module, func: ast.AST) -> set[str]:
    local = _local_imports(index, module, func)
    built = set()
    for node in nodes_of(func):
        if isinstance(node, ast.Call) and any(k.arg is None for k in node.keywords):
            written = dotted_name(node.func)
            target = _resolve(index, module, local, written) if written else None
            if target is not None and target in callables:
                built.add(target)
    return built


def nemo_run_refuses(index: Index) -> bool | None:
    for module in index.modules.values():
        if "nemo_run" not in module.name or "apply_overrides" not in module.source:
            continue
        for func in _functions(module):
            if func.name == "apply_overrides":
                return any(isinstance(node, ast.Raise) for node in nodes_of(func))
    return None
