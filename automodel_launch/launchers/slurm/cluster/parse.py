"""Parse what Slurm's commands print into :mod:`.model` data.

Each parser takes the text one command printed and is total: it never raises, whatever
the bytes. A value it cannot read (not a number, a number too long, a host list that is
no Slurm host list) is unknown (``None``, or the line is skipped) and is added to
``notes`` as an :class:`~.model.Unreadable` naming the command: a cluster that prints
something new must not stop a submission, nor pass unsaid.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping

from automodel_launch.config import slurm_time
from automodel_launch.launchers.slurm.cluster.model import (
    DIGITS,
    MAX_HOSTS,
    MAX_NAME,
    MAX_NUMBER,
    MAX_QOS,
    Association,
    Node,
    Partition,
    Unreadable,
)
from automodel_launch.secrets import display

_UNLIMITED = ("UNLIMITED", "INFINITE", "NONE", "N/A", "(NULL)", "")
"""What Slurm prints for no limit (or no nodes), in any case."""
SHOWN = 40
"""Characters of an unreadable value shown in its note (a longer one is not shown: cut,
it could be part of a credential no one would recognise)."""
PARTITIONS = "scontrol show partition"
NODES = "scontrol show node"
SACCTMGR = "sacctmgr show assoc"


class Notes:
    """Where one command's unreadable values go (a list shared with the cluster)."""

    def __init__(self, command: str, into: list[Unreadable] | None) -> None:
        self.command = command
        self.into: list[Unreadable] = [] if into is None else into

    def unreadable(self, what: str, value: str) -> None:
        """``value`` is kept when it is short enough to show whole, else its length."""
        short = len(value) <= SHOWN
        self.into.append(Unreadable(self.command, what, value if short else None, len(value)))


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


def number(text: str) -> int | None:
    """A count or a size in MB (``64000`` or ``64000M``): at most :data:`~.model.DIGITS`
    ASCII digits; None for anything else (``UNLIMITED``, ``²``, 5,000 digits)."""
    text = text.removesuffix("M")
    if len(text) > DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def read_time(text: str) -> tuple[int | None, bool]:
    """A Slurm time as minutes (None: UNLIMITED, NONE, 0), and whether it could be read."""
    if text.upper() in _UNLIMITED:
        return None, True
    if len(text) > 2 * DIGITS or not text.isascii():
        return None, False
    try:
        return slurm_time.parse(text).minutes, True
    except slurm_time.TimeError:
        return None, False


_STATE = re.compile(rf"[A-Za-z0-9_+*~#$@^!-]{{1,{MAX_NAME}}}")


class _Reader:
    """One record's fields, read into bounded values; what cannot be read is noted."""

    def __init__(self, found: Mapping[str, str], about: str, notes: Notes) -> None:
        self.found, self.about, self.notes = found, about, notes

    def note(self, key: str) -> None:
        """``key`` was printed and cannot be read."""
        self.notes.unreadable(f"{key} of {self.about}", self.found[key])

    def limit(self, key: str) -> int | None:
        """A number, or None for UNLIMITED (absent: unlimited)."""
        text = self.found.get(key, "")
        value = number(text)
        if value is None and text.upper() not in _UNLIMITED:
            self.note(key)
        return value

    def count(self, key: str) -> int | None:
        """A number; None when absent, or (noted) when printed and not one."""
        if key not in self.found:
            return None
        value = number(self.found[key])
        if value is None:
            self.note(key)
        return value

    def time(self, key: str) -> int | None:
        value, readable = read_time(self.found.get(key, ""))
        if not readable:
            self.note(key)
        return value

    def state(self, absent: str) -> str:
        """``State``: a word (``UP``, ``IDLE+DRAIN``, ``DOWN*``) in capitals, ``absent``
        when not printed; empty (noted) when it is no word."""
        if "State" not in self.found:
            return absent
        value = self.found["State"]
        if not _STATE.fullmatch(value):
            self.note("State")
            return ""
        return value.upper()


def _named(name: str, kind: str, notes: Notes) -> bool:
    if len(name) <= MAX_NAME:
        return True
    notes.unreadable(f"a {kind} name", name)
    return False


def partitions(text: str, into: list[Unreadable] | None = None) -> dict[str, Partition]:
    """``scontrol show partition -o``: one partition per line."""
    notes = Notes(PARTITIONS, into)
    found: dict[str, Partition] = {}
    for name, f in records(text, "PartitionName"):
        if not _named(name, "partition", notes):
            continue
        read = _Reader(f, f"partition '{name}'", notes)
        found[name] = Partition(
            name=name,
            state=read.state("UP"),
            default="Default" in f and f["Default"].upper() == "YES",
            max_time=read.time("MaxTime"),
            default_time=read.time("DefaultTime"),
            max_nodes=read.limit("MaxNodes"),
            min_nodes=read.count("MinNodes") or 0,
            total_nodes=read.count("TotalNodes"),
            nodes=_hosts(f.get("Nodes", ""), read),
            max_cpus_per_node=read.limit("MaxCPUsPerNode"),
            max_mem_per_node=read.limit("MaxMemPerNode"),
        )
    return found


def _hosts(expression: str, read: _Reader) -> tuple[str, ...]:
    names = hostnames(expression)
    if names is None:
        read.note("Nodes")
        return ()
    return names


_RANGE = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?")
_GROUP = re.compile(r"([^\[\]]*)\[([^\[\]]*)\]")


def hostnames(expression: str) -> tuple[str, ...] | None:
    """Expand a Slurm host list: ``node[1-3,05],gpu7`` -> node1, node2, node3, node05, gpu7.

    ``()`` for ``(null)``; None (unknown) for what is not a host list Slurm writes
    (nested or unbalanced brackets, a range that is not ASCII digits low to high) and
    for one of more than :data:`~.model.MAX_HOSTS` names. Never recursive.
    """
    if expression.upper() in _UNLIMITED:
        return ()
    parts = split_top(expression)
    if parts is None:
        return None
    names: list[str] = []
    for part in parts:
        choices = _choices(part, MAX_HOSTS - len(names))
        if choices is None:
            return None
        names += ("".join(picked) for picked in itertools.product(*choices))
    if any(len(name) > MAX_NAME for name in names):
        return None
    return tuple(names)


def split_top(text: str) -> list[str] | None:
    """Split at commas outside brackets: ``n[1,3],m1`` -> 2 parts; None when brackets
    nest or do not close (``n[1-2[3]]``, ``n[1``, ``n]``)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        if depth not in (0, 1):
            return None
    if depth != 0:
        return None
    parts.append(text[start:])
    return [p for p in parts if p]


def _choices(part: str, room: int) -> list[list[str]] | None:
    """``r[1-2]n[3]`` -> [["r"], ["1", "2"], ["n"], ["3"], [""]]; None when it is not a
    host name, or names more than ``room`` hosts."""
    choices: list[list[str]] = []
    size, end = 1, 0
    for group in _GROUP.finditer(part):
        if group.start() != end:
            return None
        end = group.end()
        values = _values(group.group(2), room)
        if values is None:
            return None
        size *= len(values)
        if size > room:
            return None
        choices += [[group.group(1)], values]
    # split_top left no bracket outside a group: the rest is the name's tail
    return [*choices, [part[end:]]] if size <= room else None


def _values(ranges: str, room: int) -> list[str] | None:
    """``1-3,05`` -> 1, 2, 3, 05 (zero-padded to the width of the low end); None for
    what is no range list, or more than ``room`` values."""
    values: list[str] = []
    for item in ranges.split(","):
        match = _RANGE.fullmatch(item)
        if match is None:
            return None
        low, high = match.group(1), match.group(2) or match.group(1)
        if int(high) < int(low) or int(high) - int(low) >= room - len(values):
            return None
        values += [f"{value:0{len(low)}d}" for value in range(int(low), int(high) + 1)]
    return values


def gpu_count(gres: str) -> int | None:
    """GPUs in a node's ``Gres=``: ``gpu:4``, ``gpu:a100:8(S:0-1)``, ``gpu:a:2,gpu:b:2``,
    ``craynetwork:4,gpu:8``; None (unknown) for a count that is not a number."""
    items = split_top(re.sub(r"\([^()]*\)", "", gres))
    if items is None:
        return None
    total = 0
    for item in items:
        words = item.split(":")
        if words[0] != "gpu":
            continue
        if len(words) == 1 or (len(words) == 2 and not words[1].isnumeric()):
            total += 1  # gpu, gpu:TYPE: one
            continue
        count = number(words[-1])
        if count is None:
            return None
        total += count
    return total if total <= MAX_NUMBER else None


_REASON = re.compile(r"(?:^|\s)Reason=(.*?)(?:\s+\[[^\[\]]*\])?\s*(?=\s[A-Z][A-Za-z]*=|$)")
"""``Reason=disk check [root@2026-12-02T03:59:01]``: words up to the next ``Key=`` (Slurm
prints it last), without the ``[user@time]`` it ends with."""


def reason(line: str) -> str:
    """A node's ``Reason=`` (it holds spaces), cut to :data:`~.model.MAX_NAME`
    characters; "" when none."""
    match = _REASON.search(line)
    if match is None:
        return ""
    said = match.group(1).strip()
    return said if len(said) <= MAX_NAME else said[: MAX_NAME - 1] + "…"


def nodes(text: str, into: list[Unreadable] | None = None) -> dict[str, Node]:
    """``scontrol show node -o``: one node per line, with its state and why it is out."""
    notes = Notes(NODES, into)
    found: dict[str, Node] = {}
    for line in text.splitlines():
        f = fields(line)
        name = f.get("NodeName", "")
        if not name or not _named(name, "node", notes):
            continue
        read = _Reader(f, f"node '{name}'", notes)
        gpus = gpu_count(f["Gres"]) if "Gres" in f else 0
        if gpus is None:
            read.note("Gres")
        found[name] = Node(
            name=name,
            gpus=gpus,
            cpus=read.count("CPUTot"),
            memory=read.count("RealMemory"),
            state=read.state(""),
            reason=reason(line),
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


CONFIG = "scontrol show config"


def max_array_size(config: Mapping[str, str], into: list[Unreadable] | None = None) -> int | None:
    """``MaxArraySize`` (a count of at most :data:`~.model.DIGITS` digits); None when it is
    not printed, and when it is no count (noted)."""
    text = config.get("MaxArraySize")
    if text is None:
        return None
    value = number(text)
    if value is None:
        Notes(CONFIG, into).unreadable("MaxArraySize", text)
    return value


def associations(text: str, into: list[Unreadable] | None = None) -> list[Association]:
    """``sacctmgr -nP show assoc format=account,partition,qos``: ``acct|part|q1,q2``."""
    notes = Notes(SACCTMGR, into)
    found: list[Association] = []
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) < 3 or not cells[0]:
            continue
        qos = tuple(q for q in cells[2].split(",") if q)
        names = [cells[0], cells[1], *qos]
        if len(qos) > MAX_QOS or any(len(name) > MAX_NAME for name in names):
            notes.unreadable("an association", line)
            continue
        found.append(Association(cells[0], cells[1], qos))
    return found


def has_pyxis(srun_help: str) -> bool:
    """pyxis adds ``--container-image`` to srun (Slurm's own ``--container`` is OCI)."""
    return "--container-image" in srun_help


_VERSION = re.compile(r"(?<![0-9])([0-9]{1,6})\.([0-9]{1,6})(?:\.([0-9]{1,6}))?(?![0-9])")


def version(text: str) -> tuple[int, ...] | None:
    """``enroot version`` -> ``(3, 4, 1)``; None when its first line holds none."""
    first = text.strip().partition("\n")[0]
    match = _VERSION.search(first[:MAX_NAME])
    if match is None:
        return None
    return tuple(int(g) for g in match.groups() if g is not None)


TEST_ONLY_LINES = 10


def test_only_answer(stderr: str) -> str:
    """sbatch --test-only's estimate without its ``sbatch: `` prefix, on one line (its
    first :data:`TEST_ONLY_LINES` lines), fit to be shown: no token, no control
    character, not huge (:func:`~automodel_launch.secrets.display`)."""
    lines = [line.removeprefix("sbatch: ").strip() for line in stderr.splitlines()]
    return display("; ".join([line for line in lines if line][:TEST_ONLY_LINES]))
