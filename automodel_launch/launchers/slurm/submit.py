"""``sbatch`` the job directory's script; the submitting environment travels with it.

The command is run by :class:`.cluster.client.SlurmClient` (its timeout,
its reading of ``--parsable``: ``ID`` or ``ID;CLUSTER``, anything else is not taken as a
job id); here its errors become the submit's, and what sbatch said is shown cleaned.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.handover import SubmitError, Submitted
from automodel_launch.launchers.slurm.cluster.client import (
    Dependency,
    SlurmClient,
    SlurmError,
    Unparsed,
    said,
)
from automodel_launch.launchers.slurm.cluster.transport import Transport, current_transport
from automodel_launch.layout import SLURM_SCRIPT
from automodel_launch.secrets import is_secret_name

if TYPE_CHECKING:
    from automodel_launch.handover import Handover

SCRIPT = SLURM_SCRIPT


def submit_slurm(
    job_dir: Path,
    *,
    dry_run: bool = False,
    dependency: Dependency | None = None,
    credentials: Mapping[str, str] | None = None,
    script: str = SCRIPT,
    again: bool = False,
) -> Submitted:
    """``sbatch --parsable`` (``--test-only`` for a dry run) of the job directory's
    ``script``, after ``dependency`` when one is given. On a named cluster the directory is
    copied there first, and ``credentials`` reach sbatch's environment there, never a file;
    ``again``: it was copied already (an earlier array of the sweep runs from it), and
    stays if sbatch refuses."""
    client = SlurmClient()
    remote = current_transport()
    where: Path | str = job_dir
    try:
        if dry_run:
            answer = client.sbatch(script, cwd=job_dir, test_only=True, dependency=dependency)
            return Submitted(f"sbatch --test-only accepts the job: {said(answer.stderr)}")
        if remote is not None:
            where = remote.where(str(job_dir)) if again else remote.push(job_dir)
        submission = client.submit(
            script, cwd=job_dir, dependency=dependency,
            secrets=credentials if remote is not None else None,
        )  # fmt: skip
    except Unparsed as exc:
        raise SubmitError(str(exc), started=True) from None
    except SlurmError as exc:
        if remote is not None and where != job_dir and not again:  # copied, refused: no job
            _discard(remote, str(where))
        raise SubmitError(str(exc)) from None
    details = {} if submission.cluster is None else {"cluster": submission.cluster}
    there = "" if remote is None else f" (here: {job_dir})"
    return Submitted(
        f"submitted Slurm job {submission.job_id}; files and log in {where}{there}",
        submission.job_id,
        details,
    )


def _discard(remote: Transport, there: str) -> None:
    """Remove a job directory copied to a cluster whose sbatch refused the job."""
    with contextlib.suppress(SlurmError):
        remote.run(["rm", "-rf", "--", there], timeout=60, cwd=None, limit=65536, name="rm")


def hand_over(handover: Handover) -> Submitted:
    carried = None
    if current_transport() is not None:
        carried = referenced_credentials(handover.files.values(), handover.environ)
    return submit_slurm(
        handover.job_dir, dry_run=handover.dry_run, credentials=carried,
        script=handover.script or SCRIPT, again=handover.again,
    )  # fmt: skip


_REFERENCE = re.compile(r"\$\{(?:oc\.env:)?([A-Za-z_][A-Za-z0-9_]*)")


def referenced_credentials(texts: Iterable[str], environ: Mapping[str, str]) -> dict[str, str]:
    """The credentials (secret-named variables set in ``environ``) the job's files
    reference as ``${NAME}`` or ``${oc.env:NAME}``: what a job on a named cluster needs
    from this host's environment."""
    names = {name for text in texts for name in _REFERENCE.findall(text)}
    return {n: environ[n] for n in sorted(names) if is_secret_name(n) and environ.get(n)}
