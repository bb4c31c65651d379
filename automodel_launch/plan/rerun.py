"""``rerun JOB``: the plan of a new job that runs what job JOB ran, with ``--set`` on top.

What JOB ran is in its directory: ``launch.yaml`` (its whole config as it was checked,
:mod:`automodel_launch.render.launchconfig`) and ``code/`` (its snapshot). The rerun is
planned from that file, never from the recipe file (which may have changed since) and
never under a profile (the one JOB ran with is already in it); it is checked against the
AutoModel release JOB was, renders what each rank runs as JOB's manifest recorded it, and
links JOB's snapshot into its own directory (:mod:`automodel_launch.snapshot.reuse`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.layout import LAUNCH_CONFIG

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.profiles.overrides import Override
    from automodel_launch.settings import Settings
    from automodel_launch.snapshot.reuse import Reused

MAX_BYTES = 8 * 1024 * 1024
"""The largest ``launch.yaml`` read back (a recipe is a few kilobytes)."""


class RerunError(LaunchError):
    """The job cannot be run again; the message says why and what to do instead."""


@dataclass
class Rerun:
    """A rerun's plan, validated; :meth:`render` writes nothing yet (``submit_plan`` does)."""

    plan: JobPlan
    entry: EntryChoice
    code: Reused | None
    """Job ``first``'s snapshot (None: it ran the live tree, and so does the rerun)."""
    nproc_per_node: int = 1

    def render(self, job_dir: Path | None = None, *, submitting: bool = True) -> None:
        from automodel_launch.plan.render import render_plan

        render_plan(
            self.plan, entry=self.entry, job_dir=job_dir, submitting=submitting,
            code=self.code, nproc_per_node=self.nproc_per_node,
        )  # fmt: skip


def plan_rerun(
    first: Manifest, settings: Settings, sets: Sequence[Override] = (), *, submitting: bool = True
) -> Rerun:
    """Validate job ``first`` again with ``sets`` on top (``.plan.report`` holds what was
    found; render only a plan that passed)."""
    from automodel_launch.loading.files import NotRegular, TooLarge, read_regular
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.profiles.overrides import Layers, parse_override
    from automodel_launch.snapshot.reuse import reused

    source = Path(first.job_dir) / LAUNCH_CONFIG
    try:
        raw = read_regular(source, MAX_BYTES)  # planned as read: the file is not read again
    except FileNotFoundError:
        raise RerunError(
            f"job {first.id} has no {LAUNCH_CONFIG} in {first.job_dir}: it was submitted "
            "before automodel-launch kept the config a job ran with, or its directory was "
            "emptied",
            hint=f"submit its recipe again: automodel-launch submit {first.config_path}",
        ) from None
    except (NotRegular, TooLarge, OSError) as exc:
        raise RerunError(f"{source}: {_why(exc)}; it is not one automodel-launch wrote") from None
    for override in sets:
        if override.loc[1:] == ("repo_root",):
            raise UsageError(
                f"--set {override.argument}: a rerun runs the code job {first.id} ran",
                hint="submit the recipe to run another tree",
            )
    pinned: tuple[Override, ...] = ()
    if first.automodel_version is not None and all(o.loc != ("automodel_version",) for o in sets):
        pinned = (parse_override(f"automodel_version={json.dumps(first.automodel_version)}"),)
    entry = first.entry
    choice = EntryChoice(entry.text, entry.command, entry.domain) if entry else EntryChoice()
    layers = Layers(None, (*pinned, *sets), ambient=False)
    plan = plan_jobs(source, settings, entry=choice, layers=layers, submitting=submitting, raw=raw)
    plan.rerun_of = first
    code = None
    if not plan.failed(settings.strict):
        code = reused(first.id, Path(first.job_dir), first.code, first.sweep is not None)
    return Rerun(plan, choice, code, entry.nproc_per_node if entry is not None else 1)


def _why(exc: BaseException) -> str:
    from automodel_launch.loading.files import NotRegular, TooLarge

    if isinstance(exc, TooLarge):
        return f"{exc.size} bytes, over the {MAX_BYTES}-byte limit"
    if isinstance(exc, NotRegular):
        return f"not a regular file but {exc.kind}"
    return getattr(exc, "strerror", None) or str(exc)
