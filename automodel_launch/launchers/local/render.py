"""The command line for running on this node, without a launcher section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from automodel_launch.layout import JOB_CONFIG
from automodel_launch.render.entry import Entry, JobSpec
from automodel_launch.render.shell import quote
from automodel_launch.render.torchrun import Rendezvous, torchrun_words

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument


def interactive_command(
    entry: Entry,
    config_path: str,
    nproc_per_node: int,
    *,
    nnodes: int = 1,
    rdzv_endpoint: str | None = None,
) -> str:
    """``automodel ...`` for one process, else ``torchrun ...``; shell-quoted, one line."""
    config_word = quote(config_path)
    if nproc_per_node == 1 and nnodes == 1:
        return " ".join(entry.words(config_word, single=True))
    rendezvous = None
    if nnodes > 1:
        endpoint = quote(rdzv_endpoint or "localhost:29400")
        rendezvous = Rendezvous(nnodes=str(nnodes), endpoint=endpoint)
    return " ".join(torchrun_words(nproc_per_node, rendezvous) + entry.words(config_word))


def render_artifact(document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
    """The command for a config without a launcher section, as one line."""
    config = spec.config_path or f"{spec.job_dir}/{JOB_CONFIG}"
    return interactive_command(spec.entry, config, nproc_per_node) + "\n"
