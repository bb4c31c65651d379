"""One SSH connection per command, shared by everything the command runs there.

The system's OpenSSH client does the work, so the user's keys, agent, ``~/.ssh/config``
and ``known_hosts`` apply. :meth:`Connection.open` starts a master connection
(``ControlMaster``) whose socket is in a private directory (mode 0700) made for this
process; every later ``ssh`` (the shell of :mod:`.shell`, rsync's) is a session over it,
so a ``submit`` authenticates once and opens two sessions: the shell and the copy.
:meth:`Connection.close` stops the master and removes the directory; ``ControlPersist``
ends a master left behind by a killed process after a minute.

Host keys are always checked (``StrictHostKeyChecking=yes``, given first, so no
configuration can lower it) and ssh never asks (``BatchMode=yes``): a key that needs a
passphrase must be in the agent. What ssh says when it fails becomes one line
(:func:`why`): unreachable, unknown host key, refused key, dropped.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from automodel_launch.launchers.slurm.cluster.client import NoSlurm
from automodel_launch.remote.clusters import Remote
from automodel_launch.secrets import display

CONNECT_TIMEOUT = 15
"""Seconds ssh waits for the server's answer before it gives up (``ConnectTimeout``)."""
PERSIST = 60
"""Seconds an idle master lives on when this process could not stop it."""
ALIVE = 5
"""Seconds between keep-alive probes; three unanswered mean the connection dropped."""


class RemoteError(NoSlurm):
    """The cluster could not be reached or the connection dropped: one line saying which
    and what to do (exit 1). A :class:`NoSlurm`, so every caller that copes with a
    cluster that cannot be asked (``status`` keeping the last state) copes with this."""


def why(remote: Remote, said: str, doing: str = "connect") -> str:
    """ssh's complaint as one line naming the cluster and the fix; ``doing``: "connect",
    or what was under way when the connection failed ("copying the job directory")."""
    text = said.lower()
    host = remote.shown
    if "host key verification failed" in text or ("no " in text and "host key is known" in text):
        return (
            f"cannot connect to {host}: its host key is not in known_hosts, or it changed; "
            f"check it and accept it once with `ssh {remote.host}` (host keys are always checked)"
        )
    if "permission denied" in text or "too many authentication failures" in text:
        return (
            f"{host} refused the key: add a key the server accepts to ssh_options "
            "(-i KEY) or to your ssh agent"
        )
    reasons = ("connection refused", "no route to host", "timed out", "could not resolve",
               "name or service not known", "network is unreachable", "connection closed",
               "connection reset", "broken pipe", "timeout, server",
               "unexpectedly closed")  # fmt: skip
    found = next((r for r in reasons if r in text), None)
    if found is not None and doing == "connect":
        return f"cannot reach {host}: {found}; check the host, the port and the network"
    if found is not None or not said.strip():
        return f"the connection to {host} dropped while {doing}"
    last = [line for line in said.strip().splitlines() if line.strip()][-1]
    return f"ssh to {host} failed: {display(last)}"


@dataclass
class Connection:
    """An SSH master connection to ``remote``, for one command of this tool."""

    remote: Remote
    directory: Path | None = None
    opened: bool = False
    _log: Path | None = field(default=None, repr=False)

    def options(self) -> list[str]:
        """Every ssh option but the destination: the sharing, the checks, the user's."""
        assert self.directory is not None
        port = [] if self.remote.port is None else ["-p", str(self.remote.port)]
        return [
            "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
            "-o", f"ControlPath={self.directory}/master", "-o", f"ConnectTimeout={CONNECT_TIMEOUT}",
            "-o", f"ServerAliveInterval={ALIVE}", "-o", "ServerAliveCountMax=3",
            *port, *self.remote.ssh_options,
        ]  # fmt: skip

    def command(self, *words: str) -> list[str]:
        """``ssh ... HOST -- WORDS``: a session over the master; ``WORDS`` are the remote
        shell's to read (quote them)."""
        return ["ssh", *self.options(), "-o", "ControlMaster=no", self.remote.host, "--", *words]

    def open(self) -> Connection:
        """Connect and authenticate once; :class:`RemoteError` naming why not."""
        if shutil.which("ssh") is None:
            raise RemoteError("ssh is not on PATH: install OpenSSH's client to submit remotely")
        self.directory = Path(tempfile.mkdtemp(prefix="aml-ssh-", dir=_short_tmp()))
        self._log = self.directory / "ssh.log"
        master = ["ssh", *self.options(), "-o", "ControlMaster=yes",
                  "-o", f"ControlPersist={PERSIST}", "-N", "-f", "-E", str(self._log),
                  self.remote.host]  # fmt: skip
        try:
            done = subprocess.run(
                master, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, timeout=CONNECT_TIMEOUT * 2 + 10, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            self.close()
            raise RemoteError(f"cannot reach {self.remote.shown}: no answer in time") from None
        if done.returncode != 0:
            said = self.said()
            self.close()
            raise RemoteError(why(self.remote, said))
        self.opened = True
        return self

    def said(self) -> str:
        """What ssh wrote to its log (bounded)."""
        if self._log is None:
            return ""
        with contextlib.suppress(OSError), open(self._log, "rb") as log:
            return log.read(64 * 1024).decode("utf-8", errors="replace")
        return ""

    def rsync_shell(self) -> str:
        """rsync's ``-e``: this ssh, over the master (rsync splits it at spaces and keeps
        quoted words whole)."""
        words = ["ssh", *self.options(), "-o", "ControlMaster=no"]
        return " ".join(_rsync_word(w) for w in words)

    def close(self) -> None:
        """Stop the master (when one runs) and remove the private directory."""
        if self.directory is None:
            return
        if self.opened:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                subprocess.run(
                    ["ssh", *self.options(), "-O", "exit", self.remote.host],
                    stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False,
                )  # fmt: skip
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory, self.opened = None, False

    def __enter__(self) -> Connection:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _short_tmp() -> str:
    """A temporary directory whose socket paths fit (a Unix socket's path is ~100 bytes)."""
    base = tempfile.gettempdir()
    return base if len(base) <= 40 else "/tmp"


def _rsync_word(word: str) -> str:
    if not any(c in word for c in " \t'\""):
        return word
    return f'"{word}"' if "'" in word else f"'{word}'"


def quoted(words: Sequence[str]) -> str:
    """``words`` as one line of POSIX shell, each word as written."""
    import shlex

    return " ".join(shlex.quote(w) for w in words)
