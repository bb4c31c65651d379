"""The ``skypilot:`` launcher section and its cross-field rules."""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, field_validator

from automodel_launch.config.names import JobDirText
from automodel_launch.config.sky_storage import FileMounts
from automodel_launch.config.types import (
    MAX_DISK_GB,
    MAX_IDLE_MINUTES,
    MAX_PER_NODE,
    PROFILE_NAME,
    EnvVars,
    GpusPerNode,
    Nodes,
    Restarts,
    SecretReference,
    StrictSection,
    at_most,
    fail,
    number_text,
)
from automodel_launch.diagnostics import Collector

Cloud = Literal["aws", "gcp", "azure", "lambda", "kubernetes"]
CLOUDS: tuple[str, ...] = ("aws", "gcp", "azure", "lambda", "kubernetes")
KNOWN_ACCELERATORS = (
    "A10", "A10G", "A100", "A100-80GB", "A40", "B100", "B200", "GB200", "H100", "H100-MEGA",
    "H100-80GB", "H200", "K80", "L4", "L40", "L40S", "M60", "P100", "P4", "RTX6000", "RTXPRO6000",
    "T4", "V100", "V100-32GB", "MI300X", "MI250X", "TPU-V4", "TPU-V5E", "TPU-V5P",
)  # fmt: skip
_ACCELERATOR = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)(?::(?P<count>[^:]*))?$")
_ACCELERATOR_TEXT = r"^[A-Za-z0-9][A-Za-z0-9_.-]*(:([1-9][0-9]{0,2}|10[01][0-9]|102[0-4]))?$"
"""NAME:COUNT with COUNT 1..1024 (MAX_PER_NODE), for editors."""
_CLUSTER_NAME = re.compile(r"^[a-zA-Z]([-_.a-zA-Z0-9]*[a-zA-Z0-9])?$")
_REGION = {
    "aws": re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$"),
    "gcp": re.compile(r"^[a-z]+-[a-z]+\d+$"),
    "azure": re.compile(r"^[a-z]+[a-z0-9]*$"),
}


def _any_case(words: tuple[str, ...]) -> str:
    """A regex matching the words in any case (JSON Schema patterns have no flags)."""
    spelled = ("".join(f"[{c.lower()}{c.upper()}]" for c in word) for word in words)
    return "^(" + "|".join(spelled) + ")$"


def _cloud(value: Any) -> Any:
    if isinstance(value, str) and value.lower() in CLOUDS:
        return value.lower()
    if isinstance(value, str):
        close = difflib.get_close_matches(value.lower(), CLOUDS, n=1)
        fail(
            "invalid-choice",
            f"cloud '{value}' is not one of {', '.join(CLOUDS)}",
            f"did you mean '{close[0]}'?" if close else f"use one of {', '.join(CLOUDS)}",
        )
    return value


def _accelerators(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    match = _ACCELERATOR.fullmatch(value)
    count = match["count"] if match else None
    if match is None or (count is not None and not _is_count(count)):
        fail(
            "invalid-accelerators",
            f"accelerators '{value}' is not NAME:COUNT",
            'e.g. "H100:8" or "A100-80GB:4" (COUNT is a whole number >= 1)',
        )
    number = int(count) if count else 1
    if number > MAX_PER_NODE:
        fail(
            "invalid-accelerators",
            f"accelerators '{value}' asks for {number_text(number)} per node, more than "
            f"{MAX_PER_NODE}: no node has that many",
            'COUNT is per node, e.g. "H100:8"; num_nodes multiplies it',
        )
    return f"{match['name']}:{number}"


def _is_count(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes '²' and other scripts' digits."""
    return text.isascii() and text.isdecimal() and int(text) >= 1


DiskSize = Annotated[
    int,
    Field(ge=1, le=MAX_DISK_GB),
    at_most(MAX_DISK_GB, "no cloud has a disk that large", "disk_size is in GB, e.g. 200"),
]
IdleMinutes = Annotated[
    int,
    Field(ge=0, le=MAX_IDLE_MINUTES),
    at_most(MAX_IDLE_MINUTES, "more idle minutes than a year has", "no timer: autostop: null"),
]


class JobRecovery(StrictSection):
    """How a managed (spot) job recovers from preemption."""

    strategy: Literal["EAGER_NEXT_REGION", "FAILOVER"] = Field(
        default="EAGER_NEXT_REGION", description="SkyPilot recovery strategy."
    )
    max_restarts_on_errors: Restarts = Field(
        default=0, description="Restarts on user-code failure (not preemption)."
    )


class SkyPilotConfig(StrictSection):
    """Launch the recipe on any cloud or Kubernetes through SkyPilot."""

    model_config = StrictSection.model_config | {
        "title": "SkyPilot launcher",
        "json_schema_extra": {
            "defaultSnippets": [
                {
                    "label": "skypilot: spot job",
                    "bodyText": "\n".join(
                        [
                            "cloud: ${1|aws,gcp,azure,lambda,kubernetes|}",
                            'accelerators: "${2:H100:8}"',
                            "num_nodes: ${3:1}",
                            "use_spot: ${4|false,true|}",
                            "disk_size: ${5:200}",
                        ]
                    ),
                }
            ]
        },
    }

    references_resolved: ClassVar[str] = "you submit"
    """When its ``${VAR}`` references are resolved (the env-unset hint names it)."""

    cloud: Annotated[
        Cloud,
        BeforeValidator(_cloud),
        WithJsonSchema(
            {
                "anyOf": [
                    {"enum": list(CLOUDS)},
                    {"type": "string", "pattern": _any_case(CLOUDS)},
                ],
                "errorMessage": "one of aws, gcp, azure, lambda, kubernetes",
            }
        ),
    ] = Field(
        description="Target cloud (case-insensitive): aws, gcp, azure, lambda or kubernetes.",
    )
    accelerators: (
        Annotated[
            str,
            BeforeValidator(_accelerators),
            WithJsonSchema(
                {
                    "type": "string",
                    "pattern": _ACCELERATOR_TEXT,
                    "patternErrorMessage": 'NAME:COUNT, e.g. "H100:8"',
                }
            ),
        ]
        | None
    ) = Field(
        default=None,
        description="GPU type and count per node, `NAME:COUNT` (e.g. `H100:8`, `A100-80GB:4`).",
        examples=["H100:8", "A100-80GB:4"],
    )
    num_nodes: Nodes = Field(default=1, description="Number of instances (nodes).")
    use_spot: bool = Field(
        default=False,
        description="Spot/preemptible instances. Requires checkpoints "
        "(step_scheduler.ckpt_every_steps) and a restore setting; launched as a managed job so "
        "preemption is recovered.",
    )
    disk_size: DiskSize | None = Field(default=None, description="Disk size per node in GB.")
    region: str | None = Field(default=None, description="Cloud region, e.g. us-east-1.")
    zone: str | None = Field(default=None, description="Zone inside the region.")
    instance_type: str | None = Field(default=None, description="Instance type, e.g. p5.48xlarge.")
    setup: str | None = Field(
        default=None,
        description="Shell commands run on each node before the job, e.g. `pip install "
        "nemo-automodel==0.7.0`: without it (or an image_id that has AutoModel) the nodes "
        "cannot import nemo_automodel.",
    )
    image_id: str | None = Field(
        default=None,
        description="The nodes' image, e.g. `docker:nvcr.io/nvidia/nemo-automodel:TAG` (an "
        "image with AutoModel needs no setup).",
    )
    file_mounts: FileMounts = Field(
        default_factory=dict,
        description="Paths on each node and what they hold: a bucket mounted with "
        "`{source: s3://BUCKET/path, mode: MOUNT}` keeps what the job writes there (point "
        "checkpoint.checkpoint_dir at it); a local path or bucket URL as text is copied onto "
        "each node's disk, which the cluster's teardown deletes.",
        json_schema_extra={"propertyNames": {"title": "node path", "minLength": 1}},
    )
    env_vars: EnvVars = Field(
        default_factory=dict,
        description="Environment for the task; `${VAR}` references are resolved when you submit. "
        "Token-like values travel as SkyPilot secrets.",
    )
    job_name: str | None = Field(
        default=None,
        description="Job and cluster name: letters, digits, '-', '_', '.', starting with a letter.",
        json_schema_extra={
            "pattern": _CLUSTER_NAME.pattern,
            "patternErrorMessage": "start with a letter; letters, digits, '-', '_', '.'",
        },
    )
    hf_home: str | None = Field(default=None, description="Hugging Face cache on the nodes.")
    hf_token: SecretReference | None = Field(
        default=None, description="Hugging Face token as a reference: `${HF_TOKEN}`."
    )
    wandb_key: SecretReference | None = Field(
        default=None, description="Weights & Biases key as a reference: `${WANDB_API_KEY}`."
    )
    job_dir: JobDirText | None = Field(
        default=None,
        description="Where job directories are created (default ./skypilot_jobs). A plain path: "
        "`~/` is expanded, `${VAR}` is not.",
    )
    gpus_per_node: GpusPerNode | None = Field(
        default=None, description="Ranks per node; defaults to the accelerator count."
    )
    job_recovery: JobRecovery | None = Field(
        default=None, description="Managed-job recovery for spot preemption."
    )
    autostop: IdleMinutes | None = Field(
        default=10,
        description="Non-spot tasks: minutes the cluster may stay idle before it is torn down "
        "(`down: true`) or stopped (`down: false`); null: no idle timer. Managed (spot) jobs "
        "clean up their own clusters.",
    )
    down: bool = Field(
        default=True,
        description="Tear the idle cluster down (all billing stops) rather than stop it (its "
        "disks stay, and are billed). With `autostop: null` it is torn down when its job ends; "
        "`autostop: null` with `down: false` leaves it up, and billing, until you stop it.",
    )

    profile: str | None = Field(
        default=None,
        description="Site or user profile whose values this section extends (see "
        "`automodel-launch config show`): the section's own keys win over the profile's.",
        pattern=PROFILE_NAME,
        examples=["eos"],
    )

    @property
    def cluster_fate(self) -> str:
        """What happens to a non-spot task's cluster once its job is done (for the summary)."""
        if self.use_spot:
            return "a managed job: SkyPilot removes its cluster when the job ends"
        if self.autostop is None:
            return (
                "the cluster is torn down when the job ends"
                if self.down
                else "the cluster stays up, and billing, until you stop it (autostop: null)"
            )
        verb = "torn down" if self.down else "stopped (disks kept and billed)"
        return f"the cluster is {verb} after {self.autostop} idle minutes"

    @field_validator("job_name")
    @classmethod
    def _cluster_name(cls, value: str | None) -> str | None:
        if value is not None and not _CLUSTER_NAME.fullmatch(value):
            fail(
                "invalid-cluster-name",
                f"'{value}' is not a SkyPilot cluster name",
                "start with a letter; use letters, digits, '-', '_', '.'",
            )
        return value

    @property
    def accelerator_count(self) -> int | None:
        return int(self.accelerators.split(":")[1]) if self.accelerators else None

    @property
    def ranks_per_node(self) -> int:
        return self.gpus_per_node or self.accelerator_count or 1


def check_skypilot(cfg: SkyPilotConfig, sink: Collector) -> None:
    loc = ("skypilot",)
    if cfg.accelerators:
        name = cfg.accelerators.split(":")[0]
        known = {a.upper() for a in KNOWN_ACCELERATORS}
        if name.upper() not in known:
            close = difflib.get_close_matches(name.upper(), known, n=1)
            sink.add(
                "unknown-accelerator",
                (*loc, "accelerators"),
                f"SkyPilot is unlikely to know the accelerator '{name}'",
                f"did you mean '{close[0]}'?" if close else "check `sky show-gpus`",
            )
    count = cfg.accelerator_count
    if cfg.gpus_per_node and count and cfg.gpus_per_node > count:
        sink.add(
            "gpus-exceed-accelerators",
            (*loc, "gpus_per_node"),
            f"gpus_per_node {cfg.gpus_per_node} is more than the {count} accelerators per node",
            f"set gpus_per_node: {count} or request more accelerators",
        )
    if cfg.use_spot and cfg.cloud in ("kubernetes", "lambda"):
        sink.add(
            "spot-unsupported",
            (*loc, "use_spot"),
            f"{cfg.cloud} has no spot instances",
            "set use_spot: false or pick another cloud",
        )
    _check_region(cfg, sink)


def _check_region(cfg: SkyPilotConfig, sink: Collector) -> None:
    pattern = _REGION.get(cfg.cloud)
    if pattern and cfg.region and not pattern.fullmatch(cfg.region):
        sink.add(
            "unknown-region",
            ("skypilot", "region"),
            f"'{cfg.region}' does not look like a region of {cfg.cloud}",
            "check `sky show-gpus --cloud " + cfg.cloud + "` for region names",
        )
    if (
        cfg.cloud in ("aws", "gcp")
        and cfg.region
        and cfg.zone
        and not cfg.zone.startswith(cfg.region)
    ):
        sink.add(
            "unknown-region",
            ("skypilot", "zone"),
            f"zone '{cfg.zone}' is not in region '{cfg.region}'",
            f"zones of {cfg.region} start with '{cfg.region}'",
        )
