"""How many ranks a job starts, as its launcher section says: AutoModel's world size.

- ``slurm:``: ``nodes`` x ``ntasks_per_node`` (one torchrun agent per node starts
  ``ntasks_per_node`` ranks, as the rendered script does), unless ``command`` or
  ``script`` replaces the generated torchrun: then the user's text decides.
- ``skypilot:``: ``num_nodes`` x the ranks per node the rendered task starts
  (``gpus_per_node``, else the accelerator count).
- ``k8s:``: ``num_nodes`` pods x ``gpus_per_node`` ranks (AutoModel's PyTorchJob).
- ``nemo_run:``: not known here. Released AutoModel asks the NeMo-Run executor for its
  ranks per node (``executor.nproc_per_node()``), and a named executor is built by the
  user's ``executors.py``; nothing in the section alone fixes the count.
- No launcher section: torchrun on this node, whose GPUs are unknown where ``validate``
  runs (a laptop, CI). :data:`ONE_NODE` is what one node is taken to host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from automodel_launch.config.document import LAUNCHERS, UNSUPPORTED_LAUNCHERS
from automodel_launch.config.k8s import K8sConfig
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.rules.context import Context

ONE_NODE = 8
"""GPUs one node hosts: an 8-GPU node (DGX/HGX, the p5/a3 cloud shapes), the most any
common training node has. A mesh needing more cannot run without a launcher."""

OTHER_LAUNCHERS = (*UNSUPPORTED_LAUNCHERS, "lepton")
"""Sections that launch the job elsewhere, with ranks this tool does not count."""


class World(NamedTuple):
    """The ranks a job starts: ``ranks`` None when they cannot be known here."""

    ranks: int | None
    local: bool = False
    """No launcher section: torchrun on the node ``automodel`` runs on."""
    text: str = ""
    """Where the count comes from, for messages: ``slurm (2 nodes x 8 ranks per node)``."""
    change: str = ""
    """The launcher fields that set the count, for hints."""


UNKNOWN = World(None)
LOCAL = World(None, local=True)


def world_of(ctx: Context) -> World:
    present = [name for name in (*LAUNCHERS, *OTHER_LAUNCHERS) if ctx.data.get(name) is not None]
    if not present:
        return LOCAL
    if len(present) > 1:
        return UNKNOWN
    count = _COUNTS.get(present[0])
    return count(ctx) if count is not None else UNKNOWN


def _slurm(ctx: Context) -> World:
    cfg = ctx.section("slurm", SlurmConfig)
    failed = ctx.invalid("slurm") & {"nodes", "ntasks_per_node", "command", "script"}
    if cfg is None or failed or cfg.command is not None or cfg.script is not None:
        return UNKNOWN
    return World(
        cfg.world_size,
        text=f"slurm ({_count(cfg.nodes, 'node')} x {cfg.ntasks_per_node} ranks per node)",
        change="slurm.nodes or slurm.ntasks_per_node",
    )


def _skypilot(ctx: Context) -> World:
    cfg = ctx.section("skypilot", SkyPilotConfig)
    if cfg is None or ctx.invalid("skypilot") & {"num_nodes", "accelerators", "gpus_per_node"}:
        return UNKNOWN
    per_node = cfg.ranks_per_node
    what = "ranks per node" if cfg.gpus_per_node else "accelerators per node"
    return World(
        cfg.num_nodes * per_node,
        text=f"skypilot ({_count(cfg.num_nodes, 'node')} x {per_node} {what})",
        change="skypilot.num_nodes or skypilot.accelerators",
    )


def _k8s(ctx: Context) -> World:
    cfg = ctx.section("k8s", K8sConfig)
    if cfg is None or ctx.invalid("k8s") & {"num_nodes", "gpus_per_node"}:
        return UNKNOWN
    return World(
        cfg.num_nodes * cfg.gpus_per_node,
        text=f"k8s ({_count(cfg.num_nodes, 'pod')} x {cfg.gpus_per_node} GPUs per pod)",
        change="k8s.num_nodes or k8s.gpus_per_node",
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


_COUNTS: dict[str, Callable[[Context], World]] = {
    "slurm": _slurm,
    "skypilot": _skypilot,
    "k8s": _k8s,
}
"""How each section's ranks are counted; ``nemo_run:`` is not (its executor decides)."""
