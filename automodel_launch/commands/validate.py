"""``validate PATH...``: one report per file found, the cluster's word added when asked.

Kept light: the validate path (pre-commit and editors on every save) imports nothing of
the cluster unless ``cluster`` asks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.results import FileReport
    from automodel_launch.settings import Settings


def validate(
    paths: list[Path],
    settings: Settings,
    layers: Layers | None = None,
    *,
    cluster: bool = False,
    remote: str | None = None,
    spread: bool = False,
) -> list[FileReport]:
    """Every file under ``paths`` checked (with ``layers``: the profile and ``--set``);
    ``cluster``: every valid ``slurm:`` report also asked of the live cluster (``remote``,
    else the profile's ``remote:``, else this host's Slurm). ``spread``: many files on
    every core, their reports keeping diagnostics only (never with ``cluster``, which
    renders each report's script)."""
    from automodel_launch.validation import validate_paths

    reports = validate_paths(paths, settings, layers, spread=spread and not cluster)
    if cluster:
        from automodel_launch.commands.preflight import preflight_reports
        from automodel_launch.remote.session import RemoteSession, connected
        from automodel_launch.remote.target import chosen

        named = chosen(remote, reports[0] if reports else None)
        with connected(RemoteSession(named) if named is not None else None):
            preflight_reports(reports)
    return reports
