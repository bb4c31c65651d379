"""Every Slurm command this tool runs (sbatch, squeue, sacct, scontrol, scancel, sinfo, and
preflight's srun, sacctmgr and enroot) runs through :class:`SlurmClient`.

One decoding rule: :func:`~.commands.run` (no standard input,
output bounded, UTF-8 with U+FFFD for what is not).

One timeout policy, by what the command is for:

================  =========  ===============================================================
kind              seconds    why
================  =========  ===============================================================
``query``         30         squeue, sacct, scancel: a busy controller answers in a few
``submit``        120        sbatch: it waits for a busy controller to take the job
``probe``         5          preflight (scontrol, srun --help, sacctmgr, enroot): Slurm's
                             clients retry an unreachable controller for 10 s and a missing
                             slurm.conf for 60 s; the timeout cuts both short
``probe`` sbatch  2 x 5      ``sbatch --test-only`` during preflight
================  =========  ===============================================================

``AUTOMODEL_LAUNCH_SLURM_TIMEOUT`` (seconds, more than 0 and at most 3600) replaces the
``query`` and ``submit`` timeouts: a slow controller. Preflight's probes keep theirs.

One error family: :class:`SlurmError` (exit 1); :class:`NoSlurm` (nothing to ask: the
program is not on PATH or cannot start), :class:`Unanswered` (its time was up) and
:class:`Refused` (it exited non-zero where that means no) are its kinds. A job id reaches
a command line only after :func:`~automodel_launch.launchers.ids.is_scheduler_id` said it is
one, and only after ``--`` or ``=``: a value can never become an option.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from automodel_launch.launchers.ids import is_scheduler_id
from automodel_launch.launchers.slurm.cluster.commands import (
    MAX_OUTPUT,
    Answer,
    NoSlurm,
    SlurmError,
    Unanswered,
    find,
    run,
)
from automodel_launch.launchers.slurm.cluster.transport import Transport, current_transport
from automodel_launch.secrets import display, looks_like_token

__all__ = [
    "Answer", "Dependency", "NoSlurm", "Refused", "SlurmClient", "SlurmError", "Submission",
    "Unanswered", "Unparsed", "timeout",
]  # fmt: skip

Kind = Literal["query", "submit", "probe"]
QUERY = 30.0
SUBMIT = 120.0
PROBE = 5.0
TIMEOUT_VARIABLE = "AUTOMODEL_LAUNCH_SLURM_TIMEOUT"
PROGRAMS = frozenset(
    {"sbatch", "squeue", "sacct", "scontrol", "scancel", "sinfo", "srun", "sacctmgr", "enroot"}
)
"""What the client runs (enroot: the container runtime preflight asks for its version)."""
SBATCH_OUTPUT = 1024 * 1024
"""Bytes of sbatch's answer kept: an id, or a refusal of a few lines."""
MAX_IDS = 100_000
"""Ids of one scancel, sacct or dependency: a sweep's tasks, with room."""
CLUSTER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_DEFAULTS = {"query": QUERY, "submit": SUBMIT}


def timeout(default: float = QUERY) -> float:
    """The timeout of one query or submit: ``default``, unless :data:`TIMEOUT_VARIABLE` says."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, default))
    except ValueError:
        return default
    return value if 0 < value <= 3600 else default


class Refused(SlurmError):
    """The command exited non-zero where that means no; ``answer`` is what it said."""

    def __init__(self, message: str, answer: Answer) -> None:
        super().__init__(message)
        self.answer = answer


class Unparsed(SlurmError):
    """``sbatch --parsable`` answered no job id this tool can read: the job may have been
    submitted all the same."""


def said(text: str) -> str:
    """What a command printed, as one clean line."""
    return display("; ".join(line.strip() for line in text.splitlines() if line.strip()))


def checked_ids(ids: Sequence[str], what: str) -> list[str]:
    """``ids``, each a Slurm job id (``1234``, ``1234_7``); :class:`SlurmError` naming the
    first that is not (``--me`` given to scancel cancels every job of the user)."""
    if not ids:
        raise SlurmError(f"{what}: no job id given")
    if len(ids) > MAX_IDS:
        raise SlurmError(f"{what}: {len(ids)} job ids, more than {MAX_IDS} at once")
    for job_id in ids:
        if not is_scheduler_id("slurm", job_id):
            shown = display(job_id)
            raise SlurmError(f"{what}: {shown!r} is not a Slurm job id: Slurm was not asked")
    return list(ids)


@dataclass(frozen=True)
class Dependency:
    """``--dependency=afterok:ID[:ID...]`` (start after each ended well) or ``afterany``
    (after each ended, however); the ids are checked when it is made."""

    kind: Literal["afterok", "afterany"]
    ids: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in ("afterok", "afterany"):
            raise SlurmError(f"dependency: {display(str(self.kind))!r} is not afterok or afterany")
        checked_ids(self.ids, "dependency")

    @property
    def option(self) -> str:
        return f"--dependency={self.kind}:{':'.join(self.ids)}"


@dataclass(frozen=True)
class Submission:
    """What ``sbatch --parsable`` answered: ``ID`` or ``ID;CLUSTER`` (an array's id too)."""

    job_id: str
    cluster: str | None = None

    @classmethod
    def read(cls, answer: Answer) -> Submission:
        """The id and cluster of the one line sbatch printed; :class:`Unparsed` otherwise
        (anything else would reach scancel later)."""
        lines = answer.stdout.strip().splitlines()
        if len(lines) == 1 and not answer.truncated:
            job_id, _, cluster = lines[0].strip().partition(";")
            if is_scheduler_id("slurm", job_id) and (
                not cluster or (CLUSTER.fullmatch(cluster) and not looks_like_token(cluster))
            ):
                return cls(job_id, cluster or None)
        raise Unparsed(
            "sbatch answered with no job id this tool can read: "
            f"{said(answer.stdout) or 'nothing'}; the job may have been submitted: "
            "look with squeue before submitting again"
        )


@dataclass(frozen=True)
class SlurmClient:
    """Slurm's commands as this tool runs them (see the module's docstring for the rules).

    ``environ``: the environment the commands run in (None: this process's; preflight
    passes its own PATH and SLURM_CONF). ``probe_timeout``: seconds of a preflight probe.
    """

    environ: Mapping[str, str] | None = None
    probe_timeout: float = PROBE
    transport: Transport | None = None
    """Where the commands run: None, the one :func:`current_transport` names (a named
    cluster's shell over SSH), else this host."""

    @property
    def remote(self) -> Transport | None:
        return self.transport or current_transport()

    def has(self, program: str) -> bool:
        """``program`` is on PATH (the cluster's, for a remote one)."""
        remote = self.remote
        if remote is not None:
            return remote.has(program)
        return find(program, self.environ) is not None

    def timeout(self, kind: Kind) -> float:
        if kind == "probe":
            return self.probe_timeout
        return timeout(_DEFAULTS[kind])

    def run(
        self,
        command: Sequence[str],
        kind: Kind,
        *,
        cwd: str | Path | None = None,
        limit: int = MAX_OUTPUT,
        seconds: float | None = None,
        stdin: bytes | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> Answer:
        """Run one Slurm command; its answer whatever its exit status.

        :class:`NoSlurm` when it cannot be started, :class:`Unanswered` after its
        timeout (``seconds``, else its kind's), named by the program for a query or a
        submit and by the whole command for a probe (preflight runs several of one).
        """
        program = command[0]
        if program not in PROGRAMS:
            raise ValueError(f"{program} is not one of Slurm's commands")
        name = f"`{' '.join(command)}`" if kind == "probe" else program
        remote = self.remote
        if remote is not None:
            return remote.run(
                command, timeout=self.timeout(kind) if seconds is None else seconds,
                cwd=None if cwd is None else remote.where(str(cwd)), limit=limit, name=name,
                stdin=stdin, secrets=secrets,
            )  # fmt: skip
        if stdin is not None or secrets:
            raise ValueError("standard input and credentials are given to a remote command only")
        return run(
            command,
            timeout=self.timeout(kind) if seconds is None else seconds,
            cwd=None if cwd is None else str(cwd),
            environ=self.environ,
            limit=limit,
            name=name,
        )

    def query(self, *command: str) -> Answer:
        """A query (squeue, sacct, scancel): :class:`NoSlurm` when the program is not on
        PATH, and a :class:`SlurmError` when its answer was cut (it is not read)."""
        if not self.has(command[0]):
            raise NoSlurm(f"{command[0]} is not on PATH")
        answer = self.run(command, "query")
        if answer.truncated:
            raise SlurmError(f"{command[0]} said more than this tool reads: not read")
        return answer

    def probe(self, *command: str) -> Answer:
        """A preflight probe: a short timeout, the answer whatever it says."""
        return self.run(command, "probe")

    # ---------------------------------------------------------------- sbatch
    def sbatch(
        self,
        script: str,
        *,
        cwd: str | Path,
        test_only: bool = False,
        dependency: Dependency | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> Answer:
        """``sbatch --export=ALL [--dependency=...] --parsable|--test-only SCRIPT`` in
        ``cwd`` (the submitting environment travels with the job). An array is written
        in the script (``#SBATCH --array=0-N%K``): nothing more is needed here.

        On a named cluster (:attr:`remote`) the environment is the cluster's, with
        ``secrets`` (the credentials the job references, from this host) added for sbatch
        alone through the shell's standard input; a ``--test-only`` reads the script from
        standard input, so it needs no job directory there.

        :class:`NoSlurm` (not on PATH, or cannot start), :class:`Unanswered`,
        :class:`Refused` when sbatch refuses the job. Read the id with
        :meth:`Submission.read`; :meth:`submit` does both.
        """
        if not self.has("sbatch"):
            raise NoSlurm("sbatch is not on PATH: submit from a Slurm login node")
        command = self._sbatch_command(script, test_only, dependency)
        if test_only and self.remote is not None:
            answer = self.run(command[:-1], "submit", stdin=_script(cwd, script),
                              limit=SBATCH_OUTPUT)  # fmt: skip
        else:
            answer = self.run(command, "submit", cwd=cwd, limit=SBATCH_OUTPUT, secrets=secrets)
        if answer.returncode != 0:
            why = said(answer.stderr) or said(answer.stdout)
            raise Refused(f"sbatch refused the job: {why}", answer)
        return answer

    def submit(
        self,
        script: str,
        *,
        cwd: str | Path,
        dependency: Dependency | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> Submission:
        """``sbatch --parsable`` and its job id (an array's: its tasks are ``ID_INDEX``)."""
        answer = self.sbatch(script, cwd=cwd, dependency=dependency, secrets=secrets)
        return Submission.read(answer)

    def test_only(
        self, script: str, *, cwd: str | Path, dependency: Dependency | None = None
    ) -> Answer:
        """Preflight's ``sbatch --test-only``: twice a probe's time, the answer whatever
        it says (a refusal is a finding, not an error)."""
        command = self._sbatch_command(script, True, dependency)
        seconds = 2 * self.probe_timeout
        if self.remote is not None:
            return self.run(command[:-1], "probe", stdin=_script(cwd, script), seconds=seconds)
        return self.run(command, "probe", cwd=cwd, seconds=seconds)

    @staticmethod
    def _sbatch_command(script: str, test_only: bool, dependency: Dependency | None) -> list[str]:
        if script.startswith("-"):
            raise SlurmError(f"sbatch: the script {display(script)!r} reads as an option")
        extra = [] if dependency is None else [dependency.option]
        return ["sbatch", "--export=ALL", *extra, "--test-only" if test_only else "--parsable",
                script]  # fmt: skip

    # ---------------------------------------------------------------- jobs
    def squeue(self) -> Answer:
        """``squeue --json``: every job the controller keeps, whatever filter is given
        (22.05), so one call answers for any number of jobs and array tasks; read it with
        :func:`automodel_launch.launchers.slurm.output.squeue_jobs`. :class:`Refused` when it
        fails."""
        answer = self.query("squeue", "--json")
        if answer.returncode != 0:
            raise Refused(f"squeue failed: {display(answer.said)}", answer)
        return answer

    def sacct(self, ids: Sequence[str]) -> Answer | None:
        """Accounting's one line per job or array task of ``ids`` (an array's id gives its
        tasks, ``1234_0``..., and its pending ones as ``1234_[2-5%2]``), in one call:
        ``sacct -n -P -X --jobs=ID,ID... -o JobID,...``; read it with
        :func:`automodel_launch.launchers.slurm.output.sacct_records`. None where the cluster
        keeps no accounting (no sacct, or it refuses)."""
        from automodel_launch.launchers.slurm.output import SACCT_FIELDS

        listed = ",".join(checked_ids(ids, "sacct"))
        if not self.has("sacct"):
            return None
        answer = self.query("sacct", "-n", "-P", "-X", f"--jobs={listed}", "-o", SACCT_FIELDS)
        return answer if answer.returncode == 0 else None  # "accounting storage is disabled"

    def scancel(self, ids: Sequence[str]) -> None:
        """``scancel -- ID...``: jobs, array tasks (``1234_7``) or whole arrays (``1234``)
        in one call. :class:`Refused` when scancel refuses."""
        checked = checked_ids(ids, "scancel")
        answer = self.query("scancel", "--", *checked)
        if answer.returncode != 0:
            raise Refused(f"scancel refused: {display(answer.said)}", answer)


def _script(cwd: str | Path, script: str) -> bytes:
    """The script's bytes, for a remote ``sbatch --test-only`` reading standard input."""
    from automodel_launch.loading.files import NotRegular, TooLarge, read_regular

    try:
        return read_regular(Path(cwd) / script, SBATCH_OUTPUT)
    except (OSError, NotRegular, TooLarge) as exc:
        raise SlurmError(f"cannot read the script {script} to send: {exc}") from None
