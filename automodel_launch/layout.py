"""The job directory's layout: every name the tool writes there or reads back.

One home for these names, so the renderers, the submitters, the backends, the manifest
and the registry agree on them. Standard library only and cheap to import: the validate
and render paths use it too. Generated shell text that a test pins word for word may keep
the name written out; the name itself comes from here.
"""

from __future__ import annotations

from pathlib import Path

SLURM_SCRIPT = "job.sbatch"
"""The Slurm launcher's artifact: the SBATCH script ``sbatch`` is given."""
SKYPILOT_TASK = "task.yaml"
"""The SkyPilot launcher's artifact: the task YAML."""
LOCAL_SCRIPT = "run.sh"
"""The interactive launcher's artifact: the torchrun command as a script."""
JOB_CONFIG = "job_config.yaml"
"""The recipe each rank reads: the file's data without the launcher's sections."""
LAUNCH_CONFIG = "launch.yaml"
"""The whole config the job was validated with: the recipe as its job config gives it,
and the launcher's sections as the profile and ``--set`` made them. What ``rerun``
submits again (:mod:`automodel_launch.render.launchconfig`)."""
MANIFEST = "manifest.json"
"""What the job directory says about the job in it (:mod:`automodel_launch.jobs.manifest`)."""
EXIT_CODE = "exit_code"
"""Written by the job itself when it ends (the SBATCH script's EXIT trap, the local
run's wrapper): its exit status, one line."""
NOTIFIER = "notify.py"
"""The job's own notifier (``slurm.notify``), run by the script's traps: standard library
only, it reads :data:`NOTIFY_CONFIG` beside it and the job's files, and sends."""
NOTIFY_CONFIG = "notify.json"
"""What :data:`NOTIFIER` sends and where to: events, the webhook variable's name (never
its value), the command, the bound."""
CANCELLED = "cancelled"
"""Written by ``cancel``: the job was stopped on purpose."""
LOCAL_LOG = "output.log"
"""A detached local run's output."""
RANK_LOGS = "torchrun"
"""The folder where torchrun keeps each rank's own output (``PET_LOG_DIR``)."""
ERROR_FILES = "errors"
"""The folder where each node's torchrun agent records the first failure of its ranks
(``TORCHELASTIC_ERROR_FILE``, ``errors/node<N>.json``); each rank's own ``error.json``
(written by a trainer decorated with torch's ``@record``) is under :data:`RANK_LOGS`."""
SLURM_LOG_PATTERN = "%x_%j.out"
"""sbatch's ``--output`` in the job directory: ``%x`` the job name, ``%j`` its id."""
SLURM_ARRAY_LOG_PATTERN = "%x_%A_%a.out"
"""An array task's ``--output`` in its point's directory: ``%A`` the array's id, ``%a`` the
task's index (the log of task ``1234_5`` is ``NAME_1234_5.out``, as :func:`slurm_log` names
it)."""
CODE = "code"
"""The snapshot of ``repo_root`` the job runs (of a sweep: one, at the top, for every point)."""
CODE_DIFF = "code.diff"
"""Beside it: ``git diff HEAD`` of the snapshotted tree, when it had uncommitted changes."""
POINTS = "points"
"""A sweep's job directory holds each point's own in ``points/INDEX``."""
DRIVER = "driver.json"
"""A sweep whose points a driver process starts (SkyPilot, this node): the driver's pid
and start time, at the top of the sweep's job directory."""
DRIVER_LOG = "driver.log"
"""The sweep driver's own output (which point started, which ended), beside :data:`DRIVER`."""


def sweep_root(point_dir: Path) -> Path:
    """The sweep's job directory of a point's (``ROOT/points/INDEX``)."""
    return point_dir.parent.parent


def array_script(number: int) -> str:
    """The script of job array ``number`` of a sweep split into several arrays
    (``job-1.sbatch``); a sweep of one array has the one :data:`SLURM_SCRIPT`."""
    stem, dot, suffix = SLURM_SCRIPT.rpartition(".")
    return f"{stem}-{number}{dot}{suffix}"


def slurm_log(name: str, scheduler_id: str) -> str:
    """The name :data:`SLURM_LOG_PATTERN` gives the log of job ``scheduler_id``."""
    return f"{name}_{scheduler_id}.out"


def agent_error_file(node: str) -> str:
    """The agent's error file of node ``node`` (a number, or a shell word giving one)."""
    return f"{ERROR_FILES}/node{node}.json"


def staging(name: str) -> str:
    """The temporary file a job writes before renaming it over ``name`` (``exit_code.tmp``)."""
    return f"{name}.tmp"
