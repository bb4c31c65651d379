"""Running Slurm's client commands: each with a short timeout, never a hang.

Three outcomes: an answer; :class:`Unanswered` (the command was still running when its
time was up: a slow or overloaded controller); :class:`NoSlurm` (nothing to ask: no
Slurm commands, no configuration, no controller).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TIMEOUT = 5.0
"""Seconds one command may take. Slurm's clients retry an unreachable controller for
about 10 s and a missing configuration file for 60 s: the timeout cuts both short."""


class NoSlurm(Exception):
    """This host cannot reach any Slurm: the message says why and what to do."""


class Unanswered(Exception):
    """A command did not answer within its timeout."""

    def __init__(self, command: Sequence[str], timeout: float, stderr: str) -> None:
        super().__init__(f"`{' '.join(command)}` did not answer within {timeout:g}s")
        self.stderr = stderr


@dataclass(frozen=True)
class Answer:
    returncode: int
    stdout: str
    stderr: str

    @property
    def said(self) -> str:
        """What the command said about a failure: its ``fatal:`` line, else its first line."""
        lines = (self.stderr.strip() or self.stdout.strip()).splitlines()
        fatal = [line for line in lines if "fatal:" in line]
        return (fatal or lines or [f"exit status {self.returncode}"])[-1 if fatal else 0]


def run(
    command: Sequence[str],
    *,
    timeout: float = TIMEOUT,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Answer:
    """Run a command; :class:`Unanswered` after ``timeout`` seconds (the process is killed)."""
    try:
        done = subprocess.run(
            list(command),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=None if environ is None else dict(environ),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        partial = exc.stderr or b""
        text = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
        raise Unanswered(command, timeout, text) from None
    except OSError as exc:
        raise NoSlurm(f"cannot run {command[0]}: {exc.strerror or exc}") from None
    return Answer(done.returncode, done.stdout, done.stderr)


def find(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    path = None if environ is None else environ.get("PATH")
    return shutil.which(name, path=path)
