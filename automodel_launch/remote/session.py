"""A command's session with a named cluster: one connection, one shell, the copies.

:class:`RemoteSession` is the :class:`~automodel_launch.launchers.slurm.cluster.transport.Transport`
of a named cluster: it connects on first use (a ``jobs`` listing of local jobs never does),
runs every Slurm command in its one shell, copies a job directory there before ``sbatch``
(:meth:`push`) and the job's logs back (:meth:`pull`), and maps each job directory written
here to its path there (:meth:`where`). :func:`connected` makes it the transport of the
commands inside, and closes it after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from automodel_launch.launchers.slurm.cluster.client import Answer, SlurmError
from automodel_launch.launchers.slurm.cluster.transport import using
from automodel_launch.layout import sweep_root
from automodel_launch.remote.clusters import ClusterError, Remote, find_remote
from automodel_launch.remote.shell import RemoteShell, ShellLost
from automodel_launch.remote.ssh import Connection, RemoteError, why

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest


@dataclass
class RemoteSession:
    remote: Remote
    places: dict[Path, PurePosixPath] = field(default_factory=dict)
    """Job directories written here -> theirs on the cluster."""
    connection: Connection | None = None
    shell: RemoteShell | None = None

    # ------------------------------------------------------------------ places
    def place(self, local: Path, there: str | PurePosixPath) -> None:
        self.places[Path(local).absolute()] = PurePosixPath(there)

    def where(self, local: str) -> str:
        """The cluster's path of ``local`` (a job directory, or a path inside one)."""
        path = Path(local).absolute()
        for mine, there in sorted(self.places.items(), key=lambda p: -len(str(p[0]))):
            if path == mine or mine in path.parents:
                return str(there / path.relative_to(mine))
        raise SlurmError(f"{local} is no job directory of {self.remote.shown}")

    # ------------------------------------------------------------------ commands
    def open(self) -> RemoteShell:
        """The shell, connecting first; :class:`RemoteError` naming why it cannot."""
        if self.shell is not None:
            return self.shell
        if self.connection is None:
            self.connection = Connection(self.remote).open()
        shell = RemoteShell(self.connection.command("sh"))
        try:
            shell.start()
        except ShellLost as exc:
            if exc.said.startswith("@@ missing "):
                tool = exc.said.removeprefix("@@ missing ")[:64]
                raise RemoteError(
                    f"{self.remote.shown} has no {tool}: its login node needs a POSIX sh with "
                    "base64, timeout, mktemp, head, wc and tr (GNU coreutils)"
                ) from None
            raise RemoteError(why(self.remote, exc.said, "starting a shell")) from None
        self.shell = shell
        return shell

    def run(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        cwd: str | None,
        limit: int,
        name: str | None,
        stdin: bytes | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> Answer:
        shell = self.open()
        try:
            return shell.run(command, timeout=timeout, cwd=cwd, limit=limit, name=name,
                             stdin=stdin, secrets=secrets)  # fmt: skip
        except ShellLost as exc:
            self.shell = None
            raise RemoteError(why(self.remote, exc.said, f"running {command[0]}")) from None

    def has(self, program: str) -> bool:
        shell = self.open()
        try:
            return shell.has(program)
        except ShellLost as exc:
            self.shell = None
            raise RemoteError(why(self.remote, exc.said, f"looking for {program}")) from None

    # ------------------------------------------------------------------ copies
    def push(self, local: Path) -> str:
        """Copy the job directory ``local`` to its place there, whole or not at all."""
        from automodel_launch.remote.transfer import push

        return push(self, local)

    def pull(self, local: Path) -> None:
        """Copy what the job wrote there (logs, error files, its exit status) back."""
        from automodel_launch.remote.transfer import pull

        pull(self, local)

    def close(self) -> None:
        shell, self.shell = self.shell, None
        if shell is not None:
            shell.close()
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.close()


@contextlib.contextmanager
def connected(session: RemoteSession | None) -> Iterator[RemoteSession | None]:
    """Every Slurm command inside runs in ``session``'s shell (None: on this host); the
    connection is closed after."""
    if session is None:
        yield None
        return
    try:
        with using(session):
            yield session
    finally:
        session.close()


def for_jobs(manifests: Sequence[Manifest]) -> RemoteSession | None:
    """The session of the named cluster ``manifests`` were submitted to (they share one;
    None: this host's), each job directory placed. The cluster's connection is the
    profile file's entry of that name; without one, the host and port the job recorded."""
    records = [m.remote for m in manifests if m.remote is not None]
    if not records:
        return None
    first = records[0]
    try:
        remote = find_remote(first.name)
    except ClusterError:
        remote = Remote(name=first.name, host=first.host, port=first.port, remote_dir="/")
    session = RemoteSession(remote)
    for manifest in manifests:
        if manifest.remote is not None:
            session.place(Path(manifest.job_dir), manifest.remote.job_dir)
            if manifest.sweep is not None:  # its sweep's directory: one copy for every point
                there = PurePosixPath(manifest.remote.job_dir)
                session.place(sweep_root(Path(manifest.job_dir)), there.parent.parent)
    return session


def output_roots(manifests: Sequence[Manifest]) -> list[Path]:
    """The directories to copy back for ``manifests``: a sweep's once for all its points."""
    roots = {sweep_root(Path(m.job_dir)) if m.sweep else Path(m.job_dir) for m in manifests}
    return sorted(roots)
