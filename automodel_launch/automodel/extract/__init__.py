"""What an AutoModel release accepts, read from its sources with ``ast`` (nothing imported).

One code path makes the shipped tables (``tools/automodel_signatures.py``, from the
released wheels) and reads a tree at run time (:mod:`automodel_launch.automodel.source`:
a ``repo_root`` checkout, ``--automodel-source``, a release installed here that no table
has). :func:`automodel_table` takes the package's sources (path inside the distribution
-> text) and returns the table in the format :mod:`automodel_launch.automodel.table`
reads.

- :mod:`.elide`: function bodies left out before parsing (most of the text, none of the
  signatures);
- :mod:`.index`: modules parsed, names bound and looked up;
- :mod:`.signatures`: what a config key can fill of each callable;
- :mod:`.builds`: the recipes, and the keywords AutoModel passes itself;
- :mod:`.sections`: the sections a recipe builds without a ``_target_``;
- :mod:`.facts`: what AutoModel checks as it starts (a data set without a length, a
  mapping made a typed config, NeMo-Run's refusal of unknown fields).
"""

from __future__ import annotations

from collections.abc import Mapping

FORMAT = 1
PACKAGE = "nemo_automodel"


class Unparsed(ValueError):
    """A module of the package that Python cannot parse (the message says where, why)."""


def automodel_table(
    sources: Mapping[str, str], version: str, source: str, *, every_module: bool = False
) -> dict[str, object]:
    """The table of an AutoModel package (``sources``: ``nemo_automodel/...py`` -> text);
    ``every_module``: :class:`Unparsed` when a module cannot be parsed (else it is left
    out, as Python leaves out a module nothing imports)."""
    from automodel_launch.automodel.extract.index import uncollected

    with uncollected():  # the trees are freed when _table returns, before collection resumes
        return _table(sources, version, source, every_module=every_module)


def _table(
    sources: Mapping[str, str], version: str, source: str, *, every_module: bool
) -> dict[str, object]:
    from automodel_launch.automodel.extract.builds import (
        SUPPLIED_BY_HAND,
        recipe_classes,
        supplied_keywords,
    )
    from automodel_launch.automodel.extract.facts import startup_facts
    from automodel_launch.automodel.extract.sections import section_builds
    from automodel_launch.automodel.extract.signatures import Index

    index = Index(sources, PACKAGE)
    if every_module and index.unparsed:
        from automodel_launch.automodel.extract.index import why_unparsed

        first = index.unparsed[0]
        raise Unparsed(why_unparsed(first, sources[first]))
    callables, aliases, opened = index.table()
    recipes = recipe_classes(sources)
    return {
        "format": FORMAT,
        "version": version,
        "source": source,
        "covers": [PACKAGE],
        "open": opened,
        "callables": callables,
        "aliases": aliases,
        "recipes": recipes,
        "sections": section_builds(index, callables, recipes),
        "supplied": " ".join(sorted(supplied_keywords(index) | SUPPLIED_BY_HAND)),
        **startup_facts(index, callables),
    }
