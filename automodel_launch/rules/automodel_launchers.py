"""Rules across the fields of AutoModel's own launchers, ``k8s:`` and ``nemo_run:``.

- k8s: torchrun starts ``gpus_per_node`` ranks in each pod; ``resources`` replaces the
  GPU limit AutoModel would set, so a limit below that count (or none) leaves ranks
  without a GPU.
- nemo_run: AutoModel has had two forms of the section, and each release builds its
  config with the fields of its own form: a field of the other form is a TypeError in
  every release. The older form knows only the executors local, slurm and k8s.
"""

from __future__ import annotations

from automodel_launch.config.k8s import K8sConfig
from automodel_launch.config.nemo_run import BUILT_IN_EXECUTORS, NemoRunConfig
from automodel_launch.rules.context import Context

GPU = "nvidia.com/gpu"
OLDER_FORM = ("num_nodes", "num_gpus_per_node", "account", "partition", "executor_kwargs")
NEWER_FORM = (
    "nodes", "devices", "mounts", "env_vars", "job_name", "detach", "tail_logs",
    "executors_file", "job_dir",
)  # fmt: skip


def k8s_rules(ctx: Context) -> None:
    k8s = ctx.section("k8s", K8sConfig)
    if k8s is None or not k8s.resources or ctx.invalid("k8s") & {"resources", "gpus_per_node"}:
        return
    limits = k8s.resources.get("limits", {})
    written = limits.get(GPU)
    if written is None:
        ctx.sink.add(
            "ranks-without-gpus",
            ("k8s", "resources"),
            f"resources replaces AutoModel's GPU limit and asks for no {GPU}: the "
            f"{k8s.gpus_per_node} ranks of each pod get no GPU",
            f'add limits: {{{GPU}: "{k8s.gpus_per_node}"}}',
            at_key=True,
        )
    elif written.isdigit() and int(written) < k8s.gpus_per_node:
        ctx.sink.add(
            "tasks-exceed-gpus",
            ("k8s", "resources", "limits", GPU),
            f"gpus_per_node {k8s.gpus_per_node} ranks per pod, but the pod's {GPU} limit is "
            f"{written}: ranks would share GPUs",
            f'set {GPU}: "{k8s.gpus_per_node}", or gpus_per_node: {written}',
        )


def nemo_run_rules(ctx: Context) -> None:
    raw = ctx.data.get("nemo_run")
    if ctx.section("nemo_run", NemoRunConfig) is None or not isinstance(raw, dict):
        return
    older = [key for key in OLDER_FORM if key in raw]
    newer = [key for key in NEWER_FORM if key in raw]
    if older and newer:
        ctx.sink.add(
            "nemo-run-mixed-forms",
            ("nemo_run", newer[0]),
            f"{newer[0]} is a field of AutoModel's newer nemo_run section and {older[0]} of "
            "the older one: no AutoModel release accepts both",
            "use nodes/devices/mounts/env_vars (newer) or num_nodes/num_gpus_per_node/"
            "account/partition/executor_kwargs (older), not both",
            at_key=True,
        )
    executor = raw.get("executor", "local")
    if older and isinstance(executor, str) and executor not in BUILT_IN_EXECUTORS:
        ctx.sink.add(
            "invalid-executor",
            ("nemo_run", "executor"),
            f"'{executor}' is not an executor of the older nemo_run section ({older[0]} is "
            "one of its fields), which knows local, slurm and k8s",
            "use local, slurm or k8s; a named executor (EXECUTOR_MAP) needs the newer fields",
        )
