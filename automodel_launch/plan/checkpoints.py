"""Where each job of a plan writes its checkpoints, and what it resumes from.

AutoModel (0.7.0's ``BaseRecipe.load_checkpoint``) resumes from the latest checkpoint it
finds in ``checkpoint.checkpoint_dir`` (AutoModel's default ``checkpoints/``, relative to
the job's working directory) when ``checkpoint.restore_from`` is unset or ``LATEST``: the
folder there whose name ends in ``step_S`` with the highest S (``epoch_E_step_S``), one an
interrupted save left (marked ``.incomplete``) skipped. It also writes ``training.jsonl``
and the consolidated model there. Two jobs given one directory train on each other's
checkpoints: the second resumes from the first's last step, and "completes" at once.

So the tool gives a job its own directory where the recipe's one would be shared:

- each point of a sweep: ``DIR/sweep-ID/points/INDEX`` (DIR the recipe's directory, ID the
  sweep's), unless the sweep sets ``checkpoint.checkpoint_dir`` itself; a sweep whose points
  would still share one is refused;
- a rerun that changes a recipe value (or ``--fresh``): ``DIR/rerun-ID`` (ID the new job's);
  a plain rerun (or ``--resume``) keeps DIR and resumes from what the job it runs again
  left there.

The directory is an override of the job (``checkpoint.checkpoint_dir``, given by
``--sweep`` or ``--fresh``), so its job config, ``launch.yaml`` and ``diff`` show it.
Nothing is done where checkpointing is off (``checkpoint.enabled: false``).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from automodel_launch.diagnostics import dotted
from automodel_launch.layout import POINTS
from automodel_launch.plan.sweep import Point, SweepError
from automodel_launch.profiles.overrides import Override
from automodel_launch.rules.skypilot_results import DEFAULT_DIR, has_recipe

SECTION = "checkpoint"
KEY = (SECTION, "checkpoint_dir")
LATEST = "LATEST"
MAX_ENTRIES = 4096
"""Entries of a checkpoint directory looked at for its latest step."""
_STEP = re.compile(r"step_([0-9]+)$")
"""AutoModel's ``_CHECKPOINT_STEP_RE``: a checkpoint folder's name ends in its step."""
INCOMPLETE = ".incomplete"
"""The marker AutoModel leaves in a checkpoint an interrupted save did not finish."""


def section(data: Mapping[str, Any], overrides: Iterable[Override]) -> dict[str, Any]:
    """The ``checkpoint:`` section as ``overrides`` leave it (only its own keys matter)."""
    found = data.get(SECTION)
    current = dict(found) if isinstance(found, dict) else {}
    for override in overrides:
        if override.problems or override.loc[0] != SECTION:
            continue
        if len(override.loc) == 1:
            current = dict(override.value) if isinstance(override.value, dict) else {}
        elif len(override.loc) == 2:
            current[str(override.loc[1])] = override.value
    return current


def enabled(checkpoint: Mapping[str, Any]) -> bool:
    return checkpoint.get("enabled") is not False


def directory(checkpoint: Mapping[str, Any]) -> str | None:
    """The directory AutoModel writes to; None when the value is no text (the recipe's
    own diagnostic says so: nothing is put over it)."""
    value = checkpoint.get("checkpoint_dir")
    if value is None:
        return DEFAULT_DIR
    return value if isinstance(value, str) and value else None


def sets_directory(overrides: Iterable[Override]) -> bool:
    """Whether ``overrides`` name the directory themselves."""
    return any(
        o.loc == KEY or (o.loc == (SECTION,) and isinstance(o.value, dict) and KEY[1] in o.value)
        for o in overrides
        if not o.problems
    )


def inside(base: str, name: str) -> str:
    """``base/name``, whatever ``base`` ends in."""
    stripped = base.rstrip("/")
    if stripped:
        return f"{stripped}/{name}"
    return f"/{name}" if base.startswith("/") else name


def override(path: str, option: str) -> Override:
    """``checkpoint.checkpoint_dir=PATH`` as ``option`` gives it: the value as text, as
    written (no YAML reading: a path is no number)."""
    return Override(f"{dotted(KEY)}={path}", KEY, path, option=option)


def _same(path: str) -> str:
    return path.rstrip("/") if "://" in path else posixpath.normpath(path)


def named_inside(checkpoint: Mapping[str, Any]) -> str | None:
    """A ``restore_from`` AutoModel reads inside ``checkpoint_dir`` (a folder's name, not
    a path nor ``LATEST``): it is not in a directory of the tool's making."""
    value = checkpoint.get("restore_from")
    if not isinstance(value, str) or not value or value.startswith("$"):
        return None
    return value if "/" not in value and value.upper() != LATEST else None


@dataclass(frozen=True)
class Points:
    """Each point's own checkpoint directory, as the override that gives it (none where the
    point names one itself or writes none)."""

    overrides: list[tuple[Override, ...]]
    template: str | None = None
    """``DIR/sweep-ID/points/INDEX`` (None: the tool gives no point a directory)."""

    @property
    def line(self) -> str | None:
        """What the summaries say of them (None: nothing to say)."""
        if self.template is None:
            return None
        if all(self.overrides):
            return f"{self.template}, one per point"
        return f"{self.template}, or the point's own checkpoint.checkpoint_dir"


def for_points(
    data: Mapping[str, Any], sets: Sequence[Override], points: Sequence[Point], sweep: str
) -> Points:
    """The points' own directories; :class:`SweepError` when points would share one."""
    if not has_recipe(dict(data)):
        return Points([() for _ in points])
    given: list[tuple[Override, ...]] = []
    users: dict[str, list[int]] = {}
    template = None
    for point in points:
        checkpoint = section(data, (*sets, *point.overrides))
        base = directory(checkpoint)
        if not enabled(checkpoint) or base is None:
            given.append(())
            continue
        path = base
        if not sets_directory(point.overrides):
            named = named_inside(checkpoint)
            if named is not None:
                raise SweepError(
                    f"checkpoint.restore_from '{named}' is a checkpoint inside "
                    f"checkpoint_dir {base}, but each point of a sweep writes its own "
                    "directory",
                    hint=f"give restore_from as a path: {inside(base, named)}",
                )
            path = inside(base, f"sweep-{sweep}/{POINTS}/{point.index}")
            template = template or inside(base, f"sweep-{sweep}/{POINTS}/INDEX")
        users.setdefault(_same(path), []).append(point.index)
        given.append(() if path == base else (override(path, "--sweep"),))
    for path, indexes in users.items():
        if len(indexes) > 1:
            raise SweepError(
                f"points {', '.join(map(str, indexes))} would write their checkpoints to one "
                f"directory, {path}: AutoModel resumes each from the other's last step",
                hint="sweep checkpoint.checkpoint_dir values that differ, or leave it to the "
                f"sweep: each point then gets DIR/sweep-ID/{POINTS}/INDEX",
            )
    return Points(given, template)


@dataclass(frozen=True)
class Latest:
    """What a checkpoint directory holds: its latest step (None: no checkpoint), or why it
    was not looked into (``note``)."""

    step: int | None = None
    note: str | None = None


def resolved_there(path: str) -> bool:
    """A URL, or a path naming a variable: what it is is known where the job runs."""
    return "://" in path or "$" in path


def relative(path: str) -> bool:
    """Relative to the job's working directory (AutoModel does not expand ``~``)."""
    return not path.startswith("/") and not resolved_there(path)


def latest(path: str, *, limit: int = MAX_ENTRIES) -> Latest:
    """The step AutoModel resumes from in ``path`` (at most ``limit`` entries looked at;
    folders only, no link, none an interrupted save left)."""
    if resolved_there(path):
        return Latest(note="not looked into: resolved where the job runs")
    if relative(path):
        return Latest(note="not looked into: relative to the job's working directory")
    best: int | None = None
    try:
        with os.scandir(path) as entries:
            for count, entry in enumerate(entries):
                if count >= limit:
                    break
                match = _STEP.search(entry.name)
                if match is None or not entry.is_dir(follow_symlinks=False):
                    continue
                if os.path.lexists(os.path.join(entry.path, INCOMPLETE)):
                    continue
                step = int(match.group(1))
                best = step if best is None else max(best, step)
    except (FileNotFoundError, NotADirectoryError):
        return Latest()
    except OSError as exc:
        return Latest(note=f"not looked into: {exc.strerror or exc}")
    return Latest(best)
