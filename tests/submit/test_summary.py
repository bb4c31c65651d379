"""submit's summary says what runs: processes on each node, and the GPUs asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from automodel_launch.commands.summary import summary_lines
from automodel_launch.config.document import LaunchDocument

SLURM = {"container_image": "nvcr.io/nvidia/nemo:dev"}


def resources(section: str, **fields: Any) -> str:
    document = LaunchDocument.model_validate({section: fields})
    lines = summary_lines(document, Path("/j"), 3)
    found = [line.split("resources", 1)[1].strip() for line in lines if "resources" in line]
    assert len(found) == 1, lines
    return found[0]


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({"ntasks_per_node": 2, "gpus_per_node": 0},
         "1 node(s) x 2 process(es) = world size 2, CPUs only (gpus_per_node: 0)"),
        ({"nodes": 2, "ntasks_per_node": 4},
         "2 node(s) x 4 process(es) = world size 8, whole nodes, all their GPUs"),
        ({"nodes": 2, "ntasks_per_node": 4, "exclusive": True},
         "2 node(s) x 4 process(es) = world size 8, whole nodes, all their GPUs"),
        ({"ntasks_per_node": 4, "exclusive": False},
         "1 node(s) x 4 process(es) = world size 4, no GPU asked for"),
        ({"ntasks_per_node": 2, "gpus_per_node": 8},  # fewer processes than GPUs
         "1 node(s) x 2 process(es) = world size 2, 8 GPU(s) per node"),
        ({"nodes": 3, "ntasks_per_node": 8, "gpus_per_node": 8},
         "3 node(s) x 8 process(es) = world size 24, 8 GPU(s) per node"),
        ({"ntasks_per_node": 8, "sbatch_args": ["--gres=gpu:8"]},
         "1 node(s) x 8 process(es) = world size 8, GPUs as sbatch_args ask"),
        ({"ntasks_per_node": 8, "gpus_per_node": 0, "sbatch_args": ["--gpus=8"]},
         "1 node(s) x 8 process(es) = world size 8, GPUs as sbatch_args ask"),
    ],
)  # fmt: skip
def test_slurm_processes_and_gpus(fields: dict[str, Any], shown: str) -> None:
    assert resources("slurm", **SLURM, **fields) == shown


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({"cloud": "aws", "accelerators": "A100:8", "num_nodes": 2},
         "2 node(s) x 8 process(es) = world size 16, A100:8 per node"),
        ({"cloud": "aws", "accelerators": "A100:8", "gpus_per_node": 2},
         "1 node(s) x 2 process(es) = world size 2, A100:8 per node"),
        ({"cloud": "kubernetes", "num_nodes": 2},
         "2 node(s) x 1 process(es) = world size 2, no accelerator"),
    ],
)  # fmt: skip
def test_skypilot_processes_and_accelerators(fields: dict[str, Any], shown: str) -> None:
    assert resources("skypilot", **fields) == shown


def test_this_node() -> None:
    document = LaunchDocument.model_validate({})
    assert summary_lines(document, Path("/j"), 3)[:2] == [
        "  launcher       local torchrun",
        "  resources      this node x 3 process(es) = world size 3",
    ]
