"""The names of the launchers: the one list every other module derives its own from.

Standard library only, so the validate path (the config models, the rules) can read the
names without loading the launcher table (:mod:`automodel_launch.launchers`), which has
one class per name in :data:`LAUNCHED_HERE`, and one for each name in :data:`PLUGGED`.
"""

from __future__ import annotations

from typing import Literal, get_args

LauncherName = Literal["slurm", "skypilot", "interactive"]
"""A launcher that runs jobs here; a job's manifest names one."""
LAUNCHED_HERE: tuple[LauncherName, ...] = get_args(LauncherName)
INTERACTIVE: LauncherName = "interactive"
"""A recipe with no launcher section: torchrun on this node."""
WITH_SECTION: tuple[LauncherName, ...] = tuple(n for n in LAUNCHED_HERE if n != INTERACTIVE)
"""Launchers a recipe chooses with a section of that name (``slurm:``, ``skypilot:``)."""
BY_AUTOMODEL = ("k8s", "nemo_run")
"""AutoModel's own launcher sections: validated here, launched by ``automodel FILE``."""
SECTIONS = (*WITH_SECTION, *BY_AUTOMODEL)
"""Every launcher section AutoModel defines; a recipe has at most one."""
PLUGGED: list[str] = []
"""Launchers this package does not ship, plugged in while it runs
(:func:`automodel_launch.launchers.plug`): each is chosen by a section of its name."""


def launched_here() -> tuple[str, ...]:
    """Every launcher that runs jobs: :data:`LAUNCHED_HERE`, then :data:`PLUGGED`."""
    return (*LAUNCHED_HERE, *PLUGGED)


def with_section() -> tuple[str, ...]:
    """The launchers a section chooses: :data:`WITH_SECTION`, then :data:`PLUGGED`."""
    return (*WITH_SECTION, *PLUGGED)
