"""Preflight of validated reports against the live cluster.

:class:`Preflight` adds the cluster's findings to each file's report, as diagnostics at
the fields' lines; its reader asks the cluster once for the whole run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from automodel_launch.diagnostics import sort_key
from automodel_launch.launchers.slurm.cluster import access, arrays, resources, rules
from automodel_launch.launchers.slurm.cluster.client import Unanswered
from automodel_launch.launchers.slurm.cluster.model import Cluster, Unreadable
from automodel_launch.launchers.slurm.cluster.parse import test_only_answer
from automodel_launch.launchers.slurm.cluster.reader import ClusterReader
from automodel_launch.layout import SLURM_SCRIPT
from automodel_launch.results import FileReport
from automodel_launch.secrets import display

ScriptOf = Callable[[FileReport, Path], str | None]
"""Renders a report's SBATCH script for a job directory (None: it cannot be rendered)."""


REFUSALS = {
    "Invalid feature specification": "constraint",
    "reservation": "reservation",
    "Invalid qos": "qos",
    "Invalid account": "account",
    "invalid partition": "partition",
    "Invalid dependency": "dependency",
}
"""Words of sbatch's refusal -> the field it is about (else it is reported at ``slurm:``)."""


@dataclass
class Preflight:
    reader: ClusterReader = field(default_factory=ClusterReader)

    def check(self, report: FileReport, script_of: ScriptOf | None = None) -> None:
        """Add the cluster's diagnostics to a report of a valid ``slurm:`` config.

        ``script_of`` given: when the cluster finds nothing wrong (nor nodes out of
        service, which ``--test-only`` refuses a job for), ``sbatch --test-only`` judges
        the rendered script, and its estimate is a note. Raises
        :class:`~.client.NoSlurm` when there is no cluster.
        """
        document, loaded = report.document, report.loaded
        if document is None or loaded is None or document.slurm is None:
            return
        sink = loaded.collector()
        written = loaded.data.get("slurm")
        job = rules.Job(document.slurm, written if isinstance(written, dict) else {}, sink)
        try:
            self._rules(job)
            if script_of is not None and not any(
                d.is_error or d.code == rules.OUT_OF_SERVICE for d in sink.items
            ):
                self._test_only(job, report, script_of)
        except Unanswered as exc:
            sink.add(
                "cluster-unanswered", rules.SECTION,
                f"the cluster was not checked: {exc}",
                "check `scontrol ping` and try again; `submit --no-preflight` skips the check",
                at_key=True,
            )  # fmt: skip
        unreadable(job, self.reader.unreadable)
        report.diagnostics = sorted(report.diagnostics + sink.items, key=sort_key)

    def check_array(
        self, report: FileReport, tasks: int, max_parallel: int | None, last: int | None = None
    ) -> None:
        """Add the findings on a job array of ``tasks`` tasks (its largest index ``last``;
        None: ``tasks - 1``), at most ``max_parallel`` at once (None: no cap), to the
        report of one of its points: the array's size against
        MaxArraySize and its tasks at once against the partition (:mod:`.arrays`). Once a
        sweep; :meth:`check` checks each point as one job (the partition's limits apply
        per task). Raises :class:`~.client.NoSlurm` when there is
        no cluster; a cluster that does not answer is :meth:`check`'s to report."""
        document, loaded = report.document, report.loaded
        if document is None or loaded is None or document.slurm is None:
            return
        sink = loaded.collector()
        written = loaded.data.get("slurm")
        job = rules.Job(document.slurm, written if isinstance(written, dict) else {}, sink)
        try:
            arrays.check_array(job, self.reader.cluster(), tasks, max_parallel, last)
        except Unanswered:
            return
        report.diagnostics = sorted(report.diagnostics + sink.items, key=sort_key)

    def _rules(self, job: rules.Job) -> None:
        cluster = self.reader.cluster()
        partition = rules.check_partition(job, cluster)
        if partition is not None:
            rules.check_state(job, cluster, partition)
            rules.check_time(job, cluster, partition)
            rules.check_nodes(job, cluster, partition)
            rules.check_health(job, cluster, partition)
            resources.check_gpus(job, cluster, partition)
            resources.check_cpus(job, cluster, partition)
            resources.check_mem(job, cluster, partition)
        self._associations(job, cluster, partition.name if partition is not None else None)
        if job.cfg.container_image is not None:
            access.check_container(job, self.reader.pyxis(), self.reader.enroot_version())

    def _associations(self, job: rules.Job, cluster: Cluster, partition: str | None) -> None:
        """Account and qos against sacctmgr's associations where Slurm enforces them;
        else one note that they were not checked, and why."""
        account, qos = job.cfg.account, job.cfg.qos
        if account is None and qos is None:
            return
        enforce = cluster.config.get("AccountingStorageEnforce", "?")
        if not cluster.accounting:
            why = (
                "the cluster keeps no accounting (AccountingStorageType="
                f"{cluster.config.get('AccountingStorageType', '?')}), so Slurm accepts any"
            )
        elif not cluster.enforces("associations"):
            why = f"Slurm does not enforce associations here (AccountingStorageEnforce={enforce})"
        else:
            associations = self.reader.associations()
            if associations is not None:
                access.check_associations(job, associations, partition, qos=cluster.enforces("qos"))
                return
            why = "sacctmgr did not list your associations"
        named = [f"{n} '{v}'" for n, v in (("account", account), ("qos", qos)) if v]
        job.add(
            "associations-not-checked", "account" if account else "qos",
            f"{' and '.join(named)} {'were' if len(named) > 1 else 'was'} not checked: {why}",
        )  # fmt: skip

    def _test_only(self, job: rules.Job, report: FileReport, script_of: ScriptOf) -> None:
        with tempfile.TemporaryDirectory(prefix="automodel-launch-preflight-") as tmp:
            script = script_of(report, Path(tmp))
            if script is None:
                return
            (Path(tmp) / SLURM_SCRIPT).write_text(script, encoding="utf-8")
            answer = self.reader.test_only(SLURM_SCRIPT, tmp)
        said = test_only_answer(answer.stderr or answer.stdout)
        if answer.returncode != 0:
            about = next((f for text, f in REFUSALS.items() if text in said), "")
            job.add(
                "sbatch-refused", about, f"sbatch --test-only refused the job: {said}",
                "the message is Slurm's own; compare the request with `sinfo -o '%P %D %c %m "
                "%G %f'` and `scontrol show reservation`",
            )  # fmt: skip
        else:
            message = f"sbatch --test-only: {said}"
            job.sink.add("sbatch-estimate", rules.SECTION, message, at_key=True)


SHOWN_PER_COMMAND = 3


def unreadable(job: rules.Job, notes: list[Unreadable]) -> None:
    """One ``scheduler-output`` note per command whose answer could not all be read."""
    commands = list(dict.fromkeys(note.command for note in notes))
    for command in commands:
        said = [note.said for note in notes if note.command == command]
        more = len(said) - SHOWN_PER_COMMAND
        listed = "; ".join(said[:SHOWN_PER_COMMAND]) + (f"; and {more} more" if more > 0 else "")
        job.sink.add(
            "scheduler-output", rules.SECTION,
            display(f"`{command}`: {listed}; not checked"),
            at_key=True,
        )  # fmt: skip


def check_reports(
    reports: list[FileReport], script_of: ScriptOf | None = None, **reader: Any
) -> None:
    """Preflight every valid ``slurm:`` report with one reading of the cluster."""
    preflight = Preflight(ClusterReader(**reader))
    for report in reports:
        preflight.check(report, script_of)
