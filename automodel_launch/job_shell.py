"""``shell``: a shell (or one command) in a job's environment, to reproduce a failure.

The recipe's launcher says what runs (:meth:`automodel_launch.launchers.Launcher.shell`:
Slurm's ``salloc`` and ``srun``, this node's own shell for a recipe without a launcher
section); here it is run with this process's terminal, and its exit status returned.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from automodel_launch.launchers import launcher_of
from automodel_launch.launchers.shell import CannotRun, NoProgram, ShellCommand

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument


def shell_of(
    document: LaunchDocument,
    environ: Mapping[str, str],
    command: Sequence[str],
    nodes: int | None = None,
) -> ShellCommand:
    """What ``shell`` runs for a validated recipe; raises
    :class:`~automodel_launch.launchers.shell.ShellError` for a recipe no shell is opened
    for."""
    return launcher_of(document).shell(document, environ, command, nodes)


@contextmanager
def _terminal_signals_to_child() -> Iterator[None]:
    """Ctrl-C and Ctrl-\\ reach the child (same terminal): here they do nothing, so this
    process waits for the child's own exit status. A handler (unlike SIG_IGN) is reset
    to the default in the child when it starts."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGQUIT)}
    for sig in kept:
        signal.signal(sig, lambda _signum, _frame: None)
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)


def run(words: Sequence[str], env: Mapping[str, str]) -> int:
    """Run ``words`` (stdin, stdout and stderr this process's), and return its exit
    status (128 + N when a signal N ended it)."""
    try:
        process = subprocess.Popen(list(words), env=dict(env))
    except FileNotFoundError:
        hint = (
            "run it on a Slurm login node" if words[0] == "salloc" else "check the command's name"
        )
        raise NoProgram(f"cannot run '{words[0]}': no such program", hint=hint) from None
    except OSError as exc:
        raise CannotRun(f"cannot run '{words[0]}': {exc.strerror}") from None
    with _terminal_signals_to_child():
        try:
            code = process.wait()
        except BaseException:  # SIGTERM or SIGHUP (errors.Interrupted): the child goes too
            process.terminate()
            process.wait()
            raise
    return 128 - code if code < 0 else code


def open_shell(
    document: LaunchDocument,
    command: Sequence[str],
    nodes: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    shell = shell_of(document, os.environ if environ is None else environ, command, nodes)
    for note in shell.notes:
        print(note, file=sys.stderr)
    return run(shell.words, shell.env)
