"""Explicit YAML tags: ``!!int "5"``, ``!!bool yes``, ``!custom x``.

A scalar without a tag is read with YAML 1.2 rules (see :mod:`automodel_launch.loading.nodes`).
A scalar with one of the core tags is constructed the way PyYAML, AutoModel's loader,
constructs it from the text (``!!bool "yes"`` is true), so this tool sees the value the
job will see; text that PyYAML cannot construct is an error. Any other tag is recorded
by loc: launcher sections refuse it, recipe sections pass it through as text.

The C composer drops the difference between a tag written in the file and one the
resolver chose. :class:`Resolved` marks the second kind: the loader's resolver returns
it, so a node whose tag is not a ``Resolved`` had its tag written explicitly.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.tag import Tag

from automodel_launch.loading import yaml11

YAML_TAG = "tag:yaml.org,2002:"
CORE_SCALARS = frozenset({"str", "int", "bool", "float", "null"})
COLLECTIONS = frozenset({"map", "seq"})
_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}


class Resolved(Tag):
    """A tag the resolver chose (the file wrote none)."""


class BadTag(ValueError):
    """Text that PyYAML cannot construct under its explicit tag."""


def construct(kind: str, text: str) -> Any:
    """PyYAML's value for ``!!kind text``; raises BadTag when PyYAML would fail."""
    try:
        if kind == "null":
            return None
        if kind == "bool":
            return _BOOLS[text.lower()]
        if kind == "int":
            return yaml11.parse_int(text)
        if kind == "float":
            return yaml11.parse_float(text)
    except (KeyError, ValueError, IndexError):
        raise BadTag(text) from None
    return text


def shown(tag: str) -> str:
    """The tag as written: ``!!timestamp`` for the core ones, else verbatim."""
    return "!!" + tag.removeprefix(YAML_TAG) if tag.startswith(YAML_TAG) else tag
