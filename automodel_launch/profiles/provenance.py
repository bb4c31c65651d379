"""Where each value of a merged recipe came from: the recipe's line, a profile file's
line, or a ``--set`` argument. Diagnostics are placed with :meth:`Provenance.where`;
``config show`` names each value's origin with :meth:`Provenance.describe`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from automodel_launch.diagnostics import Loc, Origin

Position = tuple[int, int]
Kind = Literal["recipe", "profile", "set"]


@dataclass(frozen=True)
class Source:
    """One layer: the file (or argument) its values come from, and where they sit in it."""

    kind: Kind
    origin: Origin | None
    """None for the recipe itself: its diagnostics are the report's own."""
    keys: Mapping[Loc, Position] = field(default_factory=dict)
    values: Mapping[Loc, Position] = field(default_factory=dict)
    plain: Mapping[Loc, str] = field(default_factory=dict)
    tags: Mapping[Loc, str] = field(default_factory=dict)
    prefix: Loc = ()
    """Profiles: the profile's name, where its sections sit in its file."""
    base: Loc = ()
    """Overrides: the KEY, which ``plain`` and ``tags`` are relative to."""
    path: str = ""

    def _own(self, loc: Loc) -> Loc | None:
        if self.kind == "set":
            return loc[len(self.base) :] if loc[: len(self.base)] == self.base else None
        return (*self.prefix, *loc)

    def position(self, loc: Loc, *, at_key: bool = False) -> Position | None:
        if self.kind == "set":
            return (0, 0)
        own = (*self.prefix, *loc)
        first, second = (self.keys, self.values) if at_key else (self.values, self.keys)
        for table in (first, second):
            try:
                return table[own]
            except KeyError:
                continue
        return None

    def plain_at(self, loc: Loc) -> str | None:
        own = self._own(loc)
        return None if own is None else self.plain.get(own)

    def tag_at(self, loc: Loc) -> str | None:
        own = self._own(loc)
        return None if own is None else self.tags.get(own)


@dataclass
class Provenance:
    """loc -> the layer that set it, for every mapping, list and value of the merge."""

    owner: dict[Loc, Source] = field(default_factory=dict)

    def claim(self, loc: Loc, value: Any, source: Source) -> None:
        """``source`` set ``value`` at ``loc``: it owns it and everything below it."""
        for old in [k for k in self.owner if k[: len(loc)] == loc and len(k) > len(loc)]:
            del self.owner[old]
        self._mark(loc, value, source)

    def _mark(self, loc: Loc, value: Any, source: Source) -> None:
        if loc:
            self.owner[loc] = source
        if isinstance(value, dict):
            for key, item in value.items():
                self._mark((*loc, key), item, source)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self._mark((*loc, index), item, source)

    def where(self, loc: Loc, at_key: bool = False) -> tuple[Origin | None, int, int]:
        """The origin and 1-based position of ``loc``, else of its nearest ancestor."""
        for end in range(len(loc), 0, -1):
            source = self.owner.get(loc[:end])
            if source is None:
                continue
            found = source.position(loc[:end], at_key=at_key)
            if found is not None:
                return source.origin, *found
        return None, 1, 1

    def describe(self, loc: Loc) -> str:
        """``recipe.yaml:12``, ``profile eos (/etc/.../profiles.yaml:3)``, ``--set ...``."""
        source = self.owner.get(loc)
        if source is None:
            return "default"
        if source.kind == "set":
            assert source.origin is not None
            return source.origin.label
        line = (source.position(loc) or (1, 1))[0]
        if source.kind == "profile":
            assert source.origin is not None
            return f"profile {source.origin.profile} ({source.origin.where}:{line})"
        return f"{source.path}:{line}"

    def plain(self) -> dict[Loc, str]:
        found = {loc: s.plain_at(loc) for loc, s in self.owner.items()}
        return {loc: text for loc, text in found.items() if text is not None}

    def tags(self) -> dict[Loc, str]:
        found = {loc: s.tag_at(loc) for loc, s in self.owner.items()}
        return {loc: tag for loc, tag in found.items() if tag is not None}
