"""What looks wrong in a job's training: a loss that is no number, a loss far above its
running minimum, no new step for many times the usual interval (a hang)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from automodel_launch.progress.forecast import span

SPIKE_FACTOR = 3.0
"""A loss this many times its running minimum (over the steps read) is far above it."""
SPIKE_MIN_STEPS = 10
"""Steps seen before a spike is judged: the first steps' loss falls fast."""
HANG_FACTOR = 10.0
"""No new step for this many usual intervals is a hang..."""
HANG_FLOOR_SECONDS = 30.0
"""...and for at least this long: a checkpoint or a validation pass takes a while."""


@dataclass(frozen=True)
class Problem:
    kind: str
    """``not-a-number``, ``spike`` or ``hang``."""
    step: int
    text: str

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "step": self.step, "text": self.text}


def loss_problems(losses: Sequence[tuple[int, float]]) -> list[Problem]:
    """``losses``: (step, loss) in order. The first loss that is no number, else the last
    one when it is far above the running minimum of those before it."""
    for step, loss in losses:
        if not math.isfinite(loss):
            word = "nan" if math.isnan(loss) else "infinite"
            return [Problem("not-a-number", step, f"the loss is {word} at step {step}")]
    if len(losses) <= SPIKE_MIN_STEPS:
        return []
    step, last = losses[-1]
    lowest = min(loss for _, loss in losses[:-1])
    if lowest > 0 and last > SPIKE_FACTOR * lowest:
        return [Problem("spike", step, f"the loss {last:.4g} at step {step} is "
                        f"{last / lowest:.1f}x its running minimum {lowest:.4g}")]  # fmt: skip
    return []


def hang(step: int, quiet: float, seconds_per_step: float | None) -> Problem | None:
    """No step since ``quiet`` seconds after ``step``, one step taking ``seconds_per_step``."""
    if seconds_per_step is None:
        return None
    bound = max(HANG_FACTOR * seconds_per_step, HANG_FLOOR_SECONDS)
    if quiet <= bound:
        return None
    return Problem("hang", step, f"no new step for {span(quiet)} after step {step} (a step "
                   f"usually takes {seconds_per_step:.2f} s): it may hang")  # fmt: skip
