"""AutoModel's per-step log lines, parsed from the end of a job's log.

On main, rank 0 prints ``step {} | epoch {} | loss {:.4f} | grad_norm {:.4f} | lr {:.2e} |
mem {:.2f} GiB | tps {:.2f}({:.2f}/gpu) | num_label_tokens {}``; older releases end in
``| time {:.2f}s``, other recipes add fields, and validation prints ``[val] name "..." |
step {} | epoch {} | loss {:.4f} | ...``. A line may carry torchrun's ``[rank0]:`` tag or
a logging prefix before ``step``; only the fields named here are read, the rest is left.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_LINE_CHARS = 4096
"""A longer line is no step line (a step line is about 150 characters)."""
MAX_STEP = 10**12
_STEP = re.compile(r"(?:^|[\s:\]|])step (\d{1,13}) \| epoch (\d{1,9}) \| loss (\S{1,40})")
_VALIDATION = re.compile(r"\[val\]")
_FIELD = re.compile(r"\|\s*([a-z_]{1,32}) ([^|]{1,80})")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", re.IGNORECASE)
_PER_GPU = re.compile(r"\(([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)/gpu\)")


@dataclass(frozen=True)
class StepLine:
    """One step as the log printed it; ``validation`` for a ``[val]`` line."""

    step: int
    epoch: int
    loss: float
    validation: bool = False
    grad_norm: float | None = None
    lr: float | None = None
    mem_gib: float | None = None
    tps: float | None = None
    tps_per_gpu: float | None = None
    seconds: float | None = None
    """``| time X s``: the step's own duration (older releases)."""


def step_lines(text: str) -> list[StepLine]:
    """Every step and validation line of ``text``, in order; other lines are skipped."""
    found = []
    for line in text.splitlines():
        if len(line) > MAX_LINE_CHARS or "| epoch" not in line:
            continue
        parsed = parse_line(line)
        if parsed is not None:
            found.append(parsed)
    return found


def parse_line(line: str) -> StepLine | None:
    match = _STEP.search(line)
    if match is None:
        return None
    step, epoch = int(match.group(1)), int(match.group(2))
    loss = _float(match.group(3))
    if loss is None or step > MAX_STEP:
        return None
    fields = {key: value.strip() for key, value in _FIELD.findall(line[match.end() :])}
    tps_text = fields.get("tps", "")
    per_gpu = _PER_GPU.search(tps_text)
    return StepLine(
        step=step,
        epoch=epoch,
        loss=loss,
        validation=_VALIDATION.search(line[: match.start() + 1]) is not None,
        grad_norm=_number(fields.get("grad_norm")),
        lr=_number(fields.get("lr")),
        mem_gib=_number(fields.get("mem")),
        tps=_number(tps_text),
        tps_per_gpu=None if per_gpu is None else _float(per_gpu.group(1)),
        seconds=_number(fields.get("time")),
    )


def _number(text: str | None) -> float | None:
    """The first number of a field's text (``2.10 GiB``, ``1234.5(617.2/gpu)``, ``0.93s``)."""
    if not text:
        return None
    match = _NUMBER.match(text)
    return None if match is None else _float(match.group(0))


def _float(text: str) -> float | None:
    """A number as Python's format printed it: ``nan`` and ``inf`` are kept (a loss that
    went wrong is what ``status`` must show), text that is no number is None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) or text.strip("+-").lower() in ("nan", "inf") else None
