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


def is_scheduler_id(launcher: str, text: str) -> bool:
    """``text`` is a job id of ``launcher``'s scheduler (an unknown launcher has none);
    each launcher says which grammar is its own (:attr:`Launcher.job_id`)."""
    from automodel_launch.launchers import LAUNCHERS

    row = LAUNCHERS.get(launcher)
    return row is not None and row.job_id.fullmatch(text) is not None
