"""What ``jobs`` prints (a table or JSON), and ``jobs`` without typer's start-up cost.

The typer command (:mod:`automodel_launch.cli.jobs`) and :func:`fast` both print through
:func:`show`. :func:`fast` understands the listing options (a test keeps them in step
with the typer command's); anything else (``--help``, ``--watch``, ``--reindex``, a typo,
a bad value) returns ``None`` and the typer application handles the whole command line
with its usual messages. Where no terminal reads the table, it is drawn without rich
(:func:`automodel_launch.jobs.view.jobs_text`): the same characters, without rich's
import and drawing, which took longer than finding the jobs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from automodel_launch.jobs.listing import Listing

DEFAULT_ROWS = 50
"""Rows of the table by default: the newest, which is what a glance at ``jobs`` is for; a
registry of 10,000 jobs is still listed at once (``--limit 0`` lists every one)."""
PIPE_WIDTH = 400
"""Columns of the table where no terminal reads it: whole rows, not 80 columns."""

VALUED = {"--launcher": "launcher", "--state": "state", "--since": "since",
          "--format": "output_format", "--limit": "limit"}  # fmt: skip
TYPER_ONLY = frozenset({"--watch", "--interval", "--reindex"})
"""Options left to the typer command: a live table, rebuilding the registry."""
_MAX_LIMIT_DIGITS = 9
"""A longer ``--limit`` is read by typer (whatever it makes of it)."""


def problem(
    launcher: str | None, state: str | None, since: str | None, output_format: str
) -> tuple[str, str] | None:
    """The first option whose value is wrong and why, as the typer command reports it
    (the filters as :func:`automodel_launch.api.job_list` refuses them)."""
    from automodel_launch.jobs.listing import FilterError, read_filters

    if output_format not in ("text", "json"):
        return "--format", "use text or json"
    try:
        read_filters(launcher, state, since)
    except FilterError as exc:
        return f"--{exc.option}", exc.reason
    return None


def listing(
    launcher: str | None, state: str | None, since: str | None, limit: int | None, text: bool
) -> Listing:
    """The jobs the options (checked by :func:`problem`) ask for."""
    from automodel_launch import api

    if limit is None:
        limit = DEFAULT_ROWS if text else 0
    return api.job_list(launcher=launcher, state=state, since=since, limit=limit)


def warn(found: Listing) -> None:
    """A damaged record: the other jobs are still listed."""
    from automodel_launch.secrets import display

    for record in found.problems:
        sys.stderr.write(f"warning: {display(record)}\n")


def empty(found: Listing) -> str:
    return "no jobs recorded" + (" that match" if found.recorded else "")


def show(found: Listing, output_format: str) -> None:
    from automodel_launch.jobs import view

    warn(found)
    out = sys.stdout
    if output_format == "json":
        out.write(view.jobs_json(found.jobs))  # every point of a sweep is a job
        return
    if not found.jobs:
        out.write(empty(found) + "\n")
        return
    text = None if rich_terminal(out, os.environ) else view.jobs_text(found.table, PIPE_WIDTH)
    if text is not None:
        out.write(text)
    else:
        console().print(view.jobs_table(found.table))
    left = found.left_out
    if left > 0:
        out.write(f"({left} older row{'s' if left > 1 else ''} not shown: --limit 0 shows "
                  "every one)\n")  # fmt: skip


def console() -> Any:
    """rich's console for the table: the terminal's width, or whole rows in a pipe."""
    from rich.console import Console

    made = Console()
    return made if made.is_terminal else Console(width=PIPE_WIDTH)


def rich_terminal(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Whether rich draws for a terminal there (colours, the terminal's width): rich's own
    rule (``TTY_COMPATIBLE``, then ``FORCE_COLOR``, then the stream), asked without
    importing it."""
    compatible = environ.get("TTY_COMPATIBLE")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def parse(args: list[str]) -> dict[str, Any] | None:
    """The listing options of ``args``; None for anything else (typer reads it then)."""
    given: dict[str, Any] = {}
    rest = iter(args)
    for arg in rest:
        option, equals, value = arg.partition("=")
        if option not in VALUED:
            return None
        name = VALUED[option]
        found = value if equals else next(rest, None)
        if found is None or name in given:
            return None  # a missing value; an option given twice
        if name == "limit":
            if not (found.isdigit() and found.isascii() and len(found) <= _MAX_LIMIT_DIGITS):
                return None
            given[name] = int(found)
        else:
            given[name] = found
    return given


def fast(args: list[str]) -> int | None:
    """``jobs ARGS``: the exit code, or None to let typer handle the command line."""
    parsed = parse(args)
    if parsed is None:
        return None
    launcher, state, since = (parsed.get(name) for name in ("launcher", "state", "since"))
    output_format = parsed.get("output_format", "text")
    from automodel_launch.cli.fast import skip_plugin_search

    skip_plugin_search()  # before pydantic builds the manifest's model
    if problem(launcher, state, since, output_format) is not None:
        return None  # typer says what is wrong with it
    text = output_format == "text"
    show(listing(launcher, state, since, parsed.get("limit"), text), output_format)
    return 0
