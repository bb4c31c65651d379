from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.integration.slurm import Cluster

REQUIRED = os.environ.get("AUTOMODEL_LAUNCH_REQUIRE_INTEGRATION") == "1"
SWEEP_RECIPE = """\
step_scheduler:
  max_steps: 5
optimizer:
  lr: 0.1
"""
"""The recipe of the sweep tests' configs: the values harness/sweep_trainer.py reads."""


def unavailable(reason: str) -> None:
    """Skip when a real component is missing; in CI (REQUIRE_INTEGRATION=1) fail instead."""
    if REQUIRED:
        pytest.fail(f"integration component unavailable in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[Cluster]:
    """A real two-node Slurm cluster on this machine (node1, node2), stopped afterwards."""
    from tests.integration.slurm import start_cluster, stop_cluster

    cluster = start_cluster()
    if isinstance(cluster, str):
        unavailable(cluster)
    assert not isinstance(cluster, str)
    try:
        yield cluster
    finally:
        stop_cluster()


@pytest.fixture(scope="session")
def torchrun() -> str:
    """The torchrun of this interpreter's environment (torch's CPU wheel)."""
    import shutil
    import sys
    from pathlib import Path

    candidate = Path(sys.executable).parent / "torchrun"
    found = str(candidate) if candidate.exists() else shutil.which("torchrun")
    if found is None:
        unavailable("torch is not installed (pip install torch==2.13.0)")
    assert found is not None
    return found


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
