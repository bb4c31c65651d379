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
