"""What a scheduler's job id looks like: checked before an id read from anywhere (a
manifest, a registry row, a scheduler's answer) is put on a command line.

A value that fails is never passed on: ``--me`` as a Slurm id would make ``scancel``
cancel every job of the user.
"""

from __future__ import annotations

import re

SLURM_ID = re.compile(r"[1-9][0-9]{0,9}(?:_[0-9]{1,10})?(?:\+[0-9]{1,4})?")
"""Slurm: the job id, an array task (``1234_7``) or a heterogeneous component (``1234+1``)."""
NUMBER = re.compile(r"[0-9]{1,10}")
"""SkyPilot's job ids (per cluster, and managed jobs) and a local run's process id."""


GRAMMAR: dict[str, re.Pattern[str]] = {
    "slurm": SLURM_ID, "skypilot": NUMBER, "interactive": NUMBER,
}  # fmt: skip
"""Each launcher's job ids by its name (every name of
:data:`automodel_launch.launcher_names.LauncherName`; its class answers
:attr:`Launcher.job_id` from here; a plugged launcher's is added by
:func:`automodel_launch.launchers.plug`), kept below everything that reads a job's records,
so that checking an id asks no launcher."""


def is_scheduler_id(launcher: str, text: str) -> bool:
    """``text`` is a job id of ``launcher``'s scheduler (an unknown launcher has none)."""
    pattern = GRAMMAR.get(launcher)
    return pattern is not None and pattern.fullmatch(text) is not None
