"""``nemo_run:``: AutoModel's NeMo-Run launcher, as released.

AutoModel 0.4.0 and later (``nemo_automodel/components/launcher/nemo_run``) read seven
keys of their own (:data:`OWN_KEYS`) and set every other key on the NeMo-Run executor
with ``setattr``: ``executor: local`` builds a ``LocalExecutor``, any other name is
taken from ``EXECUTOR_MAP`` in ``executors_file`` (usually a ``SlurmExecutor``). So the
section's other keys are the executor's dataclass fields, read from NeMo-Run's released
sources into ``nemo_run_fields.json`` (``tools/nemo_run_fields.py``). A key no executor
has is set anyway by 0.4.0 to 0.6.0 and AutoModel's main branch, where nothing reads it,
and refused with a ValueError by 0.7.0 (its ``apply_overrides`` checks ``hasattr``). Releases
before 0.4.0 have no NeMo-Run launcher: ``automodel`` never reads the section.

The fields of a development version of AutoModel (``num_nodes``, ``devices``,
``mounts``, ``executor_kwargs``, ...) were never released: they are keys no executor
has, with the released spelling as the fix.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from automodel_launch.automodel.versions import at_least
from automodel_launch.config.types import (
    EnvVars,
    GpusPerNode,
    Nodes,
    RanksPerNode,
    SlurmTimeText,
    fail,
    show,
)

FIRST_RELEASE = "0.4.0"
"""The first AutoModel release with a NeMo-Run launcher."""
REFUSING_RELEASES = frozenset({"0.7.0"})
"""Releases whose ``apply_overrides`` raises ValueError on a key the executor lacks (the
others, main included, set it anyway: nothing reads it)."""
OWN_KEYS = ("executor", "job_name", "detach", "tail_logs", "executors_file", "job_dir", "overrides")
"""The keys AutoModel's ``NemoRunConfig.from_dict`` keeps; every other one goes to the
executor."""
LOCAL = "local"
REPLACED = {
    "launcher": "AutoModel sets it to torchrun",
    "packager": "AutoModel ships the job's config with a PatternPackager of its own",
    "experiment_id": "NeMo-Run assigns it when the experiment runs",
    "experiment_dir": "NeMo-Run assigns it when the experiment runs",
}
"""Executor fields set after the section's keys are applied: a value here never counts."""
UNRELEASED = {
    "devices": "GPUs per node are the executor's ntasks_per_node (LocalExecutor; with "
    "SlurmExecutor, gpus_per_node or ntasks_per_node): AutoModel starts "
    "executor.nproc_per_node() ranks per node",
    "num_gpus_per_node": "GPUs per node are the executor's ntasks_per_node (LocalExecutor; "
    "with SlurmExecutor, gpus_per_node or ntasks_per_node)",
    "num_nodes": "the executor's field is nodes",
    "mounts": "SlurmExecutor's field is container_mounts (added to the executor's own)",
    "executor_kwargs": "write the executor's fields directly under nemo_run: (AutoModel sets "
    "each one on the executor)",
}
"""Keys of AutoModel's unreleased nemo_run forms, and the released way to say them."""
_EXECUTOR = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def launches_nemo_run(version: str) -> bool:
    return at_least(version, FIRST_RELEASE)


@cache
def executor_fields() -> dict[str, frozenset[str]]:
    """Each executor class's fields in any nemo-run release (fields are only ever added)."""
    import json  # only a nemo_run: section asks; the package's own file, read directly

    data = json.loads((Path(__file__).parent / "nemo_run_fields.json").read_text("utf-8"))
    found: dict[str, set[str]] = {name: set() for name in data["classes"]}
    for release in data["releases"].values():
        for name in found:
            found[name].update(release[name].split())
    return {name: frozenset(fields) for name, fields in found.items()}


def _executor(value: Any) -> str:
    if not isinstance(value, str) or not _EXECUTOR.fullmatch(value):
        fail(
            "invalid-executor",
            f"{show(value)} is not an executor name",
            "use local, or a key of EXECUTOR_MAP in your executors file",
        )
    return value


class NemoRunConfig(BaseModel):
    """NeMo-Run executors, launched by AutoModel (`automodel FILE`, with nemo-run installed)."""

    model_config = ConfigDict(
        extra="allow", strict=True, validate_default=False, defer_build=True, title="nemo_run"
    )
    references_resolved: ClassVar[str] = "AutoModel builds the executor"
    other_keys: ClassVar[str] = (
        "Other keys are set on the NeMo-Run executor: a key that no executor has is a warning "
        "(an error where the AutoModel release refuses it)."
    )

    executor: Annotated[str, BeforeValidator(_executor)] = Field(
        default=LOCAL,
        description="`local` (NeMo-Run's LocalExecutor), or the name of an executor in "
        "EXECUTOR_MAP of `executors_file`.",
    )
    job_name: str = Field(default="", description="Experiment and task name.")
    detach: bool = Field(default=True, description="Return once the job is submitted.")
    tail_logs: bool = Field(default=False, description="Stream the job's logs.")
    executors_file: str | None = Field(
        default=None,
        description="Python file with EXECUTOR_MAP (default $NEMORUN_HOME/executors.py).",
    )
    job_dir: str = Field(default="", description="Local directory for job artifacts.")
    overrides: dict[str, Any] = Field(
        default_factory=dict,
        description="Executor fields, as the section's other keys (merged with them).",
    )
    nodes: Nodes | None = Field(default=None, description="Executor field: nodes.")
    ntasks_per_node: RanksPerNode | None = Field(
        default=None,
        description="Executor field: ranks per node (LocalExecutor: the GPUs torchrun uses).",
    )
    gpus_per_node: GpusPerNode | None = Field(
        default=None, description="SlurmExecutor field: GPUs per node."
    )
    time: SlurmTimeText | None = Field(
        default=None, description='SlurmExecutor field: wall-clock limit, such as "01:00:00".'
    )
    account: str | None = Field(default=None, description="SlurmExecutor field: Slurm account.")
    partition: str | None = Field(default=None, description="SlurmExecutor field: Slurm partition.")
    container_image: str | None = Field(
        default=None, description="SlurmExecutor field: container image of the job."
    )
    container_mounts: list[str] = Field(
        default_factory=list,
        description="SlurmExecutor field: container mounts, added to the executor's own.",
    )
    env_vars: EnvVars = Field(
        default_factory=dict, description="Executor field: environment, merged into the executor's."
    )
