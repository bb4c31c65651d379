"""One vocabulary of job states across launchers, and pending reasons that explain themselves.

Each launcher's own state stays beside ours (``scheduler_state``). A Slurm pending
reason is explained; where it means the job will not start as submitted, the
explanation says so and names the config field to change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

State = Literal[
    "PENDING",
    "RUNNING",
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "PREEMPTED",
    "REQUEUED",
    "UNKNOWN",
]
STATES: tuple[State, ...] = (
    "PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED",
    "REQUEUED", "UNKNOWN",
)  # fmt: skip
FINISHED: frozenset[State] = frozenset({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"})
"""States a job does not leave (PREEMPTED and REQUEUED jobs may run again)."""

SLURM: dict[str, State] = {
    "PENDING": "PENDING",
    "CONFIGURING": "PENDING",
    "SUSPENDED": "PENDING",
    "STOPPED": "PENDING",
    "RUNNING": "RUNNING",
    "COMPLETING": "RUNNING",
    "RESIZING": "RUNNING",
    "SIGNALING": "RUNNING",
    "STAGE_OUT": "RUNNING",
    "COMPLETED": "COMPLETED",
    "FAILED": "FAILED",
    "NODE_FAIL": "FAILED",
    "BOOT_FAIL": "FAILED",
    "OUT_OF_MEMORY": "FAILED",
    "SPECIAL_EXIT": "FAILED",
    "CANCELLED": "CANCELLED",
    "REVOKED": "CANCELLED",
    "TIMEOUT": "TIMEOUT",
    "DEADLINE": "TIMEOUT",
    "PREEMPTED": "PREEMPTED",
    "REQUEUED": "REQUEUED",
    "REQUEUE_HOLD": "REQUEUED",
    "REQUEUE_FED": "REQUEUED",
}

SKYPILOT_MANAGED: dict[str, State] = {
    "PENDING": "PENDING",
    "SUBMITTED": "PENDING",
    "STARTING": "PENDING",
    "RUNNING": "RUNNING",
    "WINDING_DOWN": "RUNNING",
    "RECOVERING": "REQUEUED",
    "CANCELLING": "RUNNING",
    "SUCCEEDED": "COMPLETED",
    "CANCELLED": "CANCELLED",
    "FAILED": "FAILED",
    "FAILED_SETUP": "FAILED",
    "FAILED_PRECHECKS": "FAILED",
    "FAILED_NO_RESOURCE": "FAILED",
    "FAILED_CONTROLLER": "FAILED",
}
"""``sky.jobs.state.ManagedJobStatus`` (RECOVERING: restarting after a preemption)."""

SKYPILOT_CLUSTER: dict[str, State] = {
    "INIT": "PENDING",
    "PENDING": "PENDING",
    "SETTING_UP": "RUNNING",
    "RUNNING": "RUNNING",
    "SUCCEEDED": "COMPLETED",
    "FAILED": "FAILED",
    "FAILED_SETUP": "FAILED",
    "FAILED_DRIVER": "FAILED",
    "CANCELLED": "CANCELLED",
}
"""``sky.skylet.job_lib.JobStatus`` of a job on a cluster launched by ``sky.launch``."""


def state_of(table: dict[str, State], scheduler_state: str) -> State:
    """Our state for a scheduler's; a state we do not know is UNKNOWN, never a guess."""
    return table.get(scheduler_state.upper(), "UNKNOWN")


@dataclass(frozen=True)
class Reason:
    text: str
    """What the reason means, for a person."""
    never_starts: bool = False
    """The job will not start as submitted: cancel it and resubmit with :attr:`field` changed."""
    field: str | None = None
    """The config field to change (dotted path), when one fixes it."""


_NEVER = "it will never start as submitted"
PENDING_REASONS: dict[str, Reason] = {
    "PartitionTimeLimit": Reason(
        f"the time limit is over the partition's MaxTime: {_NEVER}", True, "slurm.time"
    ),
    "PartitionNodeLimit": Reason(
        f"the node count is outside the partition's MinNodes..MaxNodes: {_NEVER}",
        True,
        "slurm.nodes",
    ),
    "ReqNodeNotAvail": Reason(
        f"the nodes it needs are down, drained or reserved: {_NEVER} while they stay so",
        True,
        "slurm.partition",
    ),
    "PartitionDown": Reason(
        f"the partition is down: {_NEVER} until an admin brings it up", True, "slurm.partition"
    ),
    "PartitionInactive": Reason(
        f"the partition is inactive: {_NEVER} until an admin activates it",
        True,
        "slurm.partition",
    ),
    "AssocMaxJobsLimit": Reason(
        "the account's association allows no more jobs (MaxJobs): it does not start while "
        "that limit holds; with a limit of 0 it never starts",
        True,
        "slurm.account",
    ),
    "AssocMaxWallDurationPerJobLimit": Reason(
        f"the time limit is over the account's MaxWall: {_NEVER}", True, "slurm.time"
    ),
    "QOSMaxWallDurationPerJobLimit": Reason(
        f"the time limit is over the QOS's MaxWall: {_NEVER}", True, "slurm.time"
    ),
    "AssocMaxNodePerJobLimit": Reason(
        f"the node count is over the account's MaxNodes: {_NEVER}", True, "slurm.nodes"
    ),
    "QOSMaxNodePerJobLimit": Reason(
        f"the node count is over the QOS's MaxNodes: {_NEVER}", True, "slurm.nodes"
    ),
    "QOSMaxGRESPerJob": Reason(
        f"the GPUs asked for are over the QOS's limit: {_NEVER}", True, "slurm.gpus_per_node"
    ),
    "InvalidAccount": Reason(f"the account is not valid: {_NEVER}", True, "slurm.account"),
    "InvalidQOS": Reason(f"the QOS is not valid: {_NEVER}", True, "slurm.account"),
    "BadConstraints": Reason(
        f"no node satisfies what it asks for: {_NEVER}", True, "slurm.gpus_per_node"
    ),
    "DependencyNeverSatisfied": Reason(f"a dependency failed: {_NEVER}", True),
    "Resources": Reason("waiting for nodes to become free; it starts when they are"),
    "Priority": Reason("other jobs come first; it starts after them"),
    "None": Reason("just submitted: the scheduler has not looked at it yet"),
    "BeginTime": Reason("held until its begin time (a requeued job waits about 2 minutes)"),
    "Dependency": Reason("waiting for the jobs it depends on"),
    "JobHeldUser": Reason("held by its user: `scontrol release JOBID` lets it start"),
    "JobHeldAdmin": Reason("held by an administrator: ask them to release it"),
    "NodeDown": Reason("a node it needs is down; it starts when the node is back"),
    "Reservation": Reason("waiting for its reservation to start"),
    "launch failed requeued held": Reason(
        "the launch failed and Slurm held it: look at the nodes, then `scontrol release JOBID`"
    ),
}


def explain(reason: str) -> Reason | None:
    """The explanation of a Slurm pending reason (``ReqNodeNotAvail, UnavailableNodes:...``
    is ReqNodeNotAvail); None for a reason we have no words for."""
    if not reason:
        return None
    return PENDING_REASONS.get(reason.split(",")[0].strip())
