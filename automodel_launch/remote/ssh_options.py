"""A cluster's ``ssh_options`` read as OpenSSH's client reads its command line.

ssh parses its options with ``getopt``: a word starting with ``-`` holds one option letter
or several (``-fNT``), an option taking a value has it joined (``-S/tmp/s``) or as the
next word (``-S /tmp/s``), and the first word that is no option is the host. ``-o``'s value
is a line of ``ssh_config`` (``Key=Value``, ``Key Value``, ``Key = Value``, the key in any
case). The words are read here the same way, so that no spelling passes what another is
refused for:

- an option this tool sets itself or that changes what the connection is for (its
  sharing, a terminal, where ssh's messages go, no command) is refused;
- a setting that weakens host-key checking, or lets ssh ask for what nobody can answer,
  is refused; one that keeps or strengthens it (``StrictHostKeyChecking=yes``,
  ``BatchMode=yes``) is accepted;
- a word that is no option (ssh would take it for the host), ``--``, a letter ssh does not
  know, and an option whose value is missing are refused.

The letters are OpenSSH 9.2's (``1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:PQ:R:S:
TVw:W:XYy``); ``-P`` is refused: 9.2 reads it as a flag, later releases as ``-P TAG``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

WITH_VALUE = "BDEFIJLOQRSWbceilmopw"
"""Option letters that take a value (joined, or the next word)."""
FLAGS = "46ACGKMNTVXYafgknqstvxy"
"""Option letters that take none (``-1`` and ``-2``, protocol versions long gone, are
refused as unknown)."""
OWNED = "EGMNOQSTVWfnqsty"
"""Letters this tool's connection cannot share: a master or its socket (``-M``, ``-S``,
``-O``), no command or another (``-N``, ``-s``, ``-W``, ``-f``, ``-n``), a terminal
(``-t``, ``-T``), ssh's messages elsewhere (``-E``, ``-q``, ``-y``), or no connection at
all (``-G``, ``-V``, ``-Q``)."""
OWN = "is this tool's to set (it checks host keys always and runs the connection itself)"
WEAKER = "would weaken host-key checking (this tool checks host keys always)"

# keyword (ssh reads it in any case): (accepted values, refused values, why); a value is
# accepted when its first word is one of the first (in any case), refused when any word
# is one of the second; a keyword with neither is refused whatever its value
KEYWORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "ControlMaster": ((), (), OWN),
    "ControlPath": ((), (), OWN),
    "ControlPersist": ((), (), OWN),
    "ForkAfterAuthentication": ((), (), OWN),
    "LocalCommand": ((), (), OWN),
    "PermitLocalCommand": ((), (), OWN),
    "RemoteCommand": ((), (), OWN),
    "RequestTTY": ((), (), OWN),
    "SessionType": ((), (), OWN),
    "StdinNull": ((), (), OWN),
    "LogLevel": ((), ("quiet", "fatal"), "would hide why ssh failed, which this tool reports"),
    "BatchMode": (("yes", "true"), (), "would let ssh ask for a password nobody answers"),
    "StrictHostKeyChecking": (("yes", "true"), (), WEAKER),
    "NoHostAuthenticationForLocalhost": (("no", "false"), (), WEAKER),
    "KnownHostsCommand": ((), (), WEAKER),
    "UserKnownHostsFile": ((), ("/dev/null", "none"), WEAKER),
}
_KEYS = {key.lower(): key for key in KEYWORDS}


def refusal(options: Sequence[str]) -> str | None:
    """Why ``options`` cannot be given to ssh (naming the word and the fix), or None."""
    at = 0
    while at < len(options):
        word = options[at]
        if word == "--":
            return "'--' would end ssh's options: remove it"
        if len(word) < 2 or not word.startswith("-"):
            return (
                f"{word!r} is no option: ssh would take it for the host; write each option "
                "with its value (-i KEY, -o Key=Value)"
            )
        for index, letter in enumerate(word[1:], 1):
            if letter in WITH_VALUE:
                value = word[index + 1 :]
                shown = word
                if not value:
                    if at + 1 == len(options):
                        return f"{word!r}: -{letter} needs a value: give it as the next item"
                    at += 1
                    value = options[at]
                    shown = f"{word} {value}"
                why = _option(letter, value)
                if why is not None:
                    return f"{shown!r}: {why}"
                break
            why = _flag(letter)
            if why is not None:
                return f"{word!r}: {why}"
        at += 1
    return None


def _flag(letter: str) -> str | None:
    if letter == "P":
        return "-P is read as a flag by OpenSSH 9.2 and as -P TAG by later releases: remove it"
    if letter not in FLAGS:
        return f"-{letter} is not an option of ssh: remove it"
    if letter in OWNED:
        return f"-{letter} {OWN}: remove it"
    return None


def _option(letter: str, value: str) -> str | None:
    if letter in OWNED:
        return f"-{letter} {OWN}: remove it"
    if letter != "o":
        return None
    written, value = _setting(value)
    key = _KEYS.get(written.lower())
    if key is None:
        return None
    accepted, refused, why = KEYWORDS[key]
    words = _words(value)
    if accepted and words and words[0].lower() in accepted:
        return None
    if refused and not any(w.lower() in refused for w in words):
        return None
    setting = f"{key}={value}" if accepted or refused else key
    fix = f"write {key}={accepted[0]}, or remove it" if accepted else "remove it"
    return f"{setting} {why}: {fix}"


def _setting(line: str) -> tuple[str, str]:
    """``Key`` and its value as ssh_config reads a line: blanks, the key up to a blank or
    ``=``, blanks, at most one ``=``, blanks, the value (blanks after it dropped)."""
    found = re.fullmatch(r"[ \t]*([^ \t=]*)[ \t]*=?[ \t]*(.*?)[ \t]*", line)
    assert found is not None  # every line (an option holds no newline): each part may be empty
    return found.group(1), found.group(2)


def _words(value: str) -> list[str]:
    """The value's words, quotes read as ssh_config reads them."""
    try:
        return shlex.split(value)
    except ValueError:  # an unbalanced quote: ssh refuses the line itself
        return value.split()
