"""Explicit YAML tags: ``!!int "5"``, ``!!bool yes``, ``!custom x``.

A scalar without a tag is read with YAML 1.2 rules (see :mod:`automodel_launch.loading.nodes`).
A scalar with one of the core tags is constructed the way PyYAML, AutoModel's loader,
constructs it from the text (``!!bool "yes"`` is true), so this tool sees the value the
job will see; text that PyYAML cannot construct is an error. Any other tag is recorded
by loc: launcher sections refuse it; recipe sections pass it through as text when
AutoModel's loader, PyYAML's *safe* loader, can construct it (``!!timestamp``,
``!!binary``, ``!!set``, ``!!omap``, ``!!pairs``) and refuse any other
(``!custom``, ``!!python/object/apply:...``): PyYAML stops on the job config.

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
SAFE_SCALARS = CORE_SCALARS | {"timestamp", "binary"}
SAFE_MAPPINGS = frozenset({"map", "set"})
SAFE_SEQUENCES = frozenset({"seq", "omap", "pairs"})
"""The tags PyYAML's safe loader has a constructor for, by the kind of node they tag."""
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


def safe_loader_reads(shown_tag: str, value: Any) -> bool:
    """Whether PyYAML's safe loader (AutoModel's) constructs a node tagged ``shown_tag``
    (as :func:`shown` spells it) holding ``value``: any other tag stops it."""
    if not shown_tag.startswith("!!"):
        return False  # a local tag (!custom): no constructor
    kind = shown_tag[2:]
    if isinstance(value, dict):
        return kind in SAFE_MAPPINGS
    if isinstance(value, list):
        return kind in SAFE_SEQUENCES
    return kind in SAFE_SCALARS


UNREADABLE_HINT = "remove the tag and write a plain value (quote it to keep it text)"


def unreadable(shown_tag: str) -> str:
    """The message of a tag PyYAML's safe loader stops on."""
    return (
        f"AutoModel's loader (PyYAML's safe loader) has no constructor for the tag "
        f"{shown_tag}: it stops on the job config"
    )
