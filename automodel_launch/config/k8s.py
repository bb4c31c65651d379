"""``k8s:``: the Kubeflow PyTorchJob form of a Kubernetes section that no AutoModel release
launches.

The form comes from an AutoModel documentation change that was never merged (its
``components/launcher/k8s`` would render a ConfigMap with the job config and a
PyTorchJob whose pods run torchrun with ``gpus_per_node`` ranks, each PVC at its
``mount_path``). Released AutoModel stops on it (0.1.0 to 0.3.0) or ignores it and trains
on the local node (0.4.0 on): :mod:`automodel_launch.rules.automodel_launchers` says so.
Its fields are still checked as that form defines them.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field

from automodel_launch.config.types import (
    EnvVars,
    GpusPerNode,
    Nodes,
    StrictSection,
    fail,
    kind,
    show,
)

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_IMAGE = re.compile(
    r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-]+[a-z0-9]+)*)*"
    r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[0-9a-f]{64})?$"
)


def _image(value: Any) -> str:
    if not isinstance(value, str):
        fail("invalid-image", f"image must be text, not {kind(value)}")
    if "#" in value:
        fail(
            "invalid-image",
            f"'{value}' is an Enroot image reference: Kubernetes pulls registry/image:tag",
            f"write {value.replace('#', '/', 1)}",
        )
    if value.endswith(".sqsh") or value.startswith("/"):
        fail(
            "invalid-image",
            f"'{value}' is a file path: a Kubernetes pod pulls its image from a registry",
            "write registry/image:tag, e.g. nvcr.io/nvidia/nemo-automodel:latest",
        )
    if not _IMAGE.fullmatch(value):
        fail(
            "invalid-image",
            f"'{value}' is not an image reference",
            "write registry/image[:tag], lowercase, e.g. nvcr.io/nvidia/nemo-automodel:latest",
        )
    return value


def _dns(pattern: re.Pattern[str], what: str) -> Any:
    def check(value: Any) -> str:
        if not isinstance(value, str) or not pattern.fullmatch(value):
            fail(
                "invalid-k8s-name",
                f"{show(value)} is not a valid Kubernetes {what}",
                "use lowercase letters, digits and '-', starting and ending with a letter or digit",
            )
        return value

    return BeforeValidator(check)


Namespace = Annotated[str, _dns(_DNS_LABEL, "namespace")]
ClaimName = Annotated[str, _dns(_DNS_NAME, "PersistentVolumeClaim name")]


def _mount_path(value: Any) -> str:
    if not isinstance(value, str) or not value.startswith("/"):
        fail(
            "invalid-mount",
            f"mount_path {show(value)} is not an absolute path in the pod",
            "write an absolute path such as /data",
        )
    if ":" in value:
        fail("invalid-mount", f"mount_path '{value}' holds ':'", "choose a path without ':'")
    return value


class PvcMount(StrictSection):
    """A PersistentVolumeClaim mounted into every pod."""

    model_config = StrictSection.model_config | {"title": "PvcMount"}

    claim: ClaimName = Field(description="Name of an existing PersistentVolumeClaim.")
    mount_path: Annotated[str, BeforeValidator(_mount_path)] = Field(
        description="Absolute path where the claim appears in the pod."
    )


class K8sConfig(StrictSection):
    """A Kubeflow PyTorchJob form that no AutoModel release launches (`automodel FILE` trains on
    the local node): validated, not launched; use skypilot: with cloud: kubernetes."""

    model_config = StrictSection.model_config | {"title": "k8s"}
    references_resolved: ClassVar[str] = "AutoModel renders the manifest"

    num_nodes: Nodes = Field(default=1, description="Pods (one Master, the rest Workers).")
    gpus_per_node: GpusPerNode = Field(
        default=8,
        description="GPUs per pod: torchrun `--nproc_per_node` and the `nvidia.com/gpu` limit.",
    )
    image: Annotated[str, BeforeValidator(_image)] = Field(
        default="nvcr.io/nvidia/nemo-automodel:latest",
        description="Container image, `registry/image[:tag]` (not an Enroot `#` reference).",
    )
    namespace: Namespace = Field(default="default", description="Namespace of the job.")
    service_account: str = Field(default="", description="Service account of the pods.")
    pvc_mounts: list[PvcMount] = Field(
        default_factory=list,
        description="PersistentVolumeClaims to mount: `{claim, mount_path}` each.",
    )
    env_vars: EnvVars = Field(
        default_factory=dict,
        description="Environment of the pods, written into the manifest as is: reference "
        "credentials as ${NAME}, never their values.",
    )
    resources: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Container resources (`limits`, `requests`); replaces the GPU limit.",
    )
    tolerations: list[dict[str, str]] = Field(
        default_factory=list, description="Pod tolerations, as Kubernetes writes them."
    )
    node_selector: dict[str, str] = Field(
        default_factory=dict, description="Node labels the pods must run on."
    )
    master_port: int = Field(
        default=29500, ge=1024, le=65535, description="Rendezvous port (c10d)."
    )
