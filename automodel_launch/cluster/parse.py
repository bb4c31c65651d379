"""Parse what Slurm's commands print into :mod:`.model` data.

Each parser takes the text one command printed and never raises on an odd line: a
field it cannot read keeps its default (a cluster that prints something new must
not stop a submission).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from automodel_launch.cluster.model import Association, Node, Partition
from automodel_launch.config import slurm_time

_UNLIMITED = ("UNLIMITED", "INFINITE", "NONE", "N/A", "(null)", "")


def fields(line: str) -> dict[str, str]:
    """``Key=Value Key=Value`` (one ``-o`` line) as a mapping; words without ``=`` are
    the rest of a value with spaces (``OS=Linux 6.1 #1 SMP``) and are skipped."""
    found: dict[str, str] = {}
    for word in line.split():
        key, sep, value = word.partition("=")
        if sep and key and key not in found:
            found[key] = value
    return found


def records(text: str, key: str) -> Iterator[tuple[str, dict[str, str]]]:
    """The ``-o`` lines of ``scontrol show`` that name a ``key`` (PartitionName, NodeName):
    each name with its fields."""
    for line in text.splitlines():
        found = fields(line)
        if found.get(key):
            yield found[key], found


def minutes(text: str) -> int | None:
    """A Slurm time as minutes; None for UNLIMITED/NONE or what is not a time."""
    if text.upper() in _UNLIMITED:
        return None
    try:
        return slurm_time.parse(text).minutes
    except slurm_time.TimeError:
        return None


def number(text: str) -> int | None:
    """A count or a size in MB; None for UNLIMITED or what is not a whole number."""
    text = text.removesuffix("M")
    return int(text) if text.isdigit() else None


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside brackets and parentheses: ``n[1,3],m1`` -> 2 parts."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p]


MAX_HOSTS = 65536
"""Names one host list may expand to: more is no real partition, and expanding
``n[1-999999999]`` would take all the memory; such a list keeps no names."""


class _TooMany(Exception):
    pass


def hostnames(expression: str) -> tuple[str, ...]:
    """Expand a Slurm host list: ``node[1-3,05],gpu7`` -> node1, node2, node3, node05, gpu7.

    Over :data:`MAX_HOSTS` names: none (the rules that look at nodes then skip).
    """
    if expression in _UNLIMITED:
        return ()
    names: list[str] = []
    try:
        for part in split_top(expression):
            _expand(part, names)
    except _TooMany:
        return ()
    return tuple(names)


def _expand(part: str, names: list[str]) -> None:
    match = re.search(r"\[([^\]]*)\]", part)
    if match is None:
        if len(names) >= MAX_HOSTS:
            raise _TooMany
        names.append(part)
        return
    head, tail, start = part[: match.start()], part[match.end() :], len(names)
    for item in match.group(1).split(","):
        low, _, high = item.partition("-")
        if not high:
            _expand(head + low + tail, names)
            continue
        if not (low.isdigit() and high.isdigit()):
            del names[start:]  # not a range Slurm writes: the part as it is
            names.append(part)
            return
        if int(high) - int(low) >= MAX_HOSTS:
            raise _TooMany
        width = len(low)
        for value in range(int(low), int(high) + 1):
            _expand(f"{head}{value:0{width}d}{tail}", names)


def partitions(text: str) -> dict[str, Partition]:
    """``scontrol show partition -o``: one partition per line."""
    found: dict[str, Partition] = {}
    for name, f in records(text, "PartitionName"):
        found[name] = Partition(
            name=name,
            state=f.get("State", "UP").upper(),
            default=f.get("Default", "NO").upper() == "YES",
            max_time=minutes(f.get("MaxTime", "UNLIMITED")),
            default_time=minutes(f.get("DefaultTime", "NONE")),
            max_nodes=number(f.get("MaxNodes", "UNLIMITED")),
            min_nodes=number(f.get("MinNodes", "0")) or 0,
            total_nodes=number(f.get("TotalNodes", "0")) or 0,
            nodes=hostnames(f.get("Nodes", "")),
            max_cpus_per_node=number(f.get("MaxCPUsPerNode", "UNLIMITED")),
            max_mem_per_node=number(f.get("MaxMemPerNode", "UNLIMITED")),
        )
    return found


def gpu_count(gres: str) -> int:
    """GPUs in a node's ``Gres=``: ``gpu:4``, ``gpu:a100:8(S:0-1)``, ``gpu:a:2,gpu:b:2``."""
    total = 0
    for item in split_top(gres):
        words = re.sub(r"\(.*?\)", "", item).split(":")
        if words[0] != "gpu":
            continue
        total += int(words[-1]) if len(words) > 1 and words[-1].isdigit() else 1
    return total


def nodes(text: str) -> dict[str, Node]:
    """``scontrol show node -o``: one node per line."""
    found: dict[str, Node] = {}
    for name, f in records(text, "NodeName"):
        found[name] = Node(
            name=name,
            gpus=gpu_count(f.get("Gres", "")),
            cpus=number(f.get("CPUTot", "0")) or 0,
            memory=number(f.get("RealMemory", "0")) or 0,
            state=f.get("State", ""),
        )
    return found


def config(text: str) -> dict[str, str]:
    """``scontrol show config``: ``Key = value`` lines."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and " " not in key.strip():
            found.setdefault(key.strip(), value.strip())
    return found


def associations(text: str) -> list[Association]:
    """``sacctmgr -nP show assoc format=account,partition,qos``: ``acct|part|q1,q2``."""
    found: list[Association] = []
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) < 3 or not cells[0]:
            continue
        qos = tuple(q for q in cells[2].split(",") if q)
        found.append(Association(cells[0], cells[1], qos))
    return found


def has_pyxis(srun_help: str) -> bool:
    """pyxis adds ``--container-image`` to srun (Slurm's own ``--container`` is OCI)."""
    return "--container-image" in srun_help


def version(text: str) -> tuple[int, ...] | None:
    """``enroot version`` -> ``(3, 4, 1)``."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return None
    return tuple(int(g) for g in match.groups() if g is not None)


def test_only_answer(stderr: str) -> str:
    """sbatch --test-only's estimate without its ``sbatch: `` prefix, on one line."""
    lines = [line.removeprefix("sbatch: ").strip() for line in stderr.splitlines()]
    return "; ".join(line for line in lines if line)
