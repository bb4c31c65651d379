"""Rules across the fields of AutoModel's own Kubernetes launcher, ``k8s:``.

torchrun starts ``gpus_per_node`` ranks in each pod; ``resources`` replaces the GPU
limit AutoModel would set, so a limit below that count (or none) leaves ranks without a
GPU. (``nemo_run:`` has its own module, :mod:`automodel_launch.rules.nemo_run`.)
"""

from __future__ import annotations

from automodel_launch.config.k8s import K8sConfig
from automodel_launch.rules.context import Context

GPU = "nvidia.com/gpu"


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
