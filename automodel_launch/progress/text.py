"""A job's progress in words, for ``status``'s detail view (plain text)."""

from __future__ import annotations

import math

from automodel_launch.progress.forecast import span
from automodel_launch.progress.read import Progress


def progress_lines(p: Progress) -> list[str]:
    lines = []
    if p.step is not None:
        of = f" of {p.max_steps}" if p.max_steps else ""
        epoch = "" if p.epoch is None else f", epoch {p.epoch}"
        if p.num_epochs and not p.max_steps and p.epoch is not None:
            epoch = f", epoch {p.epoch} of {p.num_epochs}"
        trend = f" ({p.trend})" if p.trend else ""
        lines.append(f"progress   step {p.step}{of}{epoch}; loss {loss(p.loss)}{trend}")
    if p.val_loss is not None:
        best = ""
        if p.best_val_loss is not None and p.best_val_step is not None:
            best = f" (best {loss(p.best_val_loss)} at step {p.best_val_step})"
        lines.append(f"validation loss {loss(p.val_loss)}{best}")
    rate = []
    if p.seconds_per_step is not None:
        rate.append(f"{p.seconds_per_step:.2f} s a step (from {p.rate_from})")
    if p.tps_per_gpu is not None:
        rate.append(f"{p.tps_per_gpu:,.0f} tokens/s per GPU")
    if p.mem_gib is not None:
        rate.append(f"memory {p.mem_gib:.2f} GiB")
    if p.seconds_left is not None:
        rate.append(f"{span(p.seconds_left)} left at this rate")
    if rate:
        lines.append("rate       " + "; ".join(rate))
    if p.forecast is not None:
        lines.append(f"forecast   {p.forecast.text}")
    lines += [f"problem    {problem.text}" for problem in p.problems]
    lines += [f"note       {note}" for note in p.notes]
    return lines


def loss(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if math.isfinite(value) else str(value)
