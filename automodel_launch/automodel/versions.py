"""The AutoModel releases this tool knows, and how each one is started.

``main`` is AutoModel's main branch at the commit its table was taken from; the
default is the newest release on the package index, which is what ``pip install
nemo-automodel`` gives a user today. A release read from its source
(:mod:`automodel_launch.automodel.which`) may be one no table has (``0.8.0``): releases
are ordered by their numbers (:func:`at_least`), ``main`` after every one.
"""

from __future__ import annotations

from typing import Literal

RELEASES: tuple[str, ...] = (
    "0.1.0", "0.1.2", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0",
)  # fmt: skip
KNOWN: tuple[str, ...] = (*RELEASES, "main")
DEFAULT = RELEASES[-1]

EntryForm = Literal["command", "config"]
"""``command``: ``-m nemo_automodel._cli.app COMMAND DOMAIN -c CONFIG`` (0.1 to 0.3);
``config``: ``-m nemo_automodel.cli.app CONFIG`` with a ``recipe:`` key (0.4 on)."""

FIRST_CONFIG_FORM = "0.4.0"


def order(version: str) -> tuple[int, ...]:
    """``0.10.0`` after ``0.9.0``; ``main`` (AutoModel's main branch) after every release;
    a part's leading digits count (``0.8.0rc1`` is ``0.8.0``)."""
    if version == "main":
        return (1 << 30,)
    numbers = []
    for part in version.split("."):
        digits = len(part) - len(part.lstrip("0123456789"))
        numbers.append(int(part[:digits]) if digits else 0)
    return tuple(numbers)


def at_least(version: str, first: str) -> bool:
    """Whether ``version`` is ``first`` or a later release."""
    return order(version) >= order(first)


def entry_form(version: str) -> EntryForm:
    return "config" if at_least(version, FIRST_CONFIG_FORM) else "command"


def entry_module(version: str) -> str:
    config_form = entry_form(version) == "config"
    return "nemo_automodel.cli.app" if config_form else "nemo_automodel._cli.app"


def known_version(value: object) -> str | None:
    """``value`` as written for ``automodel_version`` (a profile, ``--set``), if a known
    release, or the one installed here (read from its source): YAML reads ``0.7.0`` as
    text and ``main`` as text, a number as a number."""
    text = str(value) if isinstance(value, (str, int, float)) else None
    if text is None or text in KNOWN:
        return text
    from automodel_launch.automodel.installed import find

    here = find()
    return text if here is not None and here.package is not None and here.version == text else None


def unknown_version(value: object) -> tuple[str, str]:
    """The message and hint for an ``automodel_version`` that is not a known release: the
    value shown cleaned and shortened (it may hold anything, a credential too)."""
    import difflib

    from automodel_launch.secrets import display

    text = str(value)
    shown = display(repr(value) if isinstance(value, str) else text)
    close = difflib.get_close_matches(text, KNOWN, n=1, cutoff=0.6) if len(text) < 32 else []
    guess = f"did you mean '{close[0]}'? " if close else ""
    return (
        f"automodel_version {shown} is not an AutoModel release this tool knows",
        f'{guess}use one of {", ".join(KNOWN)} (quote it: "0.4.0")',
    )
