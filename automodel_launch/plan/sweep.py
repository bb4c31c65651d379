"""``--sweep KEY=V1,V2,...``: the values of one field to try, and the points they make.

Each value is read exactly as ``--set KEY=VALUE`` reads it (it becomes one
:class:`~automodel_launch.profiles.overrides.Override`), so ``1e-4`` is a number,
``'"1e-4"'`` is text and ``[a, b]`` a list. Values are separated by commas; a value that
holds a comma is written in a YAML flow list: ``--sweep 'KEY=[a, "b,c"]'``. Several
``--sweep`` options make the cartesian product, the first option varying slowest.

A malformed option is a usage error (:class:`SweepError`) naming the option; so is a
value or key a point's manifest could not record (its bounds,
:func:`automodel_launch.jobs.manifest.value_problem`): found before anything is written. A
value that is no YAML value is the same diagnostic ``--set`` gives, named by the point.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from automodel_launch.diagnostics import dotted
from automodel_launch.errors import UsageError
from automodel_launch.loading import load_text
from automodel_launch.profiles.overrides import Override, OverrideError, parse_key, parse_override

MAX_VALUES = 1000
"""Values of one ``--sweep``."""
MAX_POINTS = 10_000
"""Points of a sweep (the product): more is no sweep a cluster would run."""
MAX_AXES = 16
"""``--sweep`` options: each is a value a point's manifest records (it keeps 32)."""
SHOWN_CHARS = 40
"""Characters of a value quoted in a message."""


class SweepError(UsageError, ValueError):
    """``--sweep`` options that make no sweep: the message says what to write."""


@dataclass(frozen=True)
class Axis:
    """One ``--sweep``: a field and the overrides that set each of its values."""

    key: str
    overrides: tuple[Override, ...]


@dataclass(frozen=True)
class Point:
    """One job of a sweep: its index and the override of each swept field."""

    index: int
    overrides: tuple[Override, ...]

    @property
    def values(self) -> dict[str, Any]:
        """Swept field (dotted, as written) -> this point's value."""
        return {dotted(o.loc): o.value for o in self.overrides}

    @property
    def label(self) -> str:
        """``optimizer.lr=1e-05, peft.dim=8``: the arguments as the user wrote them."""
        return ", ".join(o.argument for o in self.overrides)


def parse_axis(argument: str) -> Axis:
    key, equals, text = argument.partition("=")
    if not equals:
        raise SweepError(
            f"--sweep '{argument}' has no '=': write KEY=V1,V2,..., e.g. optimizer.lr=1e-5,1e-4"
        )
    key = key.strip()
    try:
        loc = parse_key(key)
    except OverrideError as exc:
        raise SweepError(f"--sweep: {exc}") from None
    texts = _flow_items(key, text) if text.lstrip().startswith("[") else _comma_items(key, text)
    if len(texts) > MAX_VALUES:
        raise SweepError(f"--sweep {key} has {len(texts)} values; at most {MAX_VALUES}")
    if len(set(texts)) != len(texts):
        twice = next(t for t in texts if texts.count(t) > 1)
        raise SweepError(f"--sweep {key} lists the value '{twice}' twice: each point must differ")
    try:
        overrides = tuple(parse_override(f"{dotted(loc)}={t}", "--sweep") for t in texts)
    except OverrideError as exc:  # a control character in a value
        raise SweepError(f"--sweep {dotted(loc)}: {exc}") from None
    _recordable(dotted(loc), overrides)
    return Axis(dotted(loc), overrides)


def recorded(value: Any) -> Any:
    """A swept value as a point's manifest keeps it: a scalar, else its JSON text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _recordable(key: str, overrides: Sequence[Override]) -> None:
    """Each value as a point's manifest must record it, by the manifest's own bounds."""
    from automodel_launch.jobs.manifest import value_problem

    wrong = value_problem(key, None)
    if wrong is not None:
        raise SweepError(f"--sweep {key[: SHOWN_CHARS - 3]}... ({len(key)} characters): {wrong}")
    for override in overrides:
        why = value_problem(key, recorded(override.value))
        if why is None:
            continue
        text = override.argument.partition("=")[2]  # as written (a key holds no '=')
        shown = text if len(text) <= SHOWN_CHARS else f"{text[: SHOWN_CHARS - 3]}..."
        size = f" ({len(text)} characters)" if len(text) > SHOWN_CHARS else ""
        raise SweepError(
            f"--sweep {key}: the value '{shown}'{size} is not one a sweep point records: {why}",
            hint=f"sweep values that fit; submit one that does not with --set {key}=VALUE",
        )


def _comma_items(key: str, text: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise SweepError(
            f"--sweep {key}: an empty value; write KEY=V1,V2 (a value with a comma or an empty "
            f'text goes in a YAML list: {key}=\'[a, "b,c", ""]\')'
        )
    return items


def _flow_items(key: str, text: str) -> list[str]:
    """Each item of a YAML flow list, as the text ``--set`` would be given for it."""
    result = load_text(f"v: {text}")
    loaded = result.loaded
    items = loaded.data.get("v") if loaded is not None else None
    if loaded is None or result.diagnostics or not isinstance(items, list) or not items:
        raise SweepError(
            f"--sweep {key}: '{text}' is not a YAML list of values; write {key}='[a, \"b,c\"]'"
        )
    texts = []
    for index, item in enumerate(items):
        plain = loaded.plain.get(("v", index))
        texts.append(plain if plain is not None else json.dumps(item, ensure_ascii=False))
    return texts


def points(axes: Sequence[Axis], sets: Sequence[Override] = ()) -> list[Point]:
    """The cartesian product of ``axes``, in order; refuses a field swept twice or also
    given to ``--set``, and a product past :data:`MAX_POINTS`."""
    if len(axes) > MAX_AXES:
        raise SweepError(f"{len(axes)} --sweep options; at most {MAX_AXES}")
    keys = [axis.key for axis in axes]
    for key in keys:
        if keys.count(key) > 1:
            raise SweepError(f"--sweep {key} is given twice: list all its values in one option")
    fixed = {dotted(o.loc) for o in sets}
    for key in keys:
        if key in fixed:
            raise SweepError(f"{key} is given to both --set and --sweep: keep one")
    nested = [(a, b) for a in keys for b in keys if a != b and b.startswith((a + ".", a + "["))]
    if nested:
        outer, inner = nested[0]
        raise SweepError(f"--sweep {outer} and --sweep {inner}: one field holds the other")
    count = math.prod(len(axis.overrides) for axis in axes)
    if count > MAX_POINTS:
        raise SweepError(f"the sweep makes {count:,} points; at most {MAX_POINTS:,}")
    product = itertools.product(*(axis.overrides for axis in axes))
    return [Point(index, tuple(chosen)) for index, chosen in enumerate(product)]
