"""Names a recipe gives AutoModel, looked up in one release's signature table.

A ``_target_`` is imported by AutoModel's config loader as it reads the file (the longest
importable module prefix, then attributes), so a name the release does not have stops the
job before the first step. Only names inside a package the table lists completely
(:meth:`Table.covered`) can be called missing; user code and other libraries are not guessed
at, except a path that is a listed callable's abbreviation (``masked_ce.MaskedCrossEntropy``)
with no module of that name beside the config.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automodel_launch.automodel.table import Signature, Table

_CLOSE = 0.6
_CLOSE_KEYWORD = 0.75
"""Argument names are short: a looser match suggests unrelated ones (``max_steps`` for
``grad_acc_steps``)."""


class _Index:
    """One table's names arranged for lookups by part, each arrangement made the first time
    a name is not found (a mistake, user code or another library)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.names = [*table.callables, *table.aliases]
        self._children: dict[str, frozenset[str]] = {}

    @cached_property
    def tops(self) -> frozenset[str]:
        """The top-level packages of the listed names."""
        heads = {name.partition(".")[0] for name in self.names}
        return frozenset(heads | {p.partition(".")[0] for p in self.table.covers})

    @cached_property
    def by_module(self) -> dict[str, list[str]]:
        """The last part of a name's module -> the names defined there."""
        found: dict[str, list[str]] = {}
        for name in self.names:
            parts = name.rsplit(".", 2)
            if len(parts) > 1:
                found.setdefault(parts[-2], []).append(name)
        return found

    @cached_property
    def ordered(self) -> list[str]:
        return sorted(self.names)

    def children(self, parent: str) -> frozenset[str]:
        """The parts that follow the path ``parent`` ("" for the top) in listed names: the
        names under it are one run of the sorted list (``.`` sorts just before ``/``)."""
        found = self._children.get(parent)
        if found is None:
            if parent:
                names = self.ordered
                start = bisect.bisect_left(names, f"{parent}.")
                end = bisect.bisect_left(names, f"{parent}/", start)
                cut = len(parent) + 1
                found = frozenset(name[cut:].partition(".")[0] for name in names[start:end])
            else:
                found = frozenset(name.partition(".")[0] for name in self.names)
            self._children[parent] = found
        return found

    def known(self, path: str) -> bool:
        """Whether ``path`` is a listed name or a prefix of one."""
        head, _, last = path.rpartition(".")
        return last in self.children(head)


_INDEXES: dict[int, _Index] = {}


def _index(table: Table) -> _Index:
    found = _INDEXES.get(id(table))
    if found is None or found.table is not table:
        found = _INDEXES[id(table)] = _Index(table)
    return found


def signature(table: Table, target: str) -> Signature | None:
    """The signature of ``target``, also when only a prefix is a re-export
    (``nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained``)."""
    found = table.signature(target)
    if found is not None:
        return found
    parts = target.split(".")
    for end in range(len(parts) - 1, 1, -1):
        head = ".".join(parts[:end])
        where = table.resolve(head) or table.aliases.get(head)
        if where is not None and where != head:
            return table.signature(".".join([where, *parts[end:]]))
    return None


def suggest_target(table: Table, target: str) -> str | None:
    """The listed name a mistyped ``target`` most likely meant: the same path with each
    unknown part replaced by its closest sibling (as written: through a re-export when the
    target goes through one), else the closest name with the same last part, or overall."""
    index = _index(table)
    respelled = _respell(index, target)
    if respelled is not None:
        return respelled
    tail = target.rsplit(".", 1)[-1]
    same_tail = [n for n in index.names if n.rsplit(".", 1)[-1] == tail]
    if same_tail:
        return max(same_tail, key=lambda n: (_ratio(n, target), -len(n)))
    return _closest(target, index.names)


def _respell(index: _Index, target: str) -> str | None:
    fixed: list[str] = []
    for part in target.split("."):
        parent = ".".join(fixed)
        if index.known(f"{parent}.{part}" if parent else part):
            fixed.append(part)
            continue
        kids = set(index.children(parent))
        where = index.table.resolve(parent) if parent else None
        kids |= index.children(where) if where else frozenset()
        close = _closest(part, sorted(kids))
        if close is None:
            return None
        fixed.append(close)
    respelled = ".".join(fixed)
    return respelled if respelled != target and index.table.resolve(respelled) else None


def _closest(word: str, candidates: list[str]) -> str | None:
    """The candidate closest to ``word``, letter case aside."""
    lowered = {c.lower(): c for c in candidates}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=_CLOSE)
    return lowered[close[0]] if close else None


def abbreviation(table: Table, target: str, places: Callable[[], tuple[Path, ...]]) -> str | None:
    """The full path of a listed callable that ``target`` shortens (``masked_ce.X`` for
    ``nemo_automodel.components.loss.masked_ce.X``, or a close misspelling of ``X`` in that
    module), when no module named like its first part sits in ``places``."""
    parts = target.split(".")
    if len(parts) < 2 or any(not p.isidentifier() for p in parts):
        return None
    index = _index(table)
    if parts[0] in index.tops or not index.by_module.get(parts[-2]):
        return None
    if any(_module_in(place, parts[0]) for place in places()):
        return None
    candidates = index.by_module[parts[-2]]
    exact = [n for n in candidates if n.endswith("." + target)]
    if exact:
        return min(exact, key=len)
    module = "." + ".".join(parts[:-1])
    inside = {n.rsplit(".", 1)[-1]: n for n in candidates if n.rsplit(".", 1)[0].endswith(module)}
    close = difflib.get_close_matches(parts[-1], list(inside), n=1, cutoff=_CLOSE)
    return inside[close[0]] if close else None


def suggest_recipe(table: Table, name: str) -> str | None:
    """The recipe a mistyped ``recipe:`` value most likely meant, written the same way
    (a bare class name for a bare name, a path for a path)."""
    if "." not in name:
        bare = sorted(set(table.recipes.values()))
        close = difflib.get_close_matches(name, bare, n=1, cutoff=_CLOSE)
        return close[0] if close else None
    tail = name.rsplit(".", 1)[-1]
    same_tail = [path for path, bare in table.recipes.items() if bare == tail]
    if same_tail:
        return max(same_tail, key=lambda n: _ratio(n, name))
    close = difflib.get_close_matches(name, sorted(table.recipes), n=1, cutoff=_CLOSE)
    return close[0] if close else None


def suggest_keyword(keyword: str, names: tuple[str, ...]) -> str | None:
    close = difflib.get_close_matches(keyword, names, n=1, cutoff=_CLOSE_KEYWORD)
    return close[0] if close else None


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def _module_in(place: Path, head: str) -> bool:
    return (place / f"{head}.py").is_file() or (place / head).is_dir()
