"""The one base of every error a command reports to the user.

A module that cannot do what it was asked raises a :class:`LaunchError` (or a subclass
of its own) with a message that names the file, field or job and what to do; the
command line prints it once, cleaned (``error: ...`` and ``hint: ...`` on stderr), and
exits with the class's :attr:`~LaunchError.exit_code`. The table of exit codes lives in
:mod:`automodel_launch.cli.errors`; no command module raises ``typer.Exit`` for an error.
"""

from __future__ import annotations

from typing import ClassVar


class LaunchError(Exception):
    """Something the user can fix: exit 1 (a config, a job, a scheduler's refusal)."""

    exit_code: ClassVar[int] = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class Reported(LaunchError):
    """The problems are printed already (a file's diagnostics): exit 1, nothing more said."""

    def __init__(self) -> None:
        super().__init__("")


class UsageError(LaunchError):
    """A bad option or value on the command line: exit 2."""

    exit_code: ClassVar[int] = 2
