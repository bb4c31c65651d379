"""What preflight knows about a cluster: typed, bounded data, parsed once per run.

The records are frozen pydantic dataclasses: what a scheduler command printed reaches
the rules only through these fields, each validated against its bound. :mod:`.parse`
reads every value within those bounds; a value it cannot read is ``None`` ("unknown":
the rules that need it skip) and an :class:`Unreadable` says which command printed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field
from pydantic.dataclasses import dataclass as typed

DIGITS = 15
"""Digits of the largest number read from a command (a count, a size in MB, minutes)."""
MAX_NUMBER = 10**DIGITS - 1
MAX_NAME = 256
"""Characters of a partition, node, account or qos name (Slurm's are far shorter)."""
MAX_HOSTS = 65536
"""Names one host list may expand to: more is no real partition, and expanding
``n[1-999999999]`` would take all the memory; such a list is unknown."""
MAX_QOS = 1024

Count = Annotated[int, Field(ge=0, le=MAX_NUMBER)]
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
Text = Annotated[str, Field(max_length=MAX_NAME)]


@typed(frozen=True)
class Partition:
    """One line of ``scontrol show partition -o``.

    A limit of ``None`` is unlimited, or unknown (an :class:`Unreadable` says so): no
    rule applies it. A count of ``None`` is unknown.
    """

    name: Name
    state: Text
    """``UP``, ``DOWN``, ``DRAIN`` or ``INACTIVE``."""
    default: bool = False
    max_time: Count | None = None
    """Minutes; None: UNLIMITED."""
    default_time: Count | None = None
    """Minutes; None: NONE (the job gets MaxTime)."""
    max_nodes: Count | None = None
    min_nodes: Count = 0
    total_nodes: Count | None = None
    nodes: Annotated[tuple[Name, ...], Field(max_length=MAX_HOSTS)] = ()
    """Node names, expanded (``node[1-2]`` -> node1, node2); none when unknown."""
    max_cpus_per_node: Count | None = None
    max_mem_per_node: Count | None = None
    """MB."""


@typed(frozen=True)
class Node:
    """One line of ``scontrol show node -o``; a count of ``None`` is unknown."""

    name: Name
    gpus: Count | None = 0
    """Count of ``gpu`` GRES (all types)."""
    cpus: Count | None = None
    memory: Count | None = None
    """RealMemory, MB."""
    state: Text = ""
    """``IDLE``, ``IDLE+DRAIN``, ``MIXED+DRAIN``, ``DOWN*``... in capitals; "": unknown."""
    reason: Text = ""
    """Why an admin or Slurm took it out (``Reason=``, without its ``[user@time]``)."""

    @property
    def broken(self) -> str | None:
        """How the node is out of service (``drained``, ``draining``, ``down``,
        ``failing``, ``not responding``), or None when it can run jobs (or is unknown)."""
        return broken_state(self.state)


BUSY = ("ALLOCATED", "MIXED", "COMPLETING")
"""Base states of a node still running jobs: with DRAIN it is draining, not drained."""


def broken_state(state: str) -> str | None:
    """``IDLE+DRAIN`` -> drained, ``MIXED+DRAIN`` -> draining, ``DOWN`` / ``DOWN*`` ->
    down, ``IDLE+FAIL`` -> failing, ``IDLE*`` / ``IDLE+NOT_RESPONDING`` -> not responding;
    None for a node that takes jobs (``IDLE``, ``MIXED``, ``ALLOCATED``...)."""
    words = [word.removesuffix("*") for word in state.upper().split("+")]
    base, flags = words[0], set(words[1:])
    if base == "DOWN":
        return "down"
    if "DRAIN" in flags or base in ("DRAIN", "DRAINED", "DRAINING"):
        return "draining" if base in BUSY or base == "DRAINING" else "drained"
    if "FAIL" in flags or base in ("FAIL", "FAILING"):
        return "failing"
    if "*" in state or "NOT_RESPONDING" in flags:
        return "not responding"
    return None


@typed(frozen=True)
class Association:
    """One row of ``sacctmgr show assoc``: the user may run under account (and qos)."""

    account: Name
    partition: Text = ""
    """Empty: every partition."""
    qos: Annotated[tuple[Name, ...], Field(max_length=MAX_QOS)] = ()


@dataclass(frozen=True)
class Unreadable:
    """A value a command printed that could not be read: it is unknown, not checked."""

    command: str
    """As the user would type it: ``scontrol show partition``."""
    what: str
    """``MaxNodes of partition 'batch'``, or, with no value and no length, what went
    wrong (``exit status 1: ...``)."""
    value: str | None = None
    """What was printed, when it is short enough to show whole."""
    length: int = 0
    """Characters printed (a value too long to show)."""

    @property
    def said(self) -> str:
        """``cannot read MaxNodes of partition 'p' ('²')``, or what went wrong."""
        if self.value is not None:
            return f"cannot read {self.what} ('{self.value}')"
        return f"cannot read {self.what} ({self.length} characters)" if self.length else self.what


_CLUSTER_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass
class Cluster:
    """Everything read from the cluster for one run."""

    partitions: dict[str, Partition] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)
    """``scontrol show config``: ``EnforcePartLimits``, ``AccountingStorageType``..."""
    max_array_size: Count | None = None
    """``MaxArraySize`` of ``scontrol show config``: an array's indices must be below it
    (0: no arrays). None: unknown (not printed, or not a count: noted), never 0."""
    associations: list[Association] | None = None
    """None: the cluster keeps no accounting (or it could not be read)."""
    pyxis: bool | None = None
    """``--container-image`` in ``srun --help``; None: not asked."""
    enroot_version: tuple[int, ...] | None = None
    """``enroot version`` on this host; None: no enroot here."""
    unreadable: list[Unreadable] = field(default_factory=list)
    """What the commands printed that could not be read, in the order they were asked."""

    @property
    def default_partition(self) -> Partition | None:
        return next((p for p in self.partitions.values() if p.default), None)

    @property
    def name(self) -> str | None:
        """``ClusterName``, where it is one (letters, digits, ``_.-``)."""
        name = self.config.get("ClusterName", "")
        return name if _CLUSTER_NAME.fullmatch(name) else None

    @property
    def accounting(self) -> bool:
        return self.config.get("AccountingStorageType", "") == "accounting_storage/slurmdbd"

    def enforces(self, what: str) -> bool:
        """``AccountingStorageEnforce`` makes sbatch check ``associations`` or ``qos``
        (``limits``, ``qos``, ``safe`` and ``wckeys`` each imply associations)."""
        words = set(self.config.get("AccountingStorageEnforce", "").lower().split(","))
        implied = {"associations": {"associations", "limits", "qos", "safe", "wckeys"}}
        return self.accounting and bool(words & implied.get(what, {what}))

    @property
    def enforces_limits(self) -> bool:
        """``EnforcePartLimits`` other than NO: sbatch refuses a job over the limits."""
        return self.config.get("EnforcePartLimits", "NO").upper() not in ("NO", "")

    def nodes_of(self, partition: Partition) -> list[Node]:
        return [self.nodes[n] for n in partition.nodes if n in self.nodes]
