"""Running Slurm's client commands: each with a timeout, never a hang.

Three outcomes: an answer; :class:`Unanswered` (the command was still running when its
time was up: a slow or overloaded controller); :class:`NoSlurm` (nothing to ask: no
Slurm commands, no configuration, no controller). Both are :class:`SlurmError`, the one
error of :mod:`.client`, through which every Slurm command runs
(its timeouts are stated there).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from automodel_launch.errors import LaunchError

TIMEOUT = 5.0
"""Seconds a command may take unless told; Slurm's commands are told by
:class:`~.client.SlurmClient`, whose docstring states the policy."""


class SlurmError(LaunchError):
    """A Slurm command could not be run, did not answer, refused, or said what cannot be
    read; the message says which command and why (exit 1)."""


class NoSlurm(SlurmError):
    """This host cannot reach any Slurm: the message says why and what to do."""


class Unanswered(SlurmError):
    """A command did not answer within its timeout.

    ``name``: how the message names the command (default: the whole command line, quoted).
    """

    def __init__(
        self, command: Sequence[str], timeout: float, stderr: str, name: str | None = None
    ) -> None:
        said = name or f"`{' '.join(command)}`"
        super().__init__(f"{said} did not answer within {timeout:g}s")
        self.command = tuple(command)
        self.timeout = timeout
        self.stderr = stderr


@dataclass(frozen=True)
class Answer:
    returncode: int
    stdout: str
    stderr: str
    truncated: bool = False
    """The command said more than :data:`MAX_OUTPUT` bytes: it was stopped there."""

    @property
    def said(self) -> str:
        """What the command said about a failure: its ``fatal:`` line, else its first line."""
        lines = (self.stderr.strip() or self.stdout.strip()).splitlines()
        fatal = [line for line in lines if "fatal:" in line]
        return (fatal or lines or [f"exit status {self.returncode}"])[-1 if fatal else 0]


MAX_OUTPUT = 64 * 1024 * 1024
"""Bytes kept of one stream; a command that says more is stopped (``squeue --json`` of a
busy cluster is a few megabytes)."""


def run(
    command: Sequence[str],
    *,
    timeout: float = TIMEOUT,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
    limit: int = MAX_OUTPUT,
    name: str | None = None,
) -> Answer:
    """Run a command without standard input; its output decoded as UTF-8 (a byte that is
    not becomes U+FFFD) and cut at ``limit`` bytes a stream. :class:`Unanswered` (naming
    the command as ``name`` says) after ``timeout`` seconds; the command and whatever it
    started are killed then, when it says too much, and when this process is interrupted
    (Ctrl-C, SIGTERM)."""
    try:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if environ is None else dict(environ),
            start_new_session=True,
        )
    except OSError as exc:
        raise NoSlurm(f"cannot run {command[0]}: {exc.strerror or exc}") from None
    try:
        return _answer(process, command, timeout, limit, name)
    except Unanswered:
        raise
    except BaseException:
        # Ctrl-C or SIGTERM: the command, in a session of its own, gets neither; it must
        # not go on (a minute of retries) after this process is gone
        _kill(process)
        raise


def _answer(
    process: subprocess.Popen[bytes],
    command: Sequence[str],
    timeout: float,
    limit: int,
    name: str | None,
) -> Answer:
    streams = {process.stdout: bytearray(), process.stderr: bytearray()}
    truncated = False
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for stream in streams:
            selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
        while selector.get_map() and not truncated:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill(process)
                raise Unanswered(command, timeout, _text(streams[process.stderr]), name)
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 1 << 16)
                kept = streams[key.fileobj]  # type: ignore[index]
                if not chunk:
                    selector.unregister(key.fileobj)
                elif len(kept) + len(chunk) > limit:
                    kept += chunk[: limit - len(kept)]
                    truncated = True
                else:
                    kept += chunk
    if truncated:
        _kill(process)
    try:
        returncode = process.wait(max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(process)
        raise Unanswered(command, timeout, _text(streams[process.stderr]), name) from None
    finally:
        for stream in streams:
            stream.close()  # type: ignore[union-attr]
    stdout, stderr = (_text(streams[s]) for s in (process.stdout, process.stderr))
    return Answer(returncode, stdout, stderr, truncated)


def _text(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        process.wait(5)


def find(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    path = None if environ is None else environ.get("PATH")
    return shutil.which(name, path=path)
