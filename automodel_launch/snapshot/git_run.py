"""Running git on the user's repository without running anything the repository says.

A repository's configuration can name commands that git runs on its own: the file-system
monitor (``core.fsmonitor``), filter drivers (``filter.NAME.clean``/``smudge``/
``process``, chosen per file by ``.gitattributes``), diff drivers (``diff.NAME.textconv``
and ``.command``), ``diff.external``, the pager, hooks, and whatever an ``include.path``
adds. Whoever can write a repository's ``.git/config`` (or a file it includes) would have
``submit`` run their code. So every git command here:

- finds the repository itself (:func:`repository`: the nearest ``.git`` above the root)
  and gives git ``GIT_DIR`` and ``GIT_WORK_TREE``, so ``core.worktree`` cannot point the
  snapshot's diff at another directory;
- gets an environment without any ``GIT_*`` variable of the submitting shell (they could
  point git at another repository, index or object store, or set configuration) and
  without the values of credentials, which git never needs;
- gets, on git's own command line scope (``GIT_CONFIG_COUNT``: read after every file, so
  no file can override it), a neutral value for each setting that can run a command: the
  fixed ones of :data:`NEUTRAL`, and the commands of every filter and diff driver that
  the configuration defines (read first with ``git config --list``, which runs nothing);
- is given :data:`TIMEOUT` seconds (an include of a FIFO would block forever).

A driver's command that is not run is no loss of safety, only of convenience: a file a
clean filter (git-lfs) would have turned back into its pointer is compared as it is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from automodel_launch.launchers.slurm.cluster.commands import Answer, SlurmError, Unanswered, run
from automodel_launch.secrets import is_secret_name
from automodel_launch.snapshot import SnapshotError

TIMEOUT = 60.0
LIMIT = 64 * 1024 * 1024
"""Bytes of one git command's output (``ls-files`` of the snapshot's 50,000 files at most
is a few megabytes): more is an error, not a listing cut short."""
MAX_DRIVERS = 200
"""Filter and diff drivers a repository's configuration may define (each costs settings
on git's command line, and a repository has a handful: git-lfs's is one)."""
NEUTRAL = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("submodule.recurse", "false"),
)
"""The settings that name a command (or start one) whatever the file, made harmless.
``diff.external`` and the diff drivers' commands are off through ``--no-ext-diff`` and
``--no-textconv`` (an empty ``diff.external`` would be run as a command)."""
_DRIVER = re.compile(r"(filter|diff)\.(.+)\.[^.]+", re.DOTALL)
_DRIVER_COMMANDS = {
    "filter": (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")),
    "diff": (("textconv", ""), ("command", "")),
}


def repository(root: Path) -> Path | None:
    """The directory holding the ``.git`` nearest above ``root`` (``root`` itself
    included), found as git finds it but without ``GIT_CEILING_DIRECTORIES`` or any other
    variable of the submitting shell; None when there is none."""
    root = root.absolute()
    for place in (root, *root.parents):
        if os.path.lexists(place / ".git"):
            return place
    return None


def environment(top: Path, settings: Mapping[str, str]) -> dict[str, str]:
    """git's environment for the repository at ``top``: this process's variables but the
    ``GIT_*`` ones and the credentials, the repository named explicitly, and
    ``settings`` on git's command-line scope."""
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith("GIT_") and not is_secret_name(k)
    }
    environ["GIT_DIR"] = str(top / ".git")
    environ["GIT_WORK_TREE"] = str(top)
    environ["GIT_OPTIONAL_LOCKS"] = "0"  # status never writes the index the user's git uses
    environ["GIT_CONFIG_COUNT"] = str(len(settings))
    for index, (key, value) in enumerate(settings.items()):
        environ[f"GIT_CONFIG_KEY_{index}"] = key
        environ[f"GIT_CONFIG_VALUE_{index}"] = value
    return environ


def neutral_settings(root: Path, top: Path) -> dict[str, str]:
    """:data:`NEUTRAL`, and an empty command for each filter and diff driver the
    repository's configuration (includes followed, every scope) defines."""
    listed = git(root, top, {}, "config", "--list", "-z", check=True)
    settings = dict(NEUTRAL)
    drivers = set()
    for entry in listed.stdout.split("\0"):
        key = entry.partition("\n")[0]
        match = _DRIVER.fullmatch(key)
        if match is not None:
            drivers.add((match.group(1), match.group(2)))
    if len(drivers) > MAX_DRIVERS:
        raise SnapshotError(
            f"cannot snapshot {root}: its git configuration defines {len(drivers)} filter "
            f"and diff drivers, over {MAX_DRIVERS}",
            hint="remove the ones it does not use, or submit with --no-snapshot",
        )
    for kind, name in sorted(drivers):
        for setting, value in _DRIVER_COMMANDS[kind]:
            settings[f"{kind}.{name}.{setting}"] = value
    return settings


def git(root: Path, top: Path, settings: Mapping[str, str], *args: str, check: bool) -> Answer:
    """``git ARGS`` in ``root`` of the repository at ``top``, as the module says."""
    command = ["git", "--no-pager", *args]  # -z everywhere: paths as they are, never quoted
    try:
        answer = run(command, timeout=TIMEOUT, cwd=str(root), environ=environment(top, settings),
                     limit=LIMIT, name=f"git {args[0]}")  # fmt: skip
    except Unanswered as exc:
        raise SnapshotError(
            f"cannot snapshot {root}: {exc}",
            hint="look for a configuration file git waits on (an include of a FIFO), "
            "or submit with --no-snapshot",
        ) from None
    except SlurmError as exc:  # no git (NoSlurm names the program)
        raise SnapshotError(
            f"cannot snapshot {root}: {exc}", hint="install git, or submit with --no-snapshot"
        ) from None
    if check and (answer.returncode != 0 or answer.truncated):
        raise SnapshotError(
            f"cannot snapshot {root}: git {args[0]} said: {answer.said}",
            hint="fix the repository, or submit with --no-snapshot to run the live tree",
        )
    return answer
