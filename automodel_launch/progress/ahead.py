"""The forecast before a job runs, from a rate seen already: the job ``rerun`` runs again
(its steps' time), or a sweep's points that ran (their median, for those still pending).

The recipe gives ``max_steps`` and the checkpoint interval, the new job's request its time
limit, the earlier run one step's time; the start-up is not counted (the forecast errs
short by it) and the text says whose rate it is.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from automodel_launch.progress.bounds import bounds_of
from automodel_launch.progress.forecast import Forecast, forecast

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus


def before_it_runs(
    manifest: Manifest, seconds_per_step: float, whose: str, time_limit: str | None = None
) -> Forecast | None:
    """``manifest``'s job forecast at ``seconds_per_step`` (``whose`` rate it is), against
    ``time_limit`` (else the one it asked for); None without a limit or ``max_steps``."""
    from dataclasses import replace

    from automodel_launch.config.slurm_time import TimeError, parse

    bounds = bounds_of(manifest)
    limit_text = time_limit or manifest.details.get("time")
    if bounds.max_steps is None or not isinstance(limit_text, str) or seconds_per_step <= 0:
        return None
    try:
        minutes = parse(limit_text).minutes
    except TimeError:
        return None
    if minutes is None:
        return None
    signal = manifest.details.get("requeue_signal_seconds")
    found = forecast(
        step=0, at=0.0, seconds_per_step=seconds_per_step, max_steps=bounds.max_steps,
        limit=minutes * 60.0, ckpt_every_steps=bounds.ckpt_every_steps,
        checkpoints=bounds.checkpoints, requeue_signal=signal if type(signal) is int else None,
    )  # fmt: skip
    return replace(found, text=f"before it runs, at {whose} rate ({found.text}, start-up "
                   "not counted)")  # fmt: skip


def for_pending_points(points: Sequence[JobStatus]) -> list[JobStatus]:
    """``points`` with a forecast on each pending one that has none, at the median rate of
    the points that logged one."""
    from dataclasses import replace

    from automodel_launch.progress.read import Progress

    rates = [p.progress.seconds_per_step for p in points
             if p.progress is not None and p.progress.seconds_per_step]  # fmt: skip
    if not rates:
        return list(points)
    rate = statistics.median(rates)
    shown = []
    for status in points:
        if status.state == "PENDING" and (status.progress is None or status.progress.step is None):
            ahead = before_it_runs(status.manifest, rate, "the other points' median",
                                   status.time_limit)  # fmt: skip
            if ahead is not None:
                bound = bounds_of(status.manifest).max_steps
                progress = status.progress or Progress(max_steps=bound)
                status = replace(status, progress=replace(progress, forecast=ahead, notes=()))
        shown.append(status)
    return shown
