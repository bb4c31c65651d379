"""Startup checks AutoModel makes on the training loop's sizes, beside the mesh's
(:mod:`automodel_launch.rules.runtime`), at the value to change:

- pipeline parallelism: the fine-tuning recipes (``recipes/llm/train_ft.py``,
  ``recipes/vlm/finetune.py``) assert ``local_batch_size // pp_microbatch_size >= pp_size``
  before the first step. From 0.3.0 the micro-batch size is
  ``distributed.pipeline.pp_microbatch_size`` (default 1); in 0.2.0
  ``autopipeline.pp_microbatch_size``. ``local_batch_size`` left out is 1.
- a data set without a length (an iterable one, :mod:`automodel_launch.automodel.
  extract.facts`): the StepScheduler takes the epoch's length from the data loader, and
  from 0.1.2 raises "epoch_len must be provided if max_steps is not provided" when there
  is none and ``step_scheduler.max_steps`` is not set.
"""

from __future__ import annotations

from typing import Any

from automodel_launch.automodel.versions import at_least
from automodel_launch.diagnostics import Loc
from automodel_launch.rules.context import Context
from automodel_launch.rules.mesh import DIST, Unknown, read_int, read_mesh, release_of

SCHED = "step_scheduler"
TARGET = "_target_"
FIRST_PIPELINE_CHECK = "0.2.0"
FIRST_PIPELINE_SECTION = "0.3.0"
FIRST_EPOCH_CHECK = "0.1.2"


def startup_sizes(ctx: Context) -> None:
    version = ctx.release().version
    if at_least(version, FIRST_PIPELINE_CHECK):
        _pipeline(ctx, version)
    if at_least(version, FIRST_EPOCH_CHECK):
        _unsized_data(ctx, version)


def _pipeline(ctx: Context, version: str) -> None:
    mesh = read_mesh(ctx.data, release_of(version))
    if mesh is None or mesh.pp <= 1:
        return
    section: Loc = (
        (DIST, "pipeline", "pp_microbatch_size")
        if at_least(version, FIRST_PIPELINE_SECTION)
        else ("autopipeline", "pp_microbatch_size")
    )
    micro = read_int(ctx.data, section)
    lbs = read_int(ctx.data, (SCHED, "local_batch_size"))
    if isinstance(micro, Unknown) or isinstance(lbs, Unknown):
        return
    if micro is None and section[0] == "autopipeline":
        return  # 0.2.0 reads it without a default: another error, not this one
    micro, lbs = micro or 1, 1 if lbs is None else lbs
    if micro <= 0 or lbs <= 0 or lbs // micro >= mesh.pp:
        return
    words = "must be greater than or equal to" if section[0] == "autopipeline" else "must be >="
    scheduler = ctx.data.get(SCHED)
    written = isinstance(scheduler, dict) and scheduler.get("local_batch_size") is not None
    loc: Loc = (SCHED, "local_batch_size") if written or micro == 1 else section
    ctx.sink.add(
        "pipeline-batch-too-small",
        loc,
        f"local_batch_size {lbs} // pp_microbatch_size {micro} = {lbs // micro} micro-batches "
        f"for pp_size {mesh.pp} stages: AutoModel {version} stops the job at startup "
        f'("pp_batch_size {lbs} // pp_microbatch_size {micro} {words} pp_size {mesh.pp}")',
        f"set step_scheduler.local_batch_size to {micro * mesh.pp} or more (pp_size "
        f"{mesh.pp} x pp_microbatch_size {micro})"
        + (f", or {'.'.join(map(str, section))} to {lbs // mesh.pp}" if lbs >= mesh.pp else ""),
    )


def _unsized_data(ctx: Context, version: str) -> None:
    dataset = ctx.data.get("dataset")
    target = dataset.get(TARGET) if isinstance(dataset, dict) else None
    if not isinstance(target, str) or "$" in target:
        return
    table = ctx.release().table()
    where = table.resolve(target.strip())
    if where is None or where not in table.unsized:
        return
    scheduler: Any = ctx.data.get(SCHED)
    steps = read_int(ctx.data, (SCHED, "max_steps"))
    if steps is not None:
        return  # set (a bad value is size-not-positive's)
    loc: Loc = (SCHED,) if isinstance(scheduler, dict) else ("dataset", TARGET)
    name = where.rsplit(".", 1)[-1]
    ctx.sink.add(
        "no-max-steps",
        loc,
        f"{name} is a data set without a length (an iterable one), and step_scheduler sets no "
        f"max_steps: AutoModel {version}'s StepScheduler stops the job at startup "
        '("epoch_len must be provided if max_steps is not provided")',
        "add max_steps: <optimizer steps to run> under step_scheduler",
        at_key=isinstance(scheduler, dict),
    )
