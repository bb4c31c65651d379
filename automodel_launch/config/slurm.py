"""The ``slurm:`` launcher section and its cross-field rules."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, field_validator

from automodel_launch.config import slurm_signal, slurm_time
from automodel_launch.config.mounts import Mount, MountField, mountable, same_path
from automodel_launch.config.names import JobDirText, JobName, SlurmWord
from automodel_launch.config.notify import NotifyConfig
from automodel_launch.config.sbatch import (
    ChdirPath,
    Constraint,
    Dependency,
    MailTypes,
    MailUser,
    MemorySize,
    SetupLines,
    ShellText,
)
from automodel_launch.config.sbatch_options import GPU_REQUESTS, SbatchArg, option_name
from automodel_launch.config.slurm_signal import SlurmSignal, SlurmSignalText
from automodel_launch.config.types import (
    PROFILE_NAME,
    CpusPerTask,
    EnvVars,
    GpusOrNone,
    Nodes,
    Port,
    RanksPerNode,
    Restarts,
    SecretReference,
    SlurmTimeText,
    StrictSection,
    fail,
)
from automodel_launch.layout import JOB_CONFIG

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
                {
                    "label": "slurm: GPU job with site options",
                    "bodyText": "\n".join(
                        [
                            "job_name: ${1:llm_finetune}",
                            "nodes: ${2:2}",
                            "ntasks_per_node: ${3:8}",
                            "gpus_per_node: ${4:8}",
                            'time: "${5:04:00:00}"',
                            "account: ${6:my_account}",
                            "partition: ${7:batch}",
                            "qos: ${8:normal}",
                            "constraint: ${9:h100}",
                            "mail_type: ${10|FAIL,END,ALL|}",
                            "mail_user: ${11:you@example.org}",
                            "setup:",
                            "  - ${12:module load cuda}",
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
    nodes: Nodes = Field(default=1, description="Number of nodes to allocate.")
    ntasks_per_node: RanksPerNode = Field(
        default=8,
        description="Ranks (GPUs) per node. Rendered as torchrun `--nproc_per_node`; Slurm "
        "runs one torchrun agent per node. WORLD_SIZE = nodes * ntasks_per_node.",
    )
    gpus_per_node: GpusOrNone | None = Field(
        default=None,
        description="GPUs to request per node (`#SBATCH --gpus-per-node=N`); ntasks_per_node may "
        "not exceed it. null (the default) asks for whole nodes instead (`#SBATCH --exclusive`, "
        "which gives the job every GPU of its nodes; the ranks are handed the node's GPUs) "
        "unless `exclusive: false`. 0 is a CPU job.",
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
    max_requeues: Restarts = Field(
        default=3,
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
    qos: SlurmWord | None = Field(
        default=None, description="Quality of service (`#SBATCH --qos`); omitted when null."
    )
    reservation: SlurmWord | None = Field(
        default=None, description="Reservation to run in (`#SBATCH --reservation`)."
    )
    constraint: Constraint | None = Field(
        default=None,
        description="Node features the job needs (`#SBATCH --constraint`), joined with `&` "
        "(and) or `|` (or), e.g. `a100&ib`.",
        examples=["a100", "h100&ib"],
    )
    exclusive: bool | None = Field(
        default=None,
        description="Whole nodes, shared with no other job (`#SBATCH --exclusive`). null: "
        "exclusive when gpus_per_node is null (whole nodes, all their GPUs), not otherwise.",
    )
    mem: MemorySize | None = Field(
        default=None,
        description="Memory per node (`#SBATCH --mem`): a number with an optional unit K, M, "
        "G, T (megabytes without one). `0` asks for all the memory of each node (an exclusive "
        "job gets only the memory it asks for).",
        examples=["64G", "0"],
    )
    cpus_per_task: CpusPerTask | None = Field(
        default=None,
        description="CPUs per Slurm task (`#SBATCH --cpus-per-task`). One Slurm task per node "
        "runs that node's torchrun agent, so this is the CPUs for all ranks of a node.",
    )
    mail_type: MailTypes | None = Field(
        default=None,
        description="When Slurm sends mail (`#SBATCH --mail-type`): one of NONE, BEGIN, END, "
        "FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, "
        "TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS, or a list of them.",
        examples=["FAIL", ["END", "FAIL"]],
    )
    mail_user: MailUser | None = Field(
        default=None,
        description="Who gets the mail (`#SBATCH --mail-user`); Slurm's default is the "
        "submitting user.",
        examples=["jane@example.org"],
    )
    notify: NotifyConfig | None = Field(
        default=None,
        description="Notifications the job sends itself, from its script's traps (nothing "
        "keeps running where it was submitted): `start`, `end`, `fail`, `requeue`, "
        "`time_limit_near`, to a webhook whose URL the job reads from the variable "
        "`webhook_env` names, or to a `command`. See docs/notifications.md.",
        examples=[{"events": ["start", "fail", "end"], "webhook_env": "NOTIFY_WEBHOOK_URL"}],
    )
    dependency: Dependency | None = Field(
        default=None,
        description="Start only after other jobs (`#SBATCH --dependency`): `afterok:123[:456]`, "
        "`afterany:ID`, `afternotok:ID`, `aftercorr:ID`, `after:ID[+minutes]`, `singleton`; "
        "join with `,` (all) or `?` (any).",
        examples=["afterok:123", "singleton"],
    )
    chdir: ChdirPath | None = Field(
        default=None,
        description="Working directory of the job (`#SBATCH --chdir`), an absolute path. "
        "Default: where sbatch runs (the job directory with `submit`). AutoModel's own key.",
    )
    setup: SetupLines = Field(
        default_factory=list,
        description="Shell text, or a list of lines, run before the ranks start (e.g. "
        "`module load cuda`, `source venv/bin/activate`). It runs once, in the batch shell on "
        "the first node, outside the container; the environment it sets reaches every rank "
        "(srun --export=ALL). A failing line ends the job.",
        examples=[["module load cuda/12.4", "source ~/venv/bin/activate"]],
    )
    command: ShellText = Field(
        default=None,
        description="Shell text each node runs instead of the generated torchrun command "
        "(inside the container when there is one). MASTER_ADDR, MASTER_PORT, WORLD_SIZE and "
        f"JOB_DIR stay exported; the recipe is `$JOB_DIR/{JOB_CONFIG}`. AutoModel's own key.",
    )
    sbatch_args: list[SbatchArg] = Field(
        default_factory=list,
        description="Other sbatch options, one `--option[=value]` each (an `#SBATCH` line "
        "each), e.g. `--gres=gpu:8`, `--comment=sweep1`. Options a field sets, and options "
        "that would break the job (`--output`, `--wrap`, `--array`...), are refused.",
        examples=[["--gres=gpu:8", "--comment=sweep1"]],
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
        description="Hugging Face cache (HF_HOME). With a container it is mounted at the same "
        "path: an absolute path as written, a `~/` path under the job user's home (created "
        "first), so the cache outlives the job.",
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
        default=None,
        min_length=1,
        description="AutoModel checkout to run from: put first on PYTHONPATH (ahead of "
        "env_vars.PYTHONPATH) and, with a container, mounted at the same path. Absolute with a "
        "container.",
    )
    profile: str | None = Field(
        default=None,
        description="Site or user profile whose values this section extends (see "
        "`automodel-launch config show`): the section's own keys win over the profile's.",
        pattern=PROFILE_NAME,
        examples=["eos"],
    )
    hf_token: SecretReference | None = Field(
        default=None, description="Hugging Face token as a reference: `${HF_TOKEN}`."
    )
    wandb_key: SecretReference | None = Field(
        default=None, description="Weights & Biases key as a reference: `${WANDB_API_KEY}`."
    )
    script: str | None = Field(
        default=None,
        min_length=1,
        description="Your own sbatch script (AutoModel's `slurm.sub` form), which AutoModel "
        "submits as it is. automodel-launch renders its own script from the other fields: "
        "`render` and `submit` refuse a section with `script`.",
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
        return mountable(value) if same_path(value) else value

    @field_validator("repo_root")
    @classmethod
    def _repo_root_mountable(cls, value: str | None) -> str | None:
        return mountable(value) if value is not None and same_path(value) else value

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

    @property
    def gpus_requested_by_args(self) -> bool:
        """sbatch_args ask for GPUs themselves (``--gres=gpu:8``, ``--gpus=16``...)."""
        names = [(option_name(a), a.partition("=")[2]) for a in self.sbatch_args]
        return any(n in GPU_REQUESTS or (n == "gres" and "gpu" in v) for n, v in names)

    @property
    def whole_nodes(self) -> bool:
        """Render ``--exclusive``: as set, else when no GPU count is asked for (null
        gpus_per_node means "ranks per node", AutoModel's style): a whole node, all its GPUs."""
        if self.exclusive is not None:
            return self.exclusive
        return self.gpus_per_node is None and not self.gpus_requested_by_args

    def named_mounts(self) -> list[tuple[str | int, Mount]]:
        """Every container mount with where it comes from (a field, or an extra_mounts index):
        hf_home and repo_root at their own path (``~`` is the job user's home), nemo_mount,
        extra_mounts."""
        found: list[tuple[str | int, Mount]] = []
        for name in ("hf_home", "repo_root"):
            path = same_path(getattr(self, name))
            if path is not None and not (name == "repo_root" and self._mounted(path)):
                found.append((name, Mount.model_construct(source=path, dest=path, flags=None)))
        if self.nemo_mount is not None:
            found.append(("nemo_mount", self.nemo_mount))
        return found + list(enumerate(self.extra_mounts))

    def _mounted(self, path: str) -> bool:
        """Whether ``path`` is inside the container already, through nemo_mount or an extra
        mount (``repo_root: /opt/Automodel`` next to ``nemo_mount: /src:/opt/Automodel``)."""
        others = [*self.extra_mounts, *([self.nemo_mount] if self.nemo_mount else [])]
        return any(path == m.dest or path.startswith(m.dest.rstrip("/") + "/") for m in others)

    def mounts(self) -> list[Mount]:
        return [mount for _, mount in self.named_mounts()]
