"""A package's modules parsed with ``ast`` (nothing imported), and its names resolved.

:class:`Parsed` holds the modules (name -> tree) and, for each, what its top-level
statements bind: an import (the dotted path it names), a class or function (its node), an
assignment (its node), and the lazy ``{"Name": ("pkg.mod", "Name")}`` maps a module
``__getattr__`` imports from. :meth:`Parsed.lookup` follows a dotted name through those
bindings to its definition. Function bodies are left out before parsing unless the
extractor reads them (:mod:`automodel_launch.automodel.extract.elide`).
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain

from automodel_launch.automodel.extract.elide import elide
from automodel_launch.automodel.extract.reads import read_marks

OWN = 0.5
"""The share of the modules this process elides itself (eliding a module costs about what
parsing it does: while this process elides and parses its half, another elides the rest,
which is ready when the parsing reaches it)."""


def nodes_of(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (itself first), depth first. What lies under it is kept on
    the node, as the extractor walks some functions more than once; the node itself is not
    (a node holding itself would be a cycle only the garbage collector frees, and freeing
    a package's trees by reference counting is what keeps a cold read fast). Faster than
    :func:`ast.walk`, whose breadth-first order nothing here needs."""
    known: list[ast.AST] | None = getattr(node, "_nodes", None)
    if known is None:
        known = []
        stack = [node]
        while stack:
            here = stack.pop()
            if here is not node:
                known.append(here)
            for name in here._fields:
                value = getattr(here, name, None)
                if isinstance(value, list):
                    stack.extend(item for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append(value)
        node._nodes = known  # type: ignore[attr-defined]
    return chain((node,), known)


@contextmanager
def uncollected() -> Iterator[None]:
    """No garbage collection inside: every tree is kept while the next ones are made, and
    trees hold no cycles, so collecting them while they grow only costs time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def elided(text: str, *, recipe: bool = False) -> str:
    """``text`` with the function bodies the extractor does not read left out (``recipe``:
    a recipe module, whose functions are read for more:
    :mod:`~automodel_launch.automodel.extract.reads`)."""
    return elide(text, read_marks(text, recipe=recipe))


def parse(
    path: str, text: str, *, recipe: bool = False, short: str | None = None
) -> ast.Module | None:
    """The module's tree with the function bodies the extractor does not read left out
    (``short``: :func:`elided` already made), None when Python cannot parse it."""
    try:
        return ast.parse(elided(text, recipe=recipe) if short is None else short, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass  # what the elision left is no module: the text as written decides
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _elided(item: tuple[str, bool]) -> str:
    return elided(item[0], recipe=item[1])


def _module(path: str, tree: ast.Module, text: str) -> Module:
    parts = path[: -len(".py")].split("/")
    is_package = parts[-1] == "__init__"
    return Module(".".join(parts[:-1] if is_package else parts), tree, is_package, text)


def why_unparsed(path: str, text: str) -> str:
    """What Python says of a module :func:`parse` could not parse."""
    try:
        ast.parse(text, filename=path)
    except SyntaxError as exc:
        return f"{path}:{exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"{path}: {type(exc).__name__}: {exc}"[:200]
    return f"{path}: cannot be parsed"


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a Name/Attribute chain (a subscript ``Generic[T]`` -> ``Generic``)."""
    if isinstance(node, ast.Subscript):
        return dotted_name(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def decorator_names(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for deco in node.decorator_list:
        name = dotted_name(deco.func if isinstance(deco, ast.Call) else deco)
        if name is not None:
            names.add(name.rsplit(".", 1)[-1])
    return names


@dataclass(eq=False)
class Module:
    name: str
    tree: ast.Module
    is_package: bool
    source: str = ""
    bindings: dict[str, ast.stmt | str] = field(default_factory=dict)
    lazy: dict[str, str] = field(default_factory=dict)


def top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module statements, those inside ``if``/``try``/``with`` blocks included."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from top_level(stmt.body)
            yield from top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from top_level(stmt.body)
            for handler in stmt.handlers:
                yield from top_level(handler.body)
            yield from top_level(stmt.orelse)
        elif isinstance(stmt, ast.With):
            yield from top_level(stmt.body)
        else:
            yield stmt


class Parsed:
    """A package's modules, parsed once; names resolved through its imports."""

    def __init__(self, sources: Mapping[str, str], package: str) -> None:
        """``sources``: path inside the distribution (``pkg/sub/mod.py``) -> text. The
        modules under ``pkg/recipes/`` are recipe modules (:func:`parse`)."""
        self.package = package
        self.modules: dict[str, Module] = {}
        self.unparsed: list[str] = []
        """Paths of the modules Python cannot parse (left out)."""
        self._recipes = f"{package}/recipes/"
        with uncollected():
            self._parse(sources)
        for module in self.modules.values():
            self._bind(module)

    def _parse(self, sources: Mapping[str, str]) -> None:
        """Parse every module. The elision is plain text work, about a third of the time:
        other cores make it ahead for the last modules while this process elides and
        parses the first ones (:func:`automodel_launch.fanout.made_ahead`)."""
        from automodel_launch.fanout import made_ahead

        ordered = sorted(sources.items())
        shorts = made_ahead(
            _elided, [(text, path.startswith(self._recipes)) for path, text in ordered], own=OWN
        )
        for (path, text), short in zip(ordered, shorts, strict=True):
            tree = parse(path, text, short=short)
            if tree is None:
                self.unparsed.append(path)
                continue
            module = _module(path, tree, text)
            self.modules[module.name] = module

    def inside(self, dotted: str) -> bool:
        return dotted == self.package or dotted.startswith(self.package + ".")

    def _absolute(self, module: Module, level: int, name: str | None) -> str:
        if level == 0:
            return name or ""
        parts = module.name.split(".")
        base = parts if module.is_package else parts[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, name] if name else base)

    def _bind(self, module: Module) -> None:
        for stmt in top_level(module.tree.body):
            if isinstance(stmt, ast.ImportFrom):
                source = self._absolute(module, stmt.level, stmt.module)
                for alias in stmt.names:
                    if alias.name != "*":
                        module.bindings.setdefault(
                            alias.asname or alias.name, f"{source}.{alias.name}"
                        )
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    local = alias.asname or alias.name.split(".")[0]
                    module.bindings.setdefault(local, (alias.asname and alias.name) or local)
            elif isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                if "overload" not in decorator_names(stmt):
                    module.bindings[stmt.name] = stmt
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    if isinstance(target, ast.Name) and stmt.value is not None:
                        module.bindings.setdefault(target.id, stmt)
                        if isinstance(stmt.value, ast.Dict):
                            self._lazy_map(module, stmt.value)

    def _lazy_map(self, module: Module, mapping: ast.Dict) -> None:
        """``{"Name": ("pkg.mod", "Name")}``: what a module ``__getattr__`` imports lazily."""
        for key, value in zip(mapping.keys, mapping.values, strict=False):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            if isinstance(value, ast.Tuple) and len(value.elts) == 2:
                where, attr = value.elts
                if (
                    isinstance(where, ast.Constant)
                    and isinstance(where.value, str)
                    and isinstance(attr, ast.Constant)
                    and isinstance(attr.value, str)
                ):
                    level = len(where.value) - len(where.value.lstrip("."))
                    source = self._absolute(module, level, where.value.lstrip(".") or None)
                    module.lazy[key.value] = f"{source}.{attr.value}"

    def lookup(self, dotted: str, depth: int = 0) -> tuple[Module, ast.stmt] | str | None:
        """Follow ``dotted`` to its definition: (module, node) in the package, the dotted
        path outside it (a str), or None when it names nothing in the package."""
        if depth > 20:
            return None
        if not self.inside(dotted):
            return dotted
        head, _, name = dotted.rpartition(".")
        module = self.modules.get(head)
        if module is None:
            return None
        bound = module.bindings.get(name)
        if bound is None and name in module.lazy:
            bound = module.lazy[name]
        if bound is None:
            return None
        if isinstance(bound, str):
            if bound in self.modules:
                return None  # a module, not a callable
            return self.lookup(bound, depth + 1)
        if isinstance(bound, ast.Assign | ast.AnnAssign):
            value = bound.value
            target = dotted_name(value) if value is not None else None
            if target is not None:
                return self.lookup(self._qualify(module, target), depth + 1)
            return (module, bound)
        return (module, bound)

    def _qualify(self, module: Module, dotted: str) -> str:
        """A name as written in ``module`` -> its absolute dotted path."""
        head, _, rest = dotted.partition(".")
        bound = module.bindings.get(head)
        if isinstance(bound, str):
            base = bound
        elif bound is not None:
            base = f"{module.name}.{head}"
        else:
            base = head
        return f"{base}.{rest}" if rest else base

    # ---- classes -------------------------------------------------------------
