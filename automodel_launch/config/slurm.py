"""The ``slurm:`` launcher section and its cross-field rules."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, field_validator

from automodel_launch.config import slurm_signal, slurm_time
from automodel_launch.config.mounts import Mount, MountField, mountable
from automodel_launch.config.names import JobDirText, JobName, SlurmWord
from automodel_launch.config.slurm_signal import SlurmSignal, SlurmSignalText
from automodel_launch.config.types import (
    EnvVars,
    Port,
    SecretReference,
    SlurmTimeText,
    StrictSection,
    fail,
)

DEFAULT_CONTAINER = "nvcr.io/nvidia/nemo:dev"


class SlurmConfig(StrictSection):
    """Submit the recipe as a Slurm batch job (one torchrun agent per node)."""

    model_config = StrictSection.model_config | {
        "title": "Slurm launcher",
        "json_schema_extra": {
            "defaultSnippets": [
                {
                    "label": "slurm: multi-node job",
                    "bodyText": "\n".join(
                        [
                            "job_name: ${1:llm_finetune}",
                            "nodes: ${2:2}",
                            "ntasks_per_node: ${3:8}",
                            'time: "${4:04:00:00}"',
                            "account: ${5:my_account}",
                            "partition: ${6:batch}",
                            "container_image: ${7:nvcr.io/nvidia/nemo:dev}",
                            "master_port: ${8:13742}",
                        ]
                    ),
                },
                {
                    "label": "slurm: requeue before the time limit",
                    "bodyText": "\n".join(
                        [
                            'time: "${1:04:00:00}"',
                            'signal: "${2:USR1@900}"',
                            "requeue: true",
                            "max_requeues: ${3:3}",
                        ]
                    ),
                },
            ]
        },
    }

    references_resolved: ClassVar[str] = "the job starts"
    """When its ``${VAR}`` references are resolved (the env-unset hint names it)."""

    job_name: JobName | None = Field(
        default=None,
        description="Slurm job name (`#SBATCH --job-name`). Default: `{domain}_{command}`, "
        "e.g. `llm_finetune`. No whitespace or shell characters.",
        examples=["llm_finetune"],
    )
    nodes: int = Field(default=1, ge=1, description="Number of nodes to allocate.")
    ntasks_per_node: int = Field(
        default=8,
        ge=1,
        description="Ranks (GPUs) per node. Rendered as torchrun `--nproc_per_node`; Slurm "
        "runs one torchrun agent per node. WORLD_SIZE = nodes * ntasks_per_node.",
    )
    gpus_per_node: int | None = Field(
        default=None,
        ge=0,
        description="GPUs to request per node (`#SBATCH --gpus-per-node`). Omitted when null. "
        "ntasks_per_node may not exceed it.",
    )
    time: SlurmTimeText = Field(
        default="04:00:00",
        description="Wall-clock limit (`#SBATCH --time`). Formats: M, M:S, H:M:S, D-H, D-H:M, "
        "D-H:M:S, UNLIMITED. Quote it: unquoted `1:00:00` is the integer 3600 to YAML 1.1. "
        'Note `"30:00"` is 30 minutes.',
        examples=["04:00:00", "2-00:00:00", "30"],
    )
    signal: SlurmSignalText | None = Field(
        default=None,
        description="Signal Slurm sends the job script before the time limit "
        "(`#SBATCH --signal=B:SIG@SECONDS`): `USR1` or `USR2`, seconds 0..65535 (60 without "
        "`@`), e.g. `USR1@300`; `R:` also signals before a reservation ends (Slurm 23.02+). "
        "With `requeue: true` the script then requeues the job; without it the signal is "
        "only logged. A restarted run that gets the signal early acts at the usual time.",
        examples=["USR1@300"],
    )
    requeue: bool = Field(
        default=False,
        description="At `signal`, send the ranks SIGTERM (AutoModel's preemption signal: it "
        "saves a checkpoint and stops), wait for them until shortly before the limit, then "
        "`scontrol requeue` the job, while SLURM_RESTART_COUNT is below max_requeues; the "
        "last allowed run keeps training to its time limit. Slurm holds a requeued job about "
        "two minutes (BeginTime) before it starts again; it resumes from the latest "
        "checkpoint when checkpoint.restore_from is null. Adds `--requeue` and "
        "`--open-mode=append` (once, also with fault_tolerance).",
    )
    max_requeues: int = Field(
        default=3,
        ge=0,
        description="How many times the job may be requeued (Slurm's SLURM_RESTART_COUNT, "
        "which counts every requeue of the job). Default 3, as submitit's: a few time "
        "limits' worth of training, and a job that hangs (so always runs into its limit) "
        "stops after four runs instead of looping. Raise it for long training.",
    )
    account: SlurmWord | None = Field(
        default=None, description="Account to charge (`#SBATCH --account`); omitted when null."
    )
    partition: SlurmWord | None = Field(
        default=None, description="Partition (`#SBATCH --partition`); omitted when null."
    )
    container_image: str | None = Field(
        default=DEFAULT_CONTAINER,
        pattern=r"^[^\s,]+$",
        description="Enroot/pyxis image (`[USER@][REGISTRY#]IMAGE[:TAG]`) or a `.sqsh` path. "
        "null runs on the nodes without a container.",
        examples=[DEFAULT_CONTAINER, "/shared/images/nemo.sqsh", None],
    )
    nemo_mount: MountField | None = Field(
        default=None,
        description="Mount of the NeMo AutoModel source inside the container.",
    )
    hf_home: str = Field(
        default="~/.cache/huggingface",
        min_length=1,
        description="Hugging Face cache (HF_HOME). Mounted into the container when absolute.",
    )
    extra_mounts: list[MountField] = Field(
        default_factory=list,
        description='Extra bind mounts: `{source, dest}`, `"/src:/dst[:flags]"` or '
        '`"/path"`. Absolute paths; sources must exist on every node.',
    )
    master_port: Port = Field(
        default=13742,
        description="Rendezvous port (MASTER_PORT), 1024..65535; a quoted number is the same "
        "port. Change it on port conflicts, or use `auto` to derive one from the job id.",
    )
    env_vars: EnvVars = Field(
        default_factory=dict,
        description="Environment for the job. Values are literal text except `${VAR}` "
        "references, which the job's shell resolves at run time (values never written).",
    )
    nsys_enabled: bool = Field(
        default=False,
        description="Wrap training in `nsys profile`; `.nsys-rep` reports go to the job "
        "directory. Diagnostic only: adds overhead and large files.",
    )
    job_dir: JobDirText | None = Field(
        default=None,
        description="Where job directories are created (default ./slurm_jobs). A plain path: "
        "`~/` is expanded, `${VAR}` is not.",
    )
    repo_root: str | None = Field(
        default=None, description="AutoModel checkout to run from (mounted at nemo_mount)."
    )
    hf_token: SecretReference | None = Field(
        default=None, description="Hugging Face token as a reference: `${HF_TOKEN}`."
    )
    wandb_key: SecretReference | None = Field(
        default=None, description="Weights & Biases key as a reference: `${WANDB_API_KEY}`."
    )

    @field_validator("container_image", mode="before")
    @classmethod
    def _image_reference(cls, value: Any) -> Any:
        if isinstance(value, str) and (not value or any(c.isspace() or c == "," for c in value)):
            fail(
                "invalid-container-image",
                f"'{value}' is not an image reference or a .sqsh path",
                "write [USER@][REGISTRY#]IMAGE[:TAG] (e.g. nvcr.io#nvidia/nemo:dev) or an "
                "absolute .sqsh path; null runs without a container",
            )
        return value

    @field_validator("hf_home")
    @classmethod
    def _hf_home_mountable(cls, value: str) -> str:
        return mountable(value) if value.startswith("/") else value

    @property
    def world_size(self) -> int:
        return self.nodes * self.ntasks_per_node

    @property
    def time_minutes(self) -> int | None:
        return slurm_time.parse(self.time).minutes

    @property
    def warning_signal(self) -> SlurmSignal | None:
        """The parsed ``signal`` (stored normalised, so it parses)."""
        return None if self.signal is None else slurm_signal.parse(self.signal)

    def mounts(self) -> list[Mount]:
        """Every container mount: hf_home (when absolute), nemo_mount, extra_mounts."""
        found: list[Mount] = []
        if self.hf_home.startswith("/"):
            found.append(Mount(source=self.hf_home, dest=self.hf_home))
        if self.nemo_mount is not None:
            found.append(self.nemo_mount)
        return found + list(self.extra_mounts)
