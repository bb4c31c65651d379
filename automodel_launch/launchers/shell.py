"""What ``shell`` runs, as every launcher answers it: the words (a list, never a shell
string), their environment, and the notes to show before it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from automodel_launch.errors import LaunchError

NOT_FOUND = 127
"""Exit status when the program cannot be started, as a shell says it."""


@dataclass(frozen=True)
class ShellCommand:
    words: list[str]
    env: dict[str, str]
    notes: tuple[str, ...] = field(default=())


class ShellError(LaunchError):
    """No shell is opened for this recipe (SkyPilot): exit 1."""


class NoProgram(ShellError):
    """The program is not there (salloc off a login node, a misspelt command): exit 127."""

    exit_code: ClassVar[int] = NOT_FOUND


class CannotRun(ShellError):
    """The program is there and cannot be run (not executable): exit 126, as a shell says."""

    exit_code: ClassVar[int] = 126
