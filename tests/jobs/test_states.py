"""One vocabulary of states; every state the 0.14 SDK and Slurm name is mapped."""

from __future__ import annotations

import pytest

from automodel_launch.jobs.states import (
    SKYPILOT_CLUSTER,
    SKYPILOT_MANAGED,
    SLURM,
    STATES,
    explain,
    state_of,
)


def test_every_table_maps_into_the_vocabulary() -> None:
    for table in (SLURM, SKYPILOT_MANAGED, SKYPILOT_CLUSTER):
        assert set(table.values()) <= set(STATES)


def test_every_skypilot_status_of_the_installed_sdk_is_mapped() -> None:
    sky_state = pytest.importorskip("sky.jobs.state")
    job_lib = pytest.importorskip("sky.skylet.job_lib")
    assert {s.value for s in sky_state.ManagedJobStatus} == set(SKYPILOT_MANAGED)
    assert {s.value for s in job_lib.JobStatus} == set(SKYPILOT_CLUSTER)


@pytest.mark.parametrize(
    ("scheduler", "ours"),
    [("PENDING", "PENDING"), ("RUNNING", "RUNNING"), ("COMPLETING", "RUNNING"),
     ("COMPLETED", "COMPLETED"), ("FAILED", "FAILED"), ("NODE_FAIL", "FAILED"),
     ("OUT_OF_MEMORY", "FAILED"), ("CANCELLED", "CANCELLED"), ("TIMEOUT", "TIMEOUT"),
     ("DEADLINE", "TIMEOUT"), ("PREEMPTED", "PREEMPTED"), ("REQUEUED", "REQUEUED"),
     ("REQUEUE_HOLD", "REQUEUED"), ("cancelled", "CANCELLED"), ("SOMETHING_NEW", "UNKNOWN")],
)  # fmt: skip
def test_slurm_states(scheduler: str, ours: str) -> None:
    assert state_of(SLURM, scheduler) == ours


def test_managed_job_recovery_is_a_requeue_and_success_completes() -> None:
    assert state_of(SKYPILOT_MANAGED, "RECOVERING") == "REQUEUED"
    assert state_of(SKYPILOT_MANAGED, "SUCCEEDED") == "COMPLETED"
    assert state_of(SKYPILOT_MANAGED, "FAILED_NO_RESOURCE") == "FAILED"
    assert state_of(SKYPILOT_CLUSTER, "SETTING_UP") == "RUNNING"


@pytest.mark.parametrize(
    ("reason", "field"),
    [("PartitionTimeLimit", "slurm.time"), ("PartitionNodeLimit", "slurm.nodes"),
     ("ReqNodeNotAvail, UnavailableNodes:node2", "slurm.partition"),
     ("AssocMaxJobsLimit", "slurm.account"), ("PartitionDown", "slurm.partition"),
     ("QOSMaxWallDurationPerJobLimit", "slurm.time")],
)  # fmt: skip
def test_reasons_that_never_start_name_the_field_to_fix(reason: str, field: str) -> None:
    explained = explain(reason)
    assert explained is not None
    assert explained.never_starts
    assert explained.field == field


def test_reasons_that_wait_say_so_and_unknown_ones_are_left_alone() -> None:
    resources = explain("Resources")
    assert resources is not None and not resources.never_starts
    assert resources.text == "waiting for nodes to become free; it starts when they are"
    assert explain("SomethingSlurmAddsLater") is None
    assert explain("") is None
    partition = explain("PartitionTimeLimit")
    assert partition is not None
    assert partition.text == (
        "the time limit is over the partition's MaxTime: it will never start as submitted"
    )


SLURM_STATES = {
    "PENDING": "PENDING", "CONFIGURING": "PENDING", "SUSPENDED": "PENDING",
    "STOPPED": "PENDING", "RUNNING": "RUNNING", "COMPLETING": "RUNNING", "RESIZING": "RUNNING",
    "SIGNALING": "RUNNING", "STAGE_OUT": "RUNNING", "COMPLETED": "COMPLETED",
    "FAILED": "FAILED", "NODE_FAIL": "FAILED", "BOOT_FAIL": "FAILED",
    "OUT_OF_MEMORY": "FAILED", "SPECIAL_EXIT": "FAILED", "CANCELLED": "CANCELLED",
    "REVOKED": "CANCELLED", "TIMEOUT": "TIMEOUT", "DEADLINE": "TIMEOUT",
    "PREEMPTED": "PREEMPTED", "REQUEUED": "REQUEUED", "REQUEUE_HOLD": "REQUEUED",
    "REQUEUE_FED": "REQUEUED",
}  # fmt: skip
"""Every job state of Slurm 22.05's squeue(1) JOB STATE CODES, and ours for it."""


@pytest.mark.parametrize(("scheduler", "ours"), sorted(SLURM_STATES.items()))
def test_every_slurm_state_is_mapped(scheduler: str, ours: str) -> None:
    assert state_of(SLURM, scheduler) == ours
    assert state_of(SLURM, scheduler.lower()) == ours


def test_the_vocabulary_is_the_state_type() -> None:
    from typing import get_args

    from automodel_launch.jobs.states import State

    assert get_args(State) == STATES


@pytest.mark.parametrize(
    ("state", "finished"),
    [("PENDING", False), ("RUNNING", False), ("COMPLETED", True), ("FAILED", True),
     ("CANCELLED", True), ("TIMEOUT", True), ("PREEMPTED", False), ("REQUEUED", False),
     ("UNKNOWN", False)],
)  # fmt: skip
def test_the_states_a_job_does_not_leave(state: str, finished: bool) -> None:
    """follow and cancel wait for these: a state missing here is waited on forever."""
    from automodel_launch.jobs.states import FINISHED

    assert (state in FINISHED) is finished


REASONS = [
    ("PartitionTimeLimit", True, "slurm.time"), ("PartitionNodeLimit", True, "slurm.nodes"),
    ("ReqNodeNotAvail", True, "slurm.partition"), ("PartitionDown", True, "slurm.partition"),
    ("PartitionInactive", True, "slurm.partition"), ("AssocMaxJobsLimit", True, "slurm.account"),
    ("AssocMaxWallDurationPerJobLimit", True, "slurm.time"),
    ("QOSMaxWallDurationPerJobLimit", True, "slurm.time"),
    ("AssocMaxNodePerJobLimit", True, "slurm.nodes"),
    ("QOSMaxNodePerJobLimit", True, "slurm.nodes"),
    ("QOSMaxGRESPerJob", True, "slurm.gpus_per_node"), ("InvalidAccount", True, "slurm.account"),
    ("InvalidQOS", True, "slurm.account"), ("BadConstraints", True, "slurm.gpus_per_node"),
    ("DependencyNeverSatisfied", True, None), ("Resources", False, None),
    ("Priority", False, None), ("None", False, None), ("BeginTime", False, None),
    ("Dependency", False, None), ("JobHeldUser", False, None), ("JobHeldAdmin", False, None),
    ("NodeDown", False, None), ("Reservation", False, None),
    ("launch failed requeued held", False, None),
]  # fmt: skip
"""Every pending reason explained: whether the job never starts, and the field to change."""


@pytest.mark.parametrize(("reason", "never_starts", "field"), REASONS)
def test_every_explained_reason(reason: str, never_starts: bool, field: str | None) -> None:
    explained = explain(reason)
    assert explained is not None
    assert (explained.never_starts, explained.field) == (never_starts, field)
    assert ("it will never start as submitted" in explained.text) is (
        never_starts and reason != "AssocMaxJobsLimit"
    )
    assert explain(f"{reason}, UnavailableNodes:node[1-2]") == explained


SKYPILOT_STATES = [
    *(("managed", name, ours) for name, ours in {
        "PENDING": "PENDING", "SUBMITTED": "PENDING", "STARTING": "PENDING",
        "RUNNING": "RUNNING", "WINDING_DOWN": "RUNNING", "RECOVERING": "REQUEUED",
        "CANCELLING": "RUNNING", "SUCCEEDED": "COMPLETED", "CANCELLED": "CANCELLED",
        "FAILED": "FAILED", "FAILED_SETUP": "FAILED", "FAILED_PRECHECKS": "FAILED",
        "FAILED_NO_RESOURCE": "FAILED", "FAILED_CONTROLLER": "FAILED"}.items()),
    *(("cluster", name, ours) for name, ours in {
        "INIT": "PENDING", "PENDING": "PENDING", "SETTING_UP": "RUNNING", "RUNNING": "RUNNING",
        "SUCCEEDED": "COMPLETED", "FAILED": "FAILED", "FAILED_SETUP": "FAILED",
        "FAILED_DRIVER": "FAILED", "CANCELLED": "CANCELLED"}.items()),
]  # fmt: skip
"""Every status of SkyPilot 0.14 (managed jobs, jobs on a cluster) and ours for it: checked
without the SDK too (the test above checks the names against the installed one)."""


@pytest.mark.parametrize(("kind", "theirs", "ours"), SKYPILOT_STATES)
def test_every_skypilot_status_is_mapped(kind: str, theirs: str, ours: str) -> None:
    table = SKYPILOT_MANAGED if kind == "managed" else SKYPILOT_CLUSTER
    assert state_of(table, theirs) == ours
