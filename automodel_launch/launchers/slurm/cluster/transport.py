"""Where Slurm's commands run: this host, or a named cluster's shell over SSH.

:class:`~automodel_launch.launchers.slurm.cluster.client.SlurmClient` runs every command through the
transport in play: the one a command entered with :func:`using` (a
:class:`~automodel_launch.remote.session.RemoteSession`), else this host's processes.
So preflight, submit, status, logs and cancel are the same code, local or remote.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from automodel_launch.launchers.slurm.cluster.commands import Answer


class Transport(Protocol):
    """Runs one command on the cluster, as :func:`~.commands.run`
    does here; ``stdin`` and ``secrets`` (variables of the command's environment alone)
    never reach a command line or a file."""

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
    ) -> Answer: ...

    def has(self, program: str) -> bool: ...

    def where(self, local: str) -> str:
        """The cluster's path of a job directory written here."""
        ...

    def push(self, local: Path) -> str:
        """Copy a job directory written here to its place there (whole or not at all)."""
        ...


_CURRENT: ContextVar[Transport | None] = ContextVar("slurm_transport", default=None)


def current_transport() -> Transport | None:
    return _CURRENT.get()


@contextlib.contextmanager
def using(transport: Transport | None) -> Iterator[None]:
    """Every Slurm command inside runs through ``transport`` (None: on this host)."""
    token = _CURRENT.set(transport)
    try:
        yield
    finally:
        _CURRENT.reset(token)
