"""Where in a module's text the extractor reads inside function bodies.

Each entry is a word found with ``str.find`` (fast: most of the text is skipped), then
checked where it stands: a word boundary before it (``fn(`` is not ``_fn(``), a word
boundary after it, or a pattern that must match from there. A function holding any such
place is parsed whole (:func:`automodel_launch.automodel.extract.elide.elide`); what is
read:

- configured calls and the keywords given to them (``.instantiate(``, ``factory(``...:
  :func:`~automodel_launch.automodel.extract.builds.supplied_keywords`);
- a base rebuilding its subclasses as dataclasses, a pydantic model forbidding extras
  (:mod:`~automodel_launch.automodel.extract.signatures`);
- the calls of a section's class and ``parse_distributed_section``
  (:mod:`~automodel_launch.automodel.extract.sections`);
- a mapping made a typed config (``Cls(**kwargs["key"])``, a resolver's
  ``BagelBackendConfig(**overrides)``), a data set's ``__len__``,
  NeMo-Run's ``apply_overrides`` (:mod:`~automodel_launch.automodel.extract.facts`);
- in a recipe module also: a section read from the config (``parallelizer``,
  ``moe_config``, ``rng``) and a data loader's config node (``dataloader``, ``dl``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple


class Read(NamedTuple):
    word: str
    boundary_before: bool = False
    boundary_after: bool = False
    then: re.Pattern[str] | None = None
    """A pattern that must match at the word (it starts with the word)."""


CONFIGURED = ("factory", "target", "func", "fn", "builder", "constructor")
IN_BODIES: tuple[Read, ...] = (
    Read("instantiate"),
    *(Read(f"{name}(", boundary_before=True) for name in CONFIGURED),
    Read("dataclass"),
    Read("forbid"),
    Read("(**", then=re.compile(r"\(\*\*\s*[\w.]+\s*\[")),
    Read("Config(**"),
    Read("StepScheduler(", boundary_before=True),
    Read("CheckpointingConfig(", boundary_before=True),
    Read("parse_distributed_section"),
    Read("__len__"),
    Read("apply_overrides"),
    Read("__init_subclass__"),
)
IN_RECIPES: tuple[Read, ...] = (
    *(
        Read(name, boundary_before=True, boundary_after=True)
        for name in ("parallelizer", "moe_config", "rng")
    ),
    Read("dataloader"),
    Read("dl", boundary_before=True, boundary_after=True),
)
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _word_char(char: str) -> bool:
    return char == "_" or char.isalnum()


def _places(text: str, read: Read) -> Iterator[int]:
    at = text.find(read.word)
    while at >= 0:
        end = at + len(read.word)
        if read.word == "dl":  # a part of a name: cfg_dl, dl_cfg, not handle
            fits = (at == 0 or text[at - 1] not in _ALNUM) and (
                end == len(text) or text[end] not in _ALNUM
            )
        else:
            fits = not (read.boundary_before and at > 0 and _word_char(text[at - 1]))
            fits = fits and not (read.boundary_after and end < len(text) and _word_char(text[end]))
            fits = fits and (read.then is None or read.then.match(text, at) is not None)
        if fits:
            yield at
        at = text.find(read.word, at + 1)


def read_marks(text: str, *, recipe: bool = False) -> list[int]:
    """The sorted offsets in ``text`` where the extractor reads something (``recipe``: a
    recipe module's reads too)."""
    marks: list[int] = []
    for read in (*IN_BODIES, *IN_RECIPES) if recipe else IN_BODIES:
        marks.extend(_places(text, read))
    marks.sort()
    return marks
