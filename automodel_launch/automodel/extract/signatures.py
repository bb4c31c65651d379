"""The keyword signatures of a Python package's callables, read with ``ast`` (nothing imported).

``Index`` holds a package's modules (name -> source); ``Index.table`` lists every public
class and function a dotted ``_target_`` can name, with its keyword parameters in the
text form of ``automodel_launch/automodel/table.py`` (``a! b c **``):

- a function: its parameters; positional-only ones are left out (a keyword cannot fill
  them), ``*args`` too, ``**kwargs`` is ``**``;
- a class: the ``__init__`` it runs. Its own, else (a dataclass or pydantic model) its
  fields, bases' fields first, ``ClassVar`` and ``field(init=False)`` left out; else the
  first base in the package that has one, bases searched depth-first left to right.
  A class whose ``__init__`` would come from a base outside the package accepts
  anything (``**``): what that base takes is not read here. With no ``__init__``
  anywhere (only ``object``/``ABC``/``Generic``/``Protocol`` bases) it takes nothing.
  A pydantic model ignores unknown fields unless ``extra="forbid"``: ``**`` too;
- ``Class.method`` for every public classmethod and staticmethod, inherited ones from
  bases in the package included (``NeMoAutoModelForCausalLM.from_pretrained``);
- a module-level ``name = functools.partial(...)``: ``**``.

A class with a base outside the package is "open": ``Class.anything`` may exist
(``PretrainedConfig.from_pretrained`` inherited from transformers) and is not guessed at.
Aliases: what a package's ``__init__`` re-exports (``from .x import Y``, a lazy
``{"Y": ("pkg.x", "Y")}`` map read by its module ``__getattr__``) and module-level
``Y = X`` assignments, each mapped to where the callable is defined.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import Union

from automodel_launch.automodel.extract.index import (
    Module,
    Parsed,
    decorator_names,
    dotted_name,
    top_level,
)

INERT_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic"})
PYDANTIC_BASES = frozenset({"BaseModel", "BaseSettings"})
ANYTHING = "**"


def params_text(func: ast.FunctionDef | ast.AsyncFunctionDef, *, bound: bool) -> str:
    """The keyword parameters of ``func`` (``bound``: its first parameter is self/cls)."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults, strict=False))
    if bound and pairs:
        pairs = pairs[1:]
    posonly = len(args.posonlyargs) - (1 if bound and args.posonlyargs else 0)
    words = [a.arg + ("" if d is not None else "!") for a, d in pairs[max(posonly, 0) :]]
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        words.append(arg.arg + ("" if default is not None else "!"))
    if args.kwarg is not None:
        words.append(ANYTHING)
    return " ".join(words)


Base = Union[tuple[Module, ast.ClassDef], str]  # noqa: UP007 (an alias, read at run time)


def _c3(lines: list[list[Base]]) -> list[Base]:
    """C3 merge; an inconsistent hierarchy falls back to the lines in order."""
    lines = [list(line) for line in lines if line]
    merged: list[Base] = []
    while lines:
        for line in lines:
            candidate = line[0]
            if not any(candidate in other[1:] for other in lines):
                break
        else:
            return merged + [e for line in lines for e in line if e not in merged]
        merged.append(candidate)
        lines = [[e for e in line if e != candidate] for line in lines]
        lines = [line for line in lines if line]
    return merged


def _inside(order: list[Base]) -> Iterator[tuple[Module, ast.ClassDef]]:
    for entry in order:
        if not isinstance(entry, str):
            yield entry


def _pydantic(order: list[Base]) -> bool:
    return any(isinstance(e, str) and e in PYDANTIC_BASES for e in order)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            return stmt
    return None


def _is_dataclass(cls: ast.ClassDef) -> bool:
    return "dataclass" in decorator_names(cls)


def _makes_dataclasses(cls: ast.ClassDef) -> bool:
    """``__init_subclass__`` calling ``dataclass(cls)``: every subclass is rebuilt."""
    hook = _method(cls, "__init_subclass__")
    return hook is not None and any(
        isinstance(n, ast.Call) and (dotted_name(n.func) or "").endswith("dataclass")
        for n in ast.walk(hook)
    )


def _own_fields(cls: ast.ClassDef) -> dict[str, tuple[bool, bool] | None]:
    """Field name -> (required, keyword-only), or None for ``field(init=False)``."""
    fields: dict[str, tuple[bool, bool] | None] = {}
    kw_only = _decorator_flag(cls, "kw_only")
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = ast.unparse(stmt.annotation)
        if annotation.endswith("KW_ONLY"):
            kw_only = True
            continue
        if "ClassVar" in annotation:
            continue
        name, value = stmt.target.id, stmt.value
        words: dict[str | None, ast.expr] = {}
        if isinstance(value, ast.Call) and (dotted_name(value.func) or "").rsplit(".", 1)[-1] in {
            "field",
            "Field",
        }:
            words = {k.arg: k.value for k in value.keywords}
            init = words.get("init")
            if isinstance(init, ast.Constant) and init.value is False:
                fields[name] = None
                continue
            default = bool(value.args) or bool({"default", "default_factory"} & set(words))
            own_kw = words.get("kw_only")
            this_kw = own_kw.value is True if isinstance(own_kw, ast.Constant) else kw_only
            fields[name] = (not default, bool(this_kw))
        else:
            fields[name] = (value is None, kw_only)
    return fields


def _decorator_flag(cls: ast.ClassDef, flag: str) -> bool:
    for deco in cls.decorator_list:
        if isinstance(deco, ast.Call):
            for word in deco.keywords:
                if word.arg == flag and isinstance(word.value, ast.Constant):
                    return bool(word.value.value)
    return False


class Index(Parsed):
    """A package's modules with what a config key can fill of each callable."""

    def __init__(self, sources: Mapping[str, str], package: str) -> None:
        super().__init__(sources, package)
        self._mro: dict[int, list[Base]] = {}

    def bases(self, module: Module, cls: ast.ClassDef) -> Iterator[Base]:
        """Each base: (module, ClassDef) in the package, or the dotted name of one outside
        it; ``object``/``ABC``/``Generic`` (which take nothing) are left out."""
        for base in cls.bases:
            written = dotted_name(base)
            if written is None:
                yield "?"
                continue
            if written in INERT_BASES or written.rsplit(".", 1)[-1] in INERT_BASES:
                continue
            found = self.lookup(self._qualify(module, written))
            if isinstance(found, tuple) and isinstance(found[1], ast.ClassDef):
                yield (found[0], found[1])
            else:
                tail = written.rsplit(".", 1)[-1]
                yield tail if tail in PYDANTIC_BASES else written

    def mro(self, module: Module, cls: ast.ClassDef, depth: int = 0) -> list[Base]:
        """The class's method resolution order (C3), outside bases as names."""
        key = id(cls)
        if key in self._mro:
            return self._mro[key]
        head: Base = (module, cls)
        if depth > 30:
            return [head, "?"]
        parents = list(self.bases(module, cls))
        lines: list[list[Base]] = [
            self.mro(*p, depth=depth + 1) if isinstance(p, tuple) else [p] for p in parents
        ]
        order = [head, *_c3([*lines, parents])]
        self._mro[key] = order
        return order

    def init_text(self, module: Module, cls: ast.ClassDef) -> str:
        order = self.mro(module, cls)
        if any(_makes_dataclasses(c) for m, c in _inside(order[1:])):
            return ANYTHING  # a base rebuilds every subclass (transformers' configs)
        for entry in order:
            if isinstance(entry, str):
                return ANYTHING
            _, klass = entry
            for name in ("__init__", "__new__"):
                own = _method(klass, name)
                if own is not None:
                    return params_text(own, bound=True)
            if _is_dataclass(klass) or _pydantic(order):
                return self._fields_text(order)
        return ""

    def _fields_text(self, order: list[Base]) -> str:
        """A dataclass's or pydantic model's fields, bases first, keyword-only ones last."""
        if any(isinstance(e, str) and e not in PYDANTIC_BASES for e in order):
            return ANYTHING  # fields of a base outside the package are not read here
        fields: dict[str, tuple[bool, bool] | None] = {}
        for _, klass in reversed(list(_inside(order))):
            if _is_dataclass(klass) or _pydantic(order):
                fields.update(_own_fields(klass))
                for name, value in list(_own_fields(klass).items()):
                    if value is None:
                        fields.pop(name, None)
        ordered = [n for n, f in fields.items() if f and not f[1]]
        ordered += [n for n, f in fields.items() if f and f[1]]
        words = [name + ("!" if (fields[name] or (False,))[0] else "") for name in ordered]
        pydantic = _pydantic(order)
        if pydantic and not any("forbid" in ast.unparse(c) for _, c in _inside(order)):
            words.append(ANYTHING)
        return " ".join(words)

    def methods(self, module: Module, cls: ast.ClassDef) -> dict[str, str]:
        """Public classmethods/staticmethods, the first in the MRO wins."""
        found: dict[str, str] = {}
        for _, klass in _inside(self.mro(module, cls)):
            for stmt in klass.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    kinds = decorator_names(stmt) & {"classmethod", "staticmethod"}
                    if kinds and not stmt.name.startswith("_"):
                        text = params_text(stmt, bound="classmethod" in kinds)
                        found.setdefault(stmt.name, text)
        return found

    def is_open(self, module: Module, cls: ast.ClassDef) -> bool:
        """Whether a base outside the package may add attributes."""
        return any(isinstance(e, str) for e in self.mro(module, cls))

    # ---- the whole package ---------------------------------------------------

    def table(
        self, *, only: tuple[str, ...] = ()
    ) -> tuple[dict[str, str], dict[str, str], list[str]]:
        """(callables, aliases, open classes) of the modules under ``only`` (all by default)."""
        callables: dict[str, str] = {}
        aliases: dict[str, str] = {}
        opened: list[str] = []
        for name, module in self.modules.items():
            if only and not any(name == p or name.startswith(p + ".") for p in only):
                continue
            for stmt in top_level(module.tree.body):
                self._entry(module, stmt, callables, opened)
            for local in sorted(set(module.bindings) | set(module.lazy)):
                if local.startswith("_") or f"{name}.{local}" in callables:
                    continue
                bound = module.bindings.get(local) or module.lazy.get(local)
                reexport = (isinstance(bound, str) and module.is_package) or local in module.lazy
                assigned = isinstance(bound, ast.Assign | ast.AnnAssign)
                if not (reexport or assigned):
                    continue
                found = self.lookup(f"{name}.{local}")
                if isinstance(found, tuple):
                    where = self._defined_at(*found)
                    if where is not None and where != f"{name}.{local}":
                        aliases[f"{name}.{local}"] = where
        for alias, where in list(aliases.items()):
            if where not in callables:
                del aliases[alias]
        return callables, aliases, sorted(set(opened))

    def _defined_at(self, module: Module, node: ast.stmt) -> str | None:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            return f"{module.name}.{node.name}"
        return None

    def _entry(
        self, module: Module, stmt: ast.stmt, callables: dict[str, str], opened: list[str]
    ) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if not stmt.name.startswith("_") and module.bindings.get(stmt.name) is stmt:
                callables[f"{module.name}.{stmt.name}"] = params_text(stmt, bound=False)
        elif isinstance(stmt, ast.ClassDef):
            if stmt.name.startswith("_") or module.bindings.get(stmt.name) is not stmt:
                return
            path = f"{module.name}.{stmt.name}"
            callables[path] = self.init_text(module, stmt)
            for method, text in self.methods(module, stmt).items():
                callables[f"{path}.{method}"] = text
            if self.is_open(module, stmt):
                opened.append(path)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            func = dotted_name(stmt.value.func)
            for target in stmt.targets:
                if (
                    isinstance(target, ast.Name)
                    and not target.id.startswith("_")
                    and func is not None
                    and self._qualify(module, func) == "functools.partial"
                ):
                    callables[f"{module.name}.{target.id}"] = ANYTHING
