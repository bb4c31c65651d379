"""Read the cluster once per run: each command is asked at most once, when first needed."""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from automodel_launch.launchers.slurm.cluster import parse
from automodel_launch.launchers.slurm.cluster.client import (
    PROBE,
    Answer,
    NoSlurm,
    SlurmClient,
    Unanswered,
)
from automodel_launch.launchers.slurm.cluster.model import Association, Cluster, Unreadable

_NOT_CONFIGURED = ("s_p_parse_file", "cannot stat", "configuration", "ClusterName")
"""What Slurm's clients say (and retry for a minute) without a readable slurm.conf."""
NO_SLURM_HINT = "run it on a Slurm login node (SLURM_CONF set if slurm.conf is elsewhere)"


@dataclass
class ClusterReader:
    """The cluster as this host's Slurm commands describe it, read lazily and kept."""

    timeout: float = PROBE
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    client: SlurmClient = field(init=False)
    _cluster: Cluster | None = None
    _failure: Exception | None = None
    _asked_programs: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.client = SlurmClient(self.environ, probe_timeout=self.timeout)

    def cluster(self) -> Cluster:
        """Partitions, nodes and configuration; raises :class:`NoSlurm` or :class:`Unanswered`
        (and the same again on every later call: a dead cluster is not asked twice)."""
        if self._failure is not None:
            raise self._failure
        if self._cluster is None:
            try:
                self._cluster = self._read()
            except (NoSlurm, Unanswered) as exc:
                self._failure = exc
                raise
        return self._cluster

    @property
    def unreadable(self) -> list[Unreadable]:
        """What the commands asked so far printed that could not be read."""
        return [] if self._cluster is None else self._cluster.unreadable

    def _ask(self, *command: str) -> Answer:
        return self.client.probe(*command)

    def _read(self) -> Cluster:
        if not self.client.has("scontrol"):
            raise NoSlurm(f"no Slurm on this host: scontrol is not on PATH; {NO_SLURM_HINT}")
        self._ping()
        # --all: hidden partitions too; a job may name one, and it is no "unknown partition"
        partitions = self._ask("scontrol", "--all", "show", "partition", "-o")
        if partitions.returncode != 0:
            raise NoSlurm(f"scontrol show partition failed: {partitions.said}")
        nodes = self._ask("scontrol", "--all", "show", "node", "-o")
        config = self._ask("scontrol", "show", "config")
        notes: list[Unreadable] = []
        read_partitions = parse.partitions(_output(partitions, parse.PARTITIONS, notes), notes)
        read_nodes = parse.nodes(_output(nodes, parse.NODES, notes), notes)
        settings = parse.config(_output(config, parse.CONFIG, notes))
        return Cluster(
            partitions=read_partitions,
            nodes=read_nodes,
            config=settings,
            max_array_size=parse.max_array_size(settings, notes),
            unreadable=notes,
        )

    def _ping(self) -> None:
        try:
            ping = self._ask("scontrol", "ping")
        except Unanswered as exc:
            if any(word in exc.stderr for word in _NOT_CONFIGURED):
                said = exc.stderr.strip().splitlines()[0]
                raise NoSlurm(f"Slurm is not configured on this host ({said})") from None
            raise
        if ping.returncode == 0:
            return
        if "DOWN" in ping.stdout:
            line = ping.stdout.strip().splitlines()[0]
            raise NoSlurm(f"the Slurm controller does not answer (scontrol ping: {line})")
        raise NoSlurm(f"Slurm is not usable on this host (scontrol ping: {ping.said})")

    def pyxis(self) -> bool | None:
        """pyxis on the cluster (``--container-image`` in ``srun --help``); None: unknown."""
        cluster = self.cluster()
        if cluster.pyxis is None and not self._asked("srun"):
            answer = self._try(cluster, "srun --help", "srun", "--help")
            if answer is not None:
                cluster.pyxis = parse.has_pyxis(answer.stdout + answer.stderr)
        return cluster.pyxis

    def enroot_version(self) -> tuple[int, ...] | None:
        """``enroot version`` on this host (login nodes often have none: None)."""
        cluster = self.cluster()
        if cluster.enroot_version is None and not self._asked("enroot"):
            if not self.client.has("enroot"):
                return None
            answer = self._try(cluster, "enroot version", "enroot", "version")
            if answer is not None:
                cluster.enroot_version = parse.version(answer.stdout)
                if cluster.enroot_version is None:
                    notes = parse.Notes("enroot version", cluster.unreadable)
                    notes.unreadable("its version", answer.stdout.strip())
        return cluster.enroot_version

    def associations(self) -> list[Association] | None:
        """The user's associations where the cluster keeps accounting; None otherwise."""
        cluster = self.cluster()
        if not cluster.accounting:
            return None
        if cluster.associations is None:
            if self._asked("sacctmgr"):
                return None
            user = self.environ.get("USER") or getpass.getuser()
            where = [f"user={user}"]
            if cluster.name is not None:
                where.append(f"cluster={cluster.name}")
            answer = self._try(
                cluster, parse.SACCTMGR, "sacctmgr", "-nP", "show", "assoc", "where", *where,
                "format=account,partition,qos",
            )  # fmt: skip
            if answer is None:
                return None
            cluster.associations = parse.associations(answer.stdout, cluster.unreadable)
        return cluster.associations

    def _asked(self, program: str) -> bool:
        """Whether ``program`` was asked already (and gave nothing to read): once a run."""
        asked = program in self._asked_programs
        self._asked_programs.add(program)
        return asked

    def _try(self, cluster: Cluster, name: str, *command: str) -> Answer | None:
        """A command's answer; None (noted under ``name``) when it failed, did not answer
        or cannot be run."""
        try:
            answer = self._ask(*command)
        except Unanswered:
            cluster.unreadable.append(Unreadable(name, f"did not answer within {self.timeout:g}s"))
            return None
        except NoSlurm as exc:
            cluster.unreadable.append(Unreadable(name, str(exc)))
            return None
        _output(answer, name, cluster.unreadable)
        return answer if answer.returncode == 0 else None

    def test_only(self, script: str, cwd: str) -> Answer:
        """``sbatch --test-only`` on a written script: the scheduler's estimate or refusal."""
        return self.client.test_only(script, cwd=cwd)


def _output(answer: Answer, command: str, notes: list[Unreadable]) -> str:
    """The standard output to parse: none (noted) after a failure; noted when cut."""
    if answer.returncode != 0:
        notes.append(Unreadable(command, f"exit status {answer.returncode}: {answer.said}"))
        return ""
    if answer.truncated:
        notes.append(Unreadable(command, "its answer was too long and was cut"))
    return answer.stdout
