"""JOB on the command line: a registry id (or its unique start), a scheduler id, a job
directory or a job name; where a command takes a sweep, also a sweep's id (or its unique
start), its job array's Slurm id or its name. A job directory with a manifest is read
directly, so a job is found even when the registry cannot be used. Messages quote JOB as
given: the command cleans them for display (a token or control character in JOB never
reaches the terminal).

An empty JOB (an unset shell variable: ``cancel "$JOB"``) is a usage error here, before
anything is looked up: as a start of an id it would name every job, and as a path the
current directory.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from automodel_launch.errors import UsageError
from automodel_launch.jobs.manifest import Manifest, read_manifest
from automodel_launch.jobs.registry import Registry, open_registry
from automodel_launch.jobs.status import JobError
from automodel_launch.jobs.sweeps import Sweep
from automodel_launch.layout import MANIFEST

_SPAN = re.compile(r"^([0-9]+)([smhdw])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SPAN_FORM = "a time span like 2d, 12h, 30m, 1w"


class EmptyReference(UsageError):
    """JOB is empty or only blanks: it would name every job."""


def named(text: str) -> str:
    """``text`` as a reference to a job or sweep; :class:`EmptyReference` when it is
    empty or only blanks (every lookup of JOB goes through here)."""
    if text.strip():
        return text
    said = "empty" if not text else "only blanks"
    raise EmptyReference(
        f"the job reference {text!r} is {said}: give a job's id (or a unique start of it), "
        "its scheduler id, its job directory or its name",
        hint="`automodel-launch jobs` lists them; an unset shell variable gives an empty argument",
    )


def find_job(text: str) -> Manifest:
    """The one job JOB names; a sweep is a :class:`JobError` that says how to name a point."""
    found = find_job_or_sweep(text)
    if isinstance(found, Sweep):
        raise JobError(
            f"'{text}' is sweep {found.id} of {len(found.points)} points; give one point's id "
            "(`automodel-launch status SWEEP` lists them)"
        )
    return found


def find_point(text: str, point: int | None) -> Manifest:
    """The one job JOB names; of a sweep, its point ``point`` (``--point``, required then)."""
    found = find_job_or_sweep(text)
    if isinstance(found, Sweep):
        if point is None:
            raise JobError(
                f"'{text}' is sweep {found.id} of {len(found.points)} points: give one with "
                f"--point I (its points are {found.indexes})"
            )
        return found.point(point)
    if point is not None:
        raise JobError(f"'{text}' is job {found.id}, not a sweep: --point is for a sweep")
    return found


def find_job_or_sweep(text: str) -> Manifest | Sweep:
    """What JOB names, a job or a sweep: a job's id, scheduler id or directory first, then a
    sweep's id or job array, then a name (the newest job or sweep of that name), then a
    unique start of a job's or a sweep's id."""
    directory = _expanded(named(text))
    if directory.is_dir() and os.path.lexists(directory / MANIFEST):
        return read_manifest(directory.absolute())
    with open_registry() as registry:
        found = registry.find(text)
        where = str(directory.absolute())
        if any(text in (m.id, m.scheduler_id) or m.job_dir == where for m in found):
            return _one_job(text, found)
        kind, sweeps = registry.sweep_ids(text)
        if kind in ("id", "array") and len(sweeps) == 1:
            return _sweep(registry, sweeps[0])
        if found and found[0].name == text:  # a name: the newest job or sweep of that name
            newest = found[0].sweep
            return _sweep(registry, newest) if newest else _one_job(text, found)
        singles = [m for m in found if m.sweep is None or m.sweep not in sweeps]
        if len(sweeps) == 1 and not singles:
            return _sweep(registry, sweeps[0])
        if sweeps:
            choices = [f"sweep {s}" for s in sweeps[:5]] + [_choice(m) for m in singles[:5]]
            raise JobError(f"'{text}' names {len(sweeps) + len(singles)} jobs or sweeps: "
                           f"{', '.join(choices)}; give the id")  # fmt: skip
    if not found:
        raise JobError(
            f"no job or sweep is '{text}' (an id, scheduler id, job directory or name); "
            "`automodel-launch jobs` lists them"
        )
    return _one_job(text, found)


def _sweep(registry: Registry, sweep: str) -> Sweep:
    points = registry.sweep_points(sweep)
    if not points:
        raise JobError(f"the records of sweep {sweep} cannot be read; `automodel-launch jobs` "
                       "says why")  # fmt: skip
    return Sweep(sweep, tuple(points))


def _one_job(text: str, found: list[Manifest]) -> Manifest:
    same_name = all(m.name == found[0].name for m in found) and found[0].name == text
    if len(found) > 1 and not same_name:
        choices = ", ".join(_choice(m) for m in found[:5])
        raise JobError(f"'{text}' names {len(found)} jobs: {choices}; give the id")
    return found[0]  # a name: its newest job


def _choice(m: Manifest) -> str:
    return f"{m.id} ({m.launcher} {m.scheduler_id})"


def since_epoch(text: str) -> float:
    """``2d``, ``12h``, ``30m``, ``1w``, ``90s``: that long before now. A span reaching
    back before 1970 is a :class:`ValueError`, as a span that is none: no job is older,
    so it is a typo rather than "every job" (which is leaving the option out)."""
    match = _SPAN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not {_SPAN_FORM}")
    span = float(match.group(1)) * _UNIT[match.group(2)]  # a thousand digits: inf
    now = time.time()
    if span > now:
        raise ValueError(
            f"{text!r} reaches back before 1970, older than any job: give {_SPAN_FORM} "
            "(leave the option out for every job)"
        )
    return now - span


def _expanded(text: str) -> Path:
    """JOB as a path, ``~`` expanded when it can be (``~nobody`` is taken as written)."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)
