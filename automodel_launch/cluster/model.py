"""What preflight knows about a cluster: plain data, parsed once per run."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Partition:
    """One line of ``scontrol show partition -o``. Limits of ``None`` are unlimited."""

    name: str
    state: str
    """``UP``, ``DOWN``, ``DRAIN`` or ``INACTIVE``."""
    default: bool = False
    max_time: int | None = None
    """Minutes; None: UNLIMITED."""
    default_time: int | None = None
    """Minutes; None: NONE (the job gets MaxTime)."""
    max_nodes: int | None = None
    min_nodes: int = 0
    total_nodes: int = 0
    nodes: tuple[str, ...] = ()
    """Node names, expanded (``node[1-2]`` -> node1, node2)."""
    max_cpus_per_node: int | None = None
    max_mem_per_node: int | None = None
    """MB."""


@dataclass(frozen=True)
class Node:
    """One line of ``scontrol show node -o``."""

    name: str
    gpus: int = 0
    """Count of ``gpu`` GRES (all types)."""
    cpus: int = 0
    memory: int = 0
    """RealMemory, MB."""
    state: str = ""


@dataclass(frozen=True)
class Association:
    """One row of ``sacctmgr show assoc``: the user may run under account (and qos)."""

    account: str
    partition: str = ""
    """Empty: every partition."""
    qos: tuple[str, ...] = ()


@dataclass
class Cluster:
    """Everything read from the cluster for one run."""

    partitions: dict[str, Partition] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)
    """``scontrol show config``: ``EnforcePartLimits``, ``AccountingStorageType``..."""
    associations: list[Association] | None = None
    """None: the cluster keeps no accounting (or it could not be read)."""
    pyxis: bool | None = None
    """``--container-image`` in ``srun --help``; None: not asked."""
    enroot_version: tuple[int, ...] | None = None
    """``enroot version`` on this host; None: no enroot here."""

    @property
    def default_partition(self) -> Partition | None:
        return next((p for p in self.partitions.values() if p.default), None)

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
