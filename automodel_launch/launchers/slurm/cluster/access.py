"""Preflight rules on who may run and how: account and qos associations, containers."""

from __future__ import annotations

import difflib

from automodel_launch.launchers.slurm.cluster.model import Association
from automodel_launch.launchers.slurm.cluster.rules import Job


def check_associations(
    job: Job, associations: list[Association], partition: str | None, *, qos: bool
) -> None:
    """Account (and, with ``qos``, the qos) against the user's associations; an
    association may hold on one partition only."""
    account = job.cfg.account
    accounts = sorted({a.account for a in associations})
    if account is not None and account not in accounts:
        close = difflib.get_close_matches(account, accounts, n=1, cutoff=0.5)
        job.add(
            "unknown-account", "account",
            f"you have no association with account '{account}': sbatch refuses the job",
            f"did you mean '{close[0]}'?" if close else
            ("your accounts: " + ", ".join(accounts) if accounts else "ask for an association"),
        )  # fmt: skip
        return
    mine = [a for a in associations if account is None or a.account == account]
    here = [a for a in mine if not a.partition or a.partition == partition]
    if account is not None and partition is not None and not here:
        others = ", ".join(sorted({a.partition for a in mine}))
        job.add(
            "unknown-account", "account",
            f"your association with account '{account}' holds on partition(s) {others}, "
            f"not on '{partition}': sbatch refuses the job",
            f"choose partition {others.split(', ')[0]}, or ask for an association on {partition}",
        )  # fmt: skip
        return
    mine = here or mine
    allowed = sorted({q for a in mine for q in a.qos})
    asked = job.cfg.qos
    if qos and asked is not None and allowed and asked not in allowed:
        close = difflib.get_close_matches(asked, allowed, n=1, cutoff=0.5)
        under = f" under account '{account}'" if account else ""
        job.add(
            "unknown-qos", "qos",
            f"your associations{under} do not allow qos '{asked}': sbatch refuses the job",
            f"did you mean '{close[0]}'?" if close else "allowed: " + ", ".join(allowed),
        )  # fmt: skip


def check_container(job: Job, pyxis: bool | None, enroot: tuple[int, ...] | None) -> None:
    image = job.cfg.container_image
    if image is None:
        return
    if pyxis is False:
        said = (
            "container_image is set"
            if "container_image" in job.written
            else f"container_image is not set, so the job uses {image} (the default)"
        )
        job.add(
            "no-pyxis", "container_image",
            f"{said}, but the cluster has no pyxis (srun --help has no --container-image): "
            "srun stops the job with 'unrecognized option'",
            "set container_image: null to run on the nodes without a container",
        )  # fmt: skip
        return
    if enroot is not None and enroot < (4,) and reads_as_docker_hub(image):
        registry, _, rest = image.partition("/")
        job.add(
            "image-read-as-docker-hub", "container_image",
            f"enroot {'.'.join(map(str, enroot))} reads '{image}' as the Docker Hub image "
            f"'{image.split(':')[0]}' (401 Unauthorized from registry-1.docker.io) unless its "
            f"credentials file names {registry}",
            f"write {registry}#{rest}",
        )  # fmt: skip


def reads_as_docker_hub(image: str) -> bool:
    """``nvcr.io/nvidia/nemo:dev``: a registry host written with ``/``, not enroot's ``#``.

    enroot 3 takes the registry only from ``REGISTRY#``; enroot 4 also reads Docker's
    form (a first component with ``.`` or ``:`` is a registry). A path is a squashfs file.
    """
    if "#" in image or image.startswith(("/", ".", "~")) or image.endswith(".sqsh"):
        return False
    user_and_first = image.split("/", 1)
    if len(user_and_first) < 2:
        return False
    first = user_and_first[0].rpartition("@")[2]
    return "." in first or ":" in first or first == "localhost"
