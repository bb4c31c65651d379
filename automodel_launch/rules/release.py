"""Which AutoModel the job runs (:mod:`automodel_launch.automodel.which`), found once the
sections are validated: ``slurm.repo_root`` is looked for on this host as the snapshot
finds it (under a container mount, the mount's source; one that is not here is the host
checks' to report, ``path-missing``). What could not be read is a note at the value that
named it, for ``validate`` (render and submit say what they make); the rules after this
one check the recipe against the release found (``ctx.release()``)."""

from __future__ import annotations

import os

from automodel_launch.automodel.which import Tree, choose
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.rules.context import Context

SOURCE_OPTION = "--automodel-source"


def automodel_release(ctx: Context) -> None:
    source = ctx.settings.automodel_source
    ctx.automodel = choose(
        ctx.data,
        source=Tree(SOURCE_OPTION, (), source) if source is not None else None,
        explicit=ctx.explicit,
        repo_root=_repo_root(ctx),
    )
    found = ctx.automodel
    if ctx.purpose != "validate":
        return  # information for validate; render and submit say what they make
    against = f"AutoModel {found.version}" + (f" ({found.shown})" if found.shown else "")
    for note in found.notes:
        ctx.sink.add(note.code, note.loc, f"{note.message}; checked against {against}", note.hint)


def _repo_root(ctx: Context) -> Tree | None:
    cfg = ctx.section("slurm", SlurmConfig)
    if cfg is None or cfg.repo_root is None or "repo_root" in ctx.invalid("slurm"):
        return None
    from automodel_launch.snapshot import SnapshotError
    from automodel_launch.snapshot.source import host_root

    loc = ("slurm", "repo_root")
    try:
        return Tree("slurm.repo_root", loc, host_root(cfg, os.environ))
    except SnapshotError:
        return None  # not on this host, or a ${VAR} unset here: the host checks say so
