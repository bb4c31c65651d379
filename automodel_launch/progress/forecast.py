"""Where a job's time limit falls in its training, said in words.

"at 2.1 s a step, step 1000 comes 9h40m after the start; the limit is 8h: the job stops
near step 820; its last checkpoint will be step 800; the 20 steps after it are lost".
Slurm stops the job at its limit; a checkpoint is written every ``ckpt_every_steps``
steps. A Slurm job with ``requeue`` and a warning ``signal`` is told ``signal`` seconds
before the limit: its ranks save a checkpoint at their next step and it is requeued, so it
resumes from where it stopped (while it has requeues left; this run's count is not known
here). A step's time is a constant rate: the forecast moves as the rate does.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Forecast:
    finishes: bool
    last_step_at: float
    """Seconds after the run's start at which the last step comes."""
    stop_step: int | None = None
    """The step the run stops near (None: it finishes)."""
    last_checkpoint: int | None = None
    requeued: bool = False
    text: str = ""

    @property
    def lost_steps(self) -> int | None:
        if self.stop_step is None or self.requeued:
            return None
        return self.stop_step - (self.last_checkpoint or 0)

    def to_json(self) -> dict[str, object]:
        return {
            "finishes": self.finishes,
            "last_step_after_seconds": round(self.last_step_at),
            "stop_step": self.stop_step,
            "last_checkpoint": self.last_checkpoint,
            "lost_steps": self.lost_steps,
            "requeued": self.requeued,
            "text": self.text,
        }


def forecast(
    *,
    step: int,
    at: float,
    seconds_per_step: float,
    max_steps: int,
    limit: float,
    ckpt_every_steps: int | None,
    checkpoints: bool = True,
    requeue_signal: int | None = None,
) -> Forecast:
    """``step`` reached ``at`` seconds after the run's start, one step each
    ``seconds_per_step``; the run may last ``limit`` seconds."""
    rate = max(seconds_per_step, 1e-6)
    last_at = at + max(0, max_steps - step) * rate
    head = (
        f"at {_rate(rate)} a step, step {max_steps} comes {span(last_at)} after the start; "
        f"the limit is {span(limit)}"
    )
    if last_at <= limit:
        return Forecast(True, last_at, text=f"{head}: it finishes in time")
    if requeue_signal is not None and requeue_signal < limit:
        told = _reached(step, at, rate, limit - requeue_signal)
        saved = min(told + 1, max_steps)
        text = (f"{head}: {requeue_signal} s before it the ranks are told to stop and save a "
                f"checkpoint near step {saved}; requeue resumes the job from there")  # fmt: skip
        return Forecast(False, last_at, told, saved, requeued=True, text=text)
    stop = _reached(step, at, rate, limit)
    kept = None
    if checkpoints and ckpt_every_steps:
        kept = stop // ckpt_every_steps * ckpt_every_steps or None
    text = f"{head}: the job stops near step {stop}; "
    if kept is None:
        text += "no checkpoint is written before then: all of it is lost"
    else:
        lost = stop - kept
        text += f"its last checkpoint will be step {kept}; "
        text += f"the {lost} steps after it are lost" if lost else "nothing after it is lost"
    return Forecast(False, last_at, stop, kept, text=text)


def _reached(step: int, at: float, rate: float, when: float) -> int:
    """The last step done by ``when`` seconds after the start."""
    return max(step, step + int((when - at) // rate)) if when > at else step


def span(seconds: float) -> str:
    """``9h40m``, ``8h``, ``3m05s``, ``42s``, ``2d3h``."""
    whole = max(0, round(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d{hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h{minutes:02d}m" if minutes else f"{hours}h"
    if minutes:
        return f"{minutes}m{secs:02d}s" if secs else f"{minutes}m"
    return f"{secs}s"


def _rate(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.0f} s"
