"""``shell --remote NAME``: the job's environment on a named cluster, over SSH.

The same words as on a login node (the launcher's :meth:`shell`): the environment
is built from the cluster's own (asked once, ``env -0``, in the session's shell), and the
variables the recipe sets are given to ``env`` on the cluster's command line, since the
session's standard input is the terminal. So credentials are not carried from this host
(a variable with a secret name is left to the cluster's environment, and a note says so);
``submit`` carries them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from automodel_launch.job_shell import run
from automodel_launch.launchers import launcher_of
from automodel_launch.launchers.shell import ShellError
from automodel_launch.remote.ssh import quoted
from automodel_launch.secrets import Redactor, is_secret_name

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.remote.session import RemoteSession

MAX_ENVIRONMENT = 1024 * 1024


def cluster_environment(session: RemoteSession) -> dict[str, str]:
    """The environment a command gets on the cluster (bounded; malformed entries left out)."""
    from automodel_launch.launchers.slurm.cluster.client import SlurmError

    answer = session.run(["env", "-0"], timeout=30, cwd=None, limit=MAX_ENVIRONMENT,
                         name="env")  # fmt: skip
    if answer.returncode != 0 or answer.truncated:
        raise SlurmError(f"the cluster's environment could not be read: {answer.said}")
    found = {}
    for entry in answer.stdout.split("\0"):
        name, equals, value = entry.partition("=")
        if equals and name.replace("_", "a").isalnum() and not name[:1].isdigit():
            found[name] = value
    return found


def split_environment(
    env: Mapping[str, str], there: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """The variables the recipe sets (those ``env`` gives otherwise than ``there``) that go
    on the cluster's command line, and the names of those that do not: a secret name, or a
    value holding a credential (``MY_VAR: ${HF_TOKEN}``, or a token's shape)."""
    hide = Redactor(v for k, v in there.items() if is_secret_name(k) and v)
    given: dict[str, str] = {}
    held: list[str] = []
    for name, value in env.items():
        if there.get(name) == value:
            continue
        if is_secret_name(name) or hide(value) != value:
            held.append(name)
        else:
            given[name] = value
    return given, sorted(held)


def open_remote_shell(
    document: LaunchDocument, command: Sequence[str], nodes: int | None, session: RemoteSession
) -> int:
    """Run ``shell``'s salloc and srun on the cluster; the exit status of what ran."""
    launcher = launcher_of(document)
    if not launcher.remote:
        raise ShellError(
            f"--remote {session.remote.name}: only a slurm: recipe opens a shell on a cluster"
        )
    there = cluster_environment(session)
    shell = launcher.shell(document, there, command, nodes)
    given, held = split_environment(shell.env, there)
    if held:
        names = ", ".join(held)
        note = (f"note: {names} not carried into a shell on {session.remote.name}: the "
                "cluster's own environment gives it (submit carries it)")  # fmt: skip
        print(note, file=sys.stderr)
    for shown in shell.notes:
        print(shown, file=sys.stderr)
    words = shell.words
    line = quoted(["env", "--", *(f"{k}={v}" for k, v in sorted(given.items())), *words])
    connection = session.connection
    assert connection is not None
    tty = "-t" if sys.stdin.isatty() and not command else "-T"
    ssh = connection.command(line)
    return run([ssh[0], tty, *ssh[1:]], dict(os.environ))
