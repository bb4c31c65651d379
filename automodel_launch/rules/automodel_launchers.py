"""``k8s:``, a Kubernetes section no AutoModel release launches.

The Kubeflow PyTorchJob form of ``k8s:`` comes from a documentation change AutoModel never
merged: 0.1.0 to 0.3.0 stop with ``NotImplementedError("kubernetes support is pending")``
when a config has it, 0.4.0 on read only ``skypilot:`` and ``nemo_run:``, so ``automodel
FILE`` trains on the node it runs on. That is said as a warning; the section's fields are
still checked as that form defines them (torchrun would start ``gpus_per_node`` ranks in
each pod; ``resources`` replacing the GPU limit with one below that count, or none,
leaves ranks without a GPU). (``nemo_run:`` has its own module,
:mod:`automodel_launch.rules.nemo_run`.)
"""

from __future__ import annotations

from automodel_launch.automodel.versions import at_least
from automodel_launch.config.k8s import K8sConfig
from automodel_launch.rules.context import Context

GPU = "nvidia.com/gpu"


FIRST_IGNORING = "0.4.0"


def k8s_rules(ctx: Context) -> None:
    if isinstance(ctx.data.get("k8s"), dict):
        _not_launched(ctx)
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


def _not_launched(ctx: Context) -> None:
    version = ctx.release().version
    if at_least(version, FIRST_IGNORING):
        outcome = (
            f"AutoModel {version} reads only skypilot: and nemo_run:, so `automodel FILE` "
            "ignores k8s: and trains on the node it runs on"
        )
    else:
        outcome = (
            f"`automodel FILE` stops: AutoModel {version} raises "
            'NotImplementedError("kubernetes support is pending")'
        )
    ctx.sink.add(
        "k8s-not-launched",
        ("k8s",),
        f"no AutoModel release launches a k8s: section: {outcome}",
        "to run on Kubernetes, launch it here with skypilot: and cloud: kubernetes",
        at_key=True,
    )
