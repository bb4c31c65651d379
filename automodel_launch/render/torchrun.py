"""torchrun's command line, shared by the Slurm script, the SkyPilot task and interactive use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rendezvous:
    """Multi-node settings, each already a shell word (may hold ``"$VAR"``)."""

    nnodes: str
    endpoint: str
    rdzv_id: str | None = None
    node_rank: str | None = None


def torchrun_words(
    nproc_per_node: int,
    rendezvous: Rendezvous | None,
    *,
    max_restarts: int | None = None,
) -> list[str]:
    words = ["torchrun"]
    if rendezvous is not None:
        words.append(f"--nnodes={rendezvous.nnodes}")
        if rendezvous.node_rank is not None:
            words.append(f"--node_rank={rendezvous.node_rank}")
    words.append(f"--nproc_per_node={nproc_per_node}")
    if rendezvous is not None:
        words += ["--rdzv_backend=c10d", f"--rdzv_endpoint={rendezvous.endpoint}"]
        if rendezvous.rdzv_id is not None:
            words.append(f"--rdzv_id={rendezvous.rdzv_id}")
    if max_restarts:
        words.append(f"--max_restarts={max_restarts}")
    return words


def join_lines(words: list[str], indent: str = "  ", width: int = 88) -> str:
    """Join shell words, continuing long commands over lines with backslashes."""
    lines: list[str] = []
    current = ""
    for w in words:
        candidate = f"{current} {w}" if current else w
        if current and len(candidate) > width:
            lines.append(current + " \\")
            current = indent + w
        else:
            current = candidate
    lines.append(current)
    return "\n".join(lines)
