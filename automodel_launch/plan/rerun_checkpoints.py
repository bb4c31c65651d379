"""Where a rerun writes its checkpoints, and the summary's words for it (the plan holds
one: :attr:`automodel_launch.plan.plan.JobPlan.rerun_checkpoints`; :mod:`.rerun` decides
it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automodel_launch.plan.checkpoints import Latest


@dataclass(frozen=True)
class Checkpoints:
    """Where a rerun writes its checkpoints, and why there."""

    directory: str
    first: str
    """The id of the job run again."""
    own: bool
    """A directory of its own (False: the first job's, or the one ``--set`` names)."""
    changed: tuple[str, ...] = ()
    """The recipe values the rerun changes."""
    given: bool = False
    """``--set`` names the directory."""
    explicit: bool = False
    """``--fresh`` or ``--resume`` chose."""
    restore_from: str | None = None
    """``checkpoint.restore_from``: AutoModel restores it whatever the directory holds."""

    def line(self, found: Latest) -> str:
        """What the summary says: where, and what the rerun starts from (``found``: what
        the directory holds, when it was looked into)."""
        from automodel_launch.plan.checkpoints import relative

        first = self.first
        start = f"restores {self.restore_from}" if self.restore_from else "starts from step 0"
        if self.own:
            why = "--fresh" if self.explicit else (
                f"the rerun changes {', '.join(self.changed)}; --resume resumes job {first}'s"
            )  # fmt: skip
            return f"{self.directory}: {start}, in a directory of its own ({why})"
        whose = "the" if self.given else f"job {first}'s"
        if self.restore_from:
            state = f"{start} (checkpoint.restore_from)"
        elif relative(self.directory):
            state = "relative to the rerun's own working directory: starts from step 0 there"
        elif found.note is not None:
            state = f"resumes from {whose} latest checkpoint, if any ({found.note})"
        elif found.step is None:
            state = "no checkpoint yet: starts from step 0"
        else:
            state = f"resumes from step {found.step} of {whose} checkpoints"
        if self.given:
            return f"{self.directory} (--set): {state}"
        if self.changed:
            state += f", with changed values ({', '.join(self.changed)})"
        return f"{self.directory}: {state}"
