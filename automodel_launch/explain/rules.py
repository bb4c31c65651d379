"""Which diagnostic codes each field is involved in, for ``explain``.

Field-specific rules are listed here by code; the rules every field of a kind meets
(a wrong type, a number out of range, a YAML 1.1 trap) follow from its schema node, see
:func:`codes_for`. A test keeps this table in step with the catalogue
(:data:`automodel_launch.diagnostics.CODES`) and the schema: every code is either here,
generic, or about a whole file.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from automodel_launch.launcher_names import BY_AUTOMODEL, SECTIONS, WITH_SECTION

_RANKS = (
    "slurm.nodes", "slurm.ntasks_per_node", "skypilot.num_nodes", "skypilot.accelerators",
    "skypilot.gpus_per_node", "k8s.num_nodes", "k8s.gpus_per_node",
)  # fmt: skip
"""The launcher fields that set the ranks AutoModel's mesh and batch sizes must fit."""

BY_CODE: dict[str, tuple[str, ...]] = {
    "multiple-launchers": SECTIONS,
    "unsupported-launcher": ("kubernetes",),
    "launched-by-automodel": BY_AUTOMODEL,
    "nothing-to-train": SECTIONS,
    "own-sbatch-script": ("slurm.script",),
    "invalid-image": ("k8s.image",),
    "invalid-k8s-name": ("k8s.namespace", "k8s.pvc_mounts.claim"),
    "invalid-executor": ("nemo_run.executor",),
    "nemo-run-unknown-field": ("nemo_run", "nemo_run.overrides"),
    "nemo-run-field-replaced": ("nemo_run", "nemo_run.overrides"),
    "nemo-run-not-in-release": ("nemo_run",),
    "launcher-only": WITH_SECTION,
    "unreleased-launcher": ("lepton",),
    "path-not-mounted": ("slurm.extra_mounts", "slurm.hf_home", "checkpoint.checkpoint_dir"),
    "invalid-time": ("slurm.time",),
    "ambiguous-time": ("slurm.time",),
    "time-leaves-no-checkpoint-margin": ("slurm.time",),
    "invalid-job-name": ("slurm.job_name",),
    "invalid-cluster-name": ("skypilot.job_name",),
    "invalid-slurm-word": ("slurm.account", "slurm.partition", "slurm.qos", "slurm.reservation"),
    "invalid-port": ("slurm.master_port",),
    "invalid-job-dir": ("slurm.job_dir", "skypilot.job_dir"),
    "tasks-exceed-gpus": ("slurm.ntasks_per_node", "slurm.gpus_per_node", "k8s.gpus_per_node"),
    "ranks-without-gpus": ("slurm.ntasks_per_node", "slurm.gpus_per_node", "k8s.resources"),
    "invalid-mount": (
        "slurm.extra_mounts*",
        "slurm.nemo_mount*",
        "slurm.hf_home",
        "k8s.pvc_mounts*",
    ),
    "duplicate-mount-dest": ("slurm.extra_mounts", "slurm.extra_mounts.dest"),
    "path-missing": ("slurm.extra_mounts*", "slurm.nemo_mount*", "slurm.container_image"),
    "invalid-container-image": ("slurm.container_image",),
    "nsys-diagnostic-only": ("slurm.nsys_enabled",),
    "invalid-signal": ("slurm.signal",),
    "requeue-needs-signal": ("slurm.requeue", "slurm.signal"),
    "signal-without-requeue": ("slurm.signal", "slurm.requeue"),
    "max-requeues-without-requeue": ("slurm.max_requeues", "slurm.requeue"),
    "requeue-without-checkpoint": ("slurm.requeue", "checkpoint.enabled"),
    "requeue-fixed-restore": ("slurm.requeue", "checkpoint.restore_from"),
    "requeue-signal-unhandled": ("slurm.requeue",),
    "signal-exceeds-time": ("slurm.signal", "slurm.time"),
    "signal-margin-short": ("slurm.signal",),
    "fault-tolerance-needs-slurm": ("fault_tolerance*",),
    "invalid-constraint": ("slurm.constraint",),
    "invalid-memory": ("slurm.mem",),
    "invalid-mail-type": ("slurm.mail_type",),
    "invalid-mail-user": ("slurm.mail_user",),
    "mail-user-without-type": ("slurm.mail_user", "slurm.mail_type"),
    "invalid-dependency": ("slurm.dependency",),
    "invalid-chdir": ("slurm.chdir",),
    "invalid-sbatch-arg": ("slurm.sbatch_args",),
    "unknown-sbatch-option": ("slurm.sbatch_args",),
    "sbatch-option-has-field": ("slurm.sbatch_args",),
    "sbatch-option-refused": ("slurm.sbatch_args",),
    "conflicting-sbatch-options": ("slurm.sbatch_args", "slurm.mem"),
    "command-replaces-torchrun": ("slurm.command",),
    "relative-repo-root": ("slurm.repo_root",),
    "invalid-notify-event": ("slurm.notify.events",),
    "notify-url-literal": ("slurm.notify.webhook_env",),
    "notify-webhook-reference": ("slurm.notify.webhook_env",),
    "notify-webhook-name": ("slurm.notify.webhook_env",),
    "invalid-notify-command": ("slurm.notify.command",),
    "notify-nowhere": ("slurm.notify",),
    "notify-near-unlimited": ("slurm.notify.time_limit_near_minutes", "slurm.notify.events"),
    "invalid-accelerators": ("skypilot.accelerators",),
    "unknown-accelerator": ("skypilot.accelerators",),
    "unknown-region": ("skypilot.region", "skypilot.zone"),
    "gpus-exceed-accelerators": ("skypilot.gpus_per_node", "skypilot.accelerators"),
    "spot-unsupported": ("skypilot.use_spot", "skypilot.cloud"),
    "spot-no-checkpoint-interval": (
        "skypilot.use_spot",
        "step_scheduler.ckpt_every_steps",
        "step_scheduler.checkpoint_interval",
    ),
    "spot-long-checkpoint-interval": (
        "step_scheduler.ckpt_every_steps",
        "step_scheduler.checkpoint_interval",
    ),
    "spot-checkpoint-disabled": ("skypilot.use_spot", "checkpoint.enabled"),
    "spot-relative-checkpoint-dir": (
        "checkpoint.checkpoint_dir",
        "skypilot.use_spot",
        "skypilot.file_mounts",
    ),
    "checkpoint-on-vm-disk": (
        "checkpoint.checkpoint_dir",
        "skypilot.file_mounts",
        "skypilot.down",
        "skypilot.autostop",
        "skypilot.num_nodes",
    ),
    "invalid-file-mount": ("skypilot.file_mounts*",),
    "no-automodel-on-nodes": ("skypilot.setup", "skypilot.image_id"),
    "invalid-env-name": ("*.env_vars",),
    "invalid-env-reference": ("*.env_vars", "*.hf_token", "*.wandb_key"),
    "bare-env-reference": ("*.env_vars",),
    "command-substitution": ("*.env_vars",),
    "env-unset": ("*.env_vars", "*.hf_token", "*.wandb_key"),
    "secret-in-plain-text": ("*.env_vars", "*.hf_token", "*.wandb_key"),
    "unknown-partition": ("slurm.partition",),
    "partition-unavailable": ("slurm.partition",),
    "time-over-partition-limit": ("slurm.time", "slurm.partition"),
    "nodes-outside-partition-limits": ("slurm.nodes", "slurm.partition"),
    "nodes-out-of-service": ("slurm.nodes", "slurm.partition"),
    "array-over-partition": ("slurm.nodes", "slurm.partition"),
    "gpus-over-node-gres": ("slurm.gpus_per_node", "slurm.ntasks_per_node"),
    "no-gpus-on-partition": ("slurm.partition", "slurm.ntasks_per_node"),
    "cpus-over-node": ("slurm.cpus_per_task",),
    "mem-over-node": ("slurm.mem",),
    "unknown-account": ("slurm.account",),
    "unknown-qos": ("slurm.qos",),
    "associations-not-checked": ("slurm.account", "slurm.qos"),
    "no-pyxis": ("slurm.container_image",),
    "image-read-as-docker-hub": ("slurm.container_image",),
    "batch-not-divisible": ("step_scheduler", *_RANKS),
    "mesh-not-dividing-ranks": _RANKS,
    "dp-size-mismatch": _RANKS,
    "ep-size-mismatch": _RANKS,
    "dp-replicate-mismatch": _RANKS,
    "size-not-positive": ("step_scheduler",),
    "mesh-needs-nodes": (*WITH_SECTION, "k8s"),
    "unknown-profile": ("*.profile",),
    "invalid-profile": ("*.profile",),
    "profile-not-applied": ("*.profile",),
    "automodel-not-read": ("slurm.repo_root",),
    "k8s-not-launched": ("k8s",),
    "automodel-image-unknown": (
        "slurm.container_image",
        "skypilot.image_id",
        "nemo_run.container_image",
        "k8s.image",
    ),
}

GENERIC = frozenset(
    {"wrong-type", "unknown-key", "missing-field", "out-of-range", "invalid-choice",
     "invalid-value", "yaml11-trap", "yaml-tag", "control-character", "invalid-override"}
)  # fmt: skip
"""Codes any field of a kind can get; :func:`codes_for` decides from the schema node."""

FILE_LEVEL = frozenset(
    {"file-not-found", "file-unreadable", "no-config-found", "file-too-large", "not-text",
     "empty-file", "yaml-syntax", "multiple-documents", "root-not-mapping", "duplicate-key",
     "alias-bomb", "too-deep", "invalid-merge", "secret-in-recipe", "secret-in-comment",
     "cluster-unanswered", "scheduler-output", "sbatch-refused", "sbatch-estimate",
     "array-too-large",
     "tab-not-space", "key-not-text", "placeholder-value", "not-a-recipe",
     "missing-recipe-key", "unknown-automodel-version", "automodel-not-read",
     "pipeline-batch-too-small", "no-max-steps", "unresolved-interpolation",
     "strategy-unsupported-size",
     "unknown-argument", "missing-argument", "unknown-target", "unknown-recipe"}
)  # fmt: skip
"""Codes about the file (or the job script) as a whole, or about recipe sections no field
here describes."""

LAUNCHER_SECTIONS = (*WITH_SECTION, "fault_tolerance")


def codes_for(path: str, node: dict[str, object], *, required: bool, section: bool) -> list[str]:
    """The codes a value at ``path`` can get, field-specific ones first."""
    found = [code for code, globs in BY_CODE.items() if any(fnmatchcase(path, g) for g in globs)]
    launcher = path.split(".")[0] in LAUNCHER_SECTIONS
    if required:
        found.append("missing-field")
    if section and launcher:
        found.append("unknown-key")
    if launcher and "." in path:
        found.append("wrong-type")
        if "minimum" in node or "maximum" in node:
            found.append("out-of-range")
        if "enum" in node or any("enum" in b for b in _branches(node)):
            found.append("invalid-choice")
        if not section:
            found += ["yaml11-trap", "yaml-tag"]
    return list(dict.fromkeys(found))


def _branches(node: dict[str, object]) -> list[dict[str, object]]:
    branches = node.get("anyOf") or node.get("oneOf") or []
    return [b for b in branches if isinstance(b, dict)] if isinstance(branches, list) else []
