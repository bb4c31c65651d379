"""A sweep's points compared: ranked by any column, the best one, and, when the points
ran on different numbers of nodes (``--sweep slurm.nodes=1,2,4``), how throughput scales.

The best point has the lowest validation loss (its best one); without validation, the
lowest last training loss. Scaling compares each point's tokens per second per GPU with
the point on the fewest nodes: 100% is perfect scaling, less is what communication costs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automodel_launch.jobs.status import JobStatus

COLUMNS = ("point", "state", "step", "loss", "val_loss", "tps_per_gpu", "elapsed")
"""What ``status SWEEP --sort`` takes, besides a swept key (``optimizer.lr``)."""
_HIGHER_FIRST = frozenset({"step", "tps_per_gpu", "elapsed"})


def default_sort(points: Sequence[JobStatus]) -> str:
    """By validation loss once any point has one, else in point order."""
    have = any(p.progress is not None and p.progress.best_val_loss is not None for p in points)
    return "val_loss" if have else "point"


def sort_problem(key: str, points: Sequence[JobStatus]) -> str | None:
    """Why ``--sort key`` cannot order these points (None: it can)."""
    keys = list(dict.fromkeys(k for p in points for k in p.manifest.values))
    if key in COLUMNS or key in keys:
        return None
    return f"sort by one of {', '.join([*COLUMNS, *keys])}"


def ranked(points: Sequence[JobStatus], key: str) -> list[JobStatus]:
    """``points`` ordered by ``key``: losses lowest first, steps, throughput and time
    highest first; a point without the value last; ties in point order."""

    def order(status: JobStatus) -> tuple[bool, Any, int]:
        value = value_of(status, key)
        missing = value is None or (isinstance(value, float) and not math.isfinite(value))
        if missing:
            return True, 0, status.manifest.point or 0
        if key in _HIGHER_FIRST and isinstance(value, (int, float)):
            value = -value
        sortable = value if isinstance(value, (int, float)) else str(value)
        return False, sortable, status.manifest.point or 0

    try:
        return sorted(points, key=order)
    except TypeError:  # a swept key whose values mix numbers and texts
        return sorted(points, key=lambda s: (str(value_of(s, key)), s.manifest.point or 0))


def value_of(status: JobStatus, key: str) -> Any:
    p = status.progress
    if key == "point":
        return status.manifest.point
    if key == "state":
        return status.state
    if key == "elapsed":
        return status.elapsed
    if key == "step":
        return None if p is None else p.step
    if key == "loss":
        return None if p is None else p.loss
    if key == "val_loss":
        return None if p is None else p.best_val_loss
    if key == "tps_per_gpu":
        return None if p is None else p.tps_per_gpu
    value = status.manifest.values.get(key)
    if value is None or (isinstance(value, (int, float, str)) and not isinstance(value, bool)):
        return value
    return str(value)  # a boolean or a list sorts by its text


def best(points: Sequence[JobStatus]) -> JobStatus | None:
    """The point with the lowest validation loss, else the lowest last training loss."""
    for key in ("val_loss", "loss"):
        first = ranked(points, key)
        if first and _finite(value_of(first[0], key)):
            return first[0]
    return None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


@dataclass(frozen=True)
class Scaled:
    point: int
    nodes: int
    tps: float | None
    tps_per_gpu: float | None
    efficiency: float | None
    """``tps_per_gpu`` over the smallest point's (1.0 for it); None when either is unknown."""

    def to_json(self) -> dict[str, Any]:
        return {
            "point": self.point, "nodes": self.nodes, "tps": self.tps,
            "tps_per_gpu": self.tps_per_gpu,
            "efficiency": None if self.efficiency is None else round(self.efficiency, 4),
        }  # fmt: skip


def scaling(points: Sequence[JobStatus]) -> list[Scaled] | None:
    """Each point's throughput against the point on the fewest nodes; None unless the
    points ran on different numbers of nodes."""
    nodes = {p.manifest.point or 0: p.manifest.details.get("nodes") for p in points}
    if not all(type(n) is int and n > 0 for n in nodes.values()) or len(set(nodes.values())) < 2:
        return None
    ordered = sorted(points, key=lambda p: (nodes[p.manifest.point or 0], p.manifest.point or 0))
    base = ordered[0].progress.tps_per_gpu if ordered[0].progress is not None else None
    found = []
    for status in ordered:
        p = status.progress
        per_gpu = None if p is None else p.tps_per_gpu
        efficiency = per_gpu / base if per_gpu is not None and base else None
        point = status.manifest.point or 0
        found.append(Scaled(point, int(nodes[point] or 0), None if p is None else p.tps,
                            per_gpu, efficiency))  # fmt: skip
    return found
