"""``nemo_run:``: AutoModel's NeMo-Run launcher, every field of every release.

AutoModel has defined it twice: first with ``num_nodes``/``num_gpus_per_node``,
``account``/``partition`` and ``executor_kwargs`` and the executors ``local``,
``slurm`` and ``k8s``; later with ``nodes``/``devices``, ``mounts``, ``env_vars``,
``job_name``, ``detach``, ``tail_logs``, ``job_dir`` and an ``executor`` that names an
entry of ``EXECUTOR_MAP`` in ``executors_file``. Both forms are accepted.
automodel-launch validates the section; AutoModel (with nemo-run) launches it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field

from automodel_launch.config.types import (
    EnvVars,
    GpusPerNode,
    Nodes,
    SlurmTimeText,
    StrictSection,
    fail,
    show,
)

BUILT_IN_EXECUTORS = ("local", "slurm", "k8s")
_EXECUTOR = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _executor(value: Any) -> str:
    if not isinstance(value, str) or not _EXECUTOR.fullmatch(value):
        fail(
            "invalid-executor",
            f"{show(value)} is not an executor name",
            "use local, slurm, k8s, or a key of EXECUTOR_MAP in your executors file",
        )
    return value


class NemoRunConfig(StrictSection):
    """NeMo-Run executors, launched by AutoModel (`automodel FILE`, with nemo-run installed)."""

    model_config = StrictSection.model_config | {"title": "nemo_run"}
    references_resolved: ClassVar[str] = "AutoModel builds the executor"

    executor: Annotated[str, BeforeValidator(_executor)] = Field(
        default="local",
        description="`local`, `slurm`, `k8s`, or the name of an executor in EXECUTOR_MAP of "
        "`executors_file` (newer AutoModel).",
    )
    nodes: Nodes | None = Field(default=None, description="Nodes (newer AutoModel).")
    devices: GpusPerNode | None = Field(
        default=None, description="GPUs per node (newer AutoModel)."
    )
    num_nodes: Nodes = Field(default=1, description="Nodes (older AutoModel).")
    num_gpus_per_node: GpusPerNode = Field(
        default=8, description="GPUs per node (older AutoModel)."
    )
    container_image: str | None = Field(default=None, description="Container image of the job.")
    account: str = Field(default="", description="Slurm account (older AutoModel, slurm executor).")
    partition: str = Field(default="", description="Slurm partition (older AutoModel).")
    time: SlurmTimeText | None = Field(
        default=None, description='Wall-clock limit, Slurm format such as "01:00:00".'
    )
    executor_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Passed to the NeMo-Run executor's constructor (older AutoModel).",
    )
    mounts: list[str] = Field(
        default_factory=list, description="Container mounts added to the executor's own."
    )
    env_vars: EnvVars = Field(
        default_factory=dict, description="Environment merged into the executor's."
    )
    job_name: str = Field(default="", description="Experiment and task name.")
    detach: bool = Field(default=True, description="Return once the job is submitted.")
    tail_logs: bool = Field(default=False, description="Stream the job's logs.")
    executors_file: str | None = Field(
        default=None,
        description="Python file with EXECUTOR_MAP (default $NEMORUN_HOME/executors.py).",
    )
    job_dir: str = Field(default="", description="Local directory for job artifacts.")
