from __future__ import annotations

import pytest

from automodel_launch.launchers.local.render import interactive_command
from automodel_launch.render.entry import custom_entry, default_entry


@pytest.mark.parametrize(
    ("version", "nproc", "expected"),
    [
        ("0.3.0", 1, "automodel finetune llm -c config.yaml"),
        (
            "0.3.0",
            8,
            "torchrun --nproc_per_node=8 -m nemo_automodel._cli.app finetune llm -c config.yaml",
        ),
        ("0.4.0", 1, "automodel config.yaml"),
        ("0.7.0", 4, "torchrun --nproc_per_node=4 -m nemo_automodel.cli.app config.yaml"),
    ],
)
def test_the_seed_forms(version: str, nproc: int, expected: str) -> None:
    assert interactive_command(default_entry(version), "config.yaml", nproc) == expected


def test_command_and_domain_are_chosen() -> None:
    entry = default_entry("0.3.0", command="pretrain", domain="vlm")
    assert interactive_command(entry, "c.yaml", 2) == (
        "torchrun --nproc_per_node=2 -m nemo_automodel._cli.app pretrain vlm -c c.yaml"
    )


def test_multi_node_uses_c10d_rendezvous() -> None:
    command = interactive_command(default_entry("0.3.0"), "c.yaml", 8, nnodes=2,
                                  rdzv_endpoint="node1:29400")  # fmt: skip
    assert command == (
        "torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=node1:29400 "
        "-m nemo_automodel._cli.app finetune llm -c c.yaml"
    )


def test_custom_entry_and_hostile_paths_are_quoted() -> None:
    entry = custom_entry("train.py --config {config} --name 'my run'")
    assert interactive_command(entry, "my configs/$x.yaml", 2) == (
        "torchrun --nproc_per_node=2 train.py --config \"my configs/\\$x.yaml\" --name 'my run'"
    )
    assert interactive_command(entry, "c.yaml", 1) == (
        "python3 train.py --config c.yaml --name 'my run'"
    )


def test_an_empty_entry_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        custom_entry("  ")
