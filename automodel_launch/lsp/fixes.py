"""Quick fixes: the edits that remove a diagnostic, offered only where the fix is certain.

Each fix is computed from the diagnostic (its code, dotted path and hint), the text and
the loaded document; the server turns it into a code action. A fix never quotes a
credential's value: the plain-text secret is replaced, never shown, and a fix whose
title or new text would hold something shaped like a token (``$hf_...`` to
``${hf_...}``) is not offered at all: masked, its edit would write ``***`` into the
document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from automodel_launch.config.environment import CREDENTIAL_FIELDS
from automodel_launch.diagnostics import Diagnostic
from automodel_launch.loading import LoadedFile, env
from automodel_launch.lsp.convert import span
from automodel_launch.lsp.text import Lines
from automodel_launch.secrets import looks_like_token
from automodel_launch.settings import Settings

Edit = tuple[int, int, int, int, str]
"""start line, start column, end line, end column (characters, 0-based), new text."""

_DID_YOU_MEAN = re.compile(r"^did you mean '([^']+)'\?$")
_WRITE = re.compile(r"^write ([^\s:]+)")
_BARE = re.compile(rf"(?<![\\$])\$({env.NAME})")
_TIME = re.compile(r"^(\d+):(\d{2}):(\d{2})$")
TITLE_FT = "Remove fault_tolerance: (SkyPilot recovers with skypilot.job_recovery)"


@dataclass(frozen=True)
class Fix:
    title: str
    diagnostic: Diagnostic
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Source:
    lines: Lines
    loaded: LoadedFile | None
    settings: Settings


def fix(diagnostic: Diagnostic, source: Source) -> Fix | None:
    maker = _MAKERS.get(diagnostic.code)
    found = maker(diagnostic, source) if maker else None
    if found is None:
        return None
    title, edits = found
    if any(looks_like_token(text) for text in (title, *(edit[4] for edit in edits))):
        return None
    return Fix(title, diagnostic, tuple(edits))


def _token(
    diagnostic: Diagnostic, source: Source, *, echoed: bool = False
) -> tuple[int, int, int, str] | None:
    """The single-line scalar or key the diagnostic points at, and its text; None for
    a text that the fix would write again (``echoed``) and that holds a token."""
    line, start, end = span(diagnostic, source.lines)
    text = source.lines.line(line)[start:end]
    if not text or text[0] in "|>[{&*!" or (echoed and looks_like_token(text)):
        return None
    return line, start, end, text


def _replace(diagnostic: Diagnostic, source: Source, new: str) -> list[Edit] | None:
    token = _token(diagnostic, source)
    if token is None:
        return None
    line, start, end, _ = token
    return [(line, start, line, end, new)]


def _rename(diagnostic: Diagnostic, source: Source) -> tuple[str, list[Edit]] | None:
    match = _DID_YOU_MEAN.match(diagnostic.hint or "")
    edits = _replace(diagnostic, source, match.group(1)) if match else None
    return None if match is None or edits is None else (f"Change to '{match.group(1)}'", edits)


def _yaml11(diagnostic: Diagnostic, source: Source) -> tuple[str, list[Edit]] | None:
    token = _token(diagnostic, source)  # a quoted token it would write again: fix() refuses
    if token is None or token[3][0] in "'\"":
        return None
    line, start, end, text = token
    hint = diagnostic.hint or ""
    if diagnostic.path.endswith(".time") and (time := _TIME.match(text)):
        hours, minutes, seconds = time.groups()
        new = f'"{int(hours):02d}:{minutes}:{seconds}"'
    elif hint.startswith("quote it"):
        new = json.dumps(text)
    elif write := _WRITE.match(hint):
        new = write.group(1)
    else:
        return None
    return f"Write {new}", [(line, start, line, end, new)]


def _secret(diagnostic: Diagnostic, source: Source) -> tuple[str, list[Edit]] | None:
    parts = diagnostic.path.split(".")
    if len(parts) == 3 and parts[1] == "env_vars" and env.NAME_RE.match(parts[2]):
        name = parts[2]
    elif len(parts) == 2 and parts[1] in CREDENTIAL_FIELDS:
        name = CREDENTIAL_FIELDS[parts[1]]
    else:
        return None
    edits = _replace(diagnostic, source, f"${{{name}}}")
    return None if edits is None else (f"Replace the credential with ${{{name}}}", edits)


def _bare(diagnostic: Diagnostic, source: Source) -> tuple[str, list[Edit]] | None:
    token = _token(diagnostic, source, echoed=True)
    if token is None:
        return None
    line, start, end, text = token
    new = _BARE.sub(r"${\1}", text)
    if new == text:
        return None
    names = ", ".join(f"${{{n}}}" for n in dict.fromkeys(_BARE.findall(text)))
    return f"Write {names}", [(line, start, line, end, new)]


def _interval(diagnostic: Diagnostic, source: Source) -> tuple[str, list[Edit]] | None:
    loaded = source.loaded
    if loaded is None:
        return None
    steps = min(100, source.settings.spot_checkpoint_interval_warn)
    entry = f"ckpt_every_steps: {steps}"
    title = f"Add step_scheduler.{entry}"
    scheduler = loaded.data.get("step_scheduler", ...)
    if scheduler is ...:
        last = len(source.lines.lines) - 1
        tail = source.lines.line(last)
        lead = "\n" if tail else ""
        text = f"{lead}step_scheduler:\n  {entry}\n"
        return title, [(last, len(tail), last, len(tail), text)]
    where = loaded.sections.get("step_scheduler")
    if not isinstance(scheduler, dict) or not scheduler or where is None:
        return None
    if {"ckpt_every_steps", "checkpoint_interval"} & set(scheduler):
        return None
    first, end = where
    children = [
        source.lines.line(i)
        for i in range(first + 1, end)
        if source.lines.line(i).strip() and not source.lines.line(i).lstrip().startswith("#")
    ]
    if not children:
        return None
    indent = children[0][: len(children[0]) - len(children[0].lstrip(" "))]
    return title, [(first + 1, 0, first + 1, 0, f"{indent}{entry}\n")]


def _fault_tolerance(diagnostic: Diagnostic, source: Source) -> tuple[str, list[Edit]] | None:
    loaded = source.loaded
    if loaded is None or "skypilot" not in loaded.data or diagnostic.path != "fault_tolerance":
        return None
    where = loaded.sections.get("fault_tolerance")
    if where is None:
        return None
    first, end = where
    if end >= len(source.lines.lines):
        last = len(source.lines.lines) - 1
        return TITLE_FT, [(first, 0, last, len(source.lines.line(last)), "")]
    return TITLE_FT, [(first, 0, end, 0, "")]


_MAKERS: dict[str, Callable[[Diagnostic, Source], tuple[str, list[Edit]] | None]] = {
    "unknown-key": _rename,
    "invalid-choice": _rename,
    "yaml11-trap": _yaml11,
    "secret-in-plain-text": _secret,
    "bare-env-reference": _bare,
    "spot-no-checkpoint-interval": _interval,
    "fault-tolerance-needs-slurm": _fault_tolerance,
}
