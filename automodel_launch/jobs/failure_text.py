"""What ``status`` says of a failed job: one sentence a cause, with what to change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from automodel_launch.secrets import display

if TYPE_CHECKING:
    from automodel_launch.jobs.failure import Failure

Cause = Literal[
    "oom-gpu", "oom-host", "nccl", "time-limit", "preempted", "node-failure",
    "import-error", "config-error", "exit-code", "unknown",
]  # fmt: skip

_FIX: dict[Cause, str] = {
    "oom-gpu": "ran out of GPU memory: lower `local_batch_size`, turn on activation "
    "checkpointing, or spread the model over more nodes (`slurm.nodes`)",
    "oom-host": "ran out of host memory and was killed: ask for more (`slurm.mem`), or use "
    "fewer dataloader workers or a smaller batch",
    "nccl": "failed in NCCL (a collective failed or timed out): look for a rank that died "
    'or hung first and at the nodes\' network; `NCCL_DEBUG: "INFO"` in `env_vars` says more',
    "time-limit": "ran past its time limit{limit}: raise `slurm.time`, or checkpoint more "
    "often and resume",
    "preempted": "was preempted by the scheduler: submit it again, or let Slurm requeue it "
    "(`slurm.requeue: true`)",
    "node-failure": "lost a node: submit it again; if it happens again, leave the node out "
    "(`slurm.sbatch_args: [--exclude=NODE]`)",
    "import-error": "could not import a module: install it where the job runs "
    "(`slurm.container_image`, `slurm.setup`) or put its code on the path (`slurm.repo_root`)",
    "config-error": "failed while building the recipe from the config: fix the value its last "
    "lines name (`automodel-launch validate CONFIG` checks the recipe's fields)",
    "exit-code": "exited with code {code}: its last lines say why",
    "unknown": "failed, and its files do not say why: look at the whole log "
    "(`automodel-launch logs JOB`)",
}


def summary(
    cause: Cause, rank: int | None, code: int | None, signal_name: str | None, limit: str | None
) -> str:
    """One sentence: who, what happened, what to change."""
    who = f"Rank {rank}" if rank is not None else "The job"
    how = f"{code} ({signal_name})" if signal_name else str(code)
    text = _FIX[cause].format(limit=f" ({limit})" if limit else "", code=how)
    return display(f"{who} {text}.")


def failure_lines(failure: Failure) -> list[str]:
    """The text view: the sentence, then the failing rank's last lines."""
    whose = "the job" if failure.rank is None else f"rank {failure.rank}"
    lines = [f"failure    {failure.cause}: {failure.summary}"]
    if failure.log_tail:
        lines.append(f"last lines of {whose}:")
        lines += [f"  {line}" for line in failure.log_tail]
    return lines
