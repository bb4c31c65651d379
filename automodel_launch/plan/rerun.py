"""``rerun JOB``: the plan of a new job that runs what job JOB ran, with ``--set`` on top.

What JOB ran is in its directory: ``launch.yaml`` (its whole config as it was checked,
:mod:`automodel_launch.render.launchconfig`) and ``code/`` (its snapshot). The rerun is
planned from that file, never from the recipe file (which may have changed since) and
never under a profile (the one JOB ran with is already in it); it is checked against the
AutoModel release JOB was, renders what each rank runs as JOB's manifest recorded it, and
links JOB's snapshot into its own directory (:mod:`automodel_launch.snapshot.reuse`).

AutoModel resumes from the latest checkpoint in ``checkpoint.checkpoint_dir``: a plain
rerun keeps JOB's directory and resumes from where JOB got; one that changes a recipe value
trains from step 0 in a directory of its own (``--fresh`` and ``--resume`` choose;
:mod:`automodel_launch.plan.checkpoints`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.layout import LAUNCH_CONFIG
from automodel_launch.plan.rerun_checkpoints import Checkpoints

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.profiles.overrides import Override
    from automodel_launch.settings import Settings
    from automodel_launch.snapshot.reuse import Reused

MAX_BYTES = 8 * 1024 * 1024
"""The largest ``launch.yaml`` read back (a recipe is a few kilobytes)."""
Mode = Literal["auto", "fresh", "resume"]
"""``--fresh``, ``--resume``, or neither: resume unless a recipe value changes."""


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
    first: Manifest,
    settings: Settings,
    sets: Sequence[Override] = (),
    *,
    submitting: bool = True,
    checkpoints: Mode = "auto",
) -> Rerun:
    """Validate job ``first`` again with ``sets`` on top (``.plan.report`` holds what was
    found; render only a plan that passed); ``checkpoints``: ``fresh`` or ``resume`` as
    ``--fresh``/``--resume`` ask, ``auto`` by whether ``sets`` change a recipe value."""
    import os

    from automodel_launch.jobs.files import Unreadable, read_job_bytes
    from automodel_launch.loading import load_bytes
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.profiles.overrides import Layers, parse_override
    from automodel_launch.snapshot.reuse import reused

    job_dir = Path(first.job_dir)
    source = job_dir / LAUNCH_CONFIG
    try:
        raw = read_job_bytes(job_dir, LAUNCH_CONFIG, MAX_BYTES)  # planned as read, once
    except Unreadable as exc:
        raise RerunError(
            f"job {first.id}: {exc}",
            hint=f"automodel-launch wrote it as a regular file: restore it, or submit the "
            f"recipe again: automodel-launch submit {first.config_path}",
        ) from None
    if raw is None:
        raise RerunError(
            f"job {first.id} has no {LAUNCH_CONFIG} in {first.job_dir}: it was submitted "
            "before automodel-launch kept the config a job ran with, or its directory was "
            "emptied",
            hint=f"submit its recipe again: automodel-launch submit {first.config_path}",
        )
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
    loaded = load_bytes(raw, str(source))
    new = os.urandom(6).hex()
    data = loaded.loaded.data if loaded.loaded is not None else {}
    where, own = checkpoints_of(data, sets, first.id, new, checkpoints)
    layers = Layers(None, (*pinned, *sets, *own), ambient=False)
    plan = plan_jobs(
        source, settings, entry=choice, layers=layers, submitting=submitting, loaded=loaded
    )
    plan.rerun_of, plan.job_id, plan.rerun_checkpoints = first, new, where
    code = None
    if not plan.failed(settings.strict):
        code = reused(first.id, Path(first.job_dir), first.code, first.sweep is not None)
    return Rerun(plan, choice, code, entry.nproc_per_node if entry is not None else 1)


def checkpoints_of(
    data: Mapping[str, Any], sets: Sequence[Override], first: str, new: str, mode: Mode
) -> tuple[Checkpoints | None, tuple[Override, ...]]:
    """A rerun's checkpoint directory (None: it writes none) and the override that gives it
    one of its own (``DIR/rerun-NEW``); a :class:`UsageError` for ``--fresh`` or
    ``--resume`` that cannot hold."""
    from automodel_launch.plan import checkpoints as ck
    from automodel_launch.rules.skypilot_results import has_recipe

    checkpoint = ck.section(data, sets)
    base = ck.directory(checkpoint)
    if not has_recipe(dict(data)) or not ck.enabled(checkpoint) or base is None:
        if mode == "resume":
            raise UsageError(f"--resume: job {first} writes no checkpoints (checkpoint.enabled "
                             "is false): there is nothing to resume from")  # fmt: skip
        return None, ()
    restore = checkpoint.get("restore_from")
    restore = restore if isinstance(restore, str) and restore.upper() != ck.LATEST else None
    changed = changes(data, sets)
    if ck.sets_directory(sets):
        if mode != "auto":
            raise UsageError(f"--{mode} with --set checkpoint.checkpoint_dir: the --set value "
                             "chooses the directory", hint="give one of them")  # fmt: skip
        return Checkpoints(base, first, False, changed, given=True, restore_from=restore), ()
    if mode == "fresh" or (mode == "auto" and changed):
        named = ck.named_inside(checkpoint)
        if named is not None:
            raise UsageError(
                f"checkpoint.restore_from '{named}' is a checkpoint inside checkpoint_dir "
                f"{base}, but this rerun writes a directory of its own",
                hint=f"--set checkpoint.restore_from={ck.inside(base, named)}, or --resume",
            )
        path = ck.inside(base, f"rerun-{new}")
        own = Checkpoints(path, first, True, changed, explicit=mode == "fresh",
                          restore_from=restore)  # fmt: skip
        return own, (ck.override(path, "--fresh"),)
    if mode == "resume" and ck.relative(base):
        raise UsageError(
            f"--resume: job {first}'s checkpoint_dir '{base}' is relative: each job reads it "
            "in its own working directory, and the rerun's is another",
            hint="give the job an absolute checkpoint.checkpoint_dir to resume it",
        )
    kept = Checkpoints(base, first, False, changed, explicit=mode == "resume",
                       restore_from=restore)  # fmt: skip
    return kept, ()


def changes(data: Mapping[str, Any], sets: Iterable[Override]) -> tuple[str, ...]:
    """The recipe values (not the launcher's) ``sets`` give another value than ``data``
    (``2`` and ``2.0`` differ, as ``diff`` tells them apart)."""
    from automodel_launch.config.document import LAUNCHER_SECTIONS
    from automodel_launch.diagnostics import dotted

    found = []
    for o in sets:
        if o.problems or o.loc[0] in LAUNCHER_SECTIONS or o.loc == ("automodel_version",):
            continue
        if _text(_at(data, o.loc)) != _text(o.value):
            found.append(dotted(o.loc))
    return tuple(found)


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _at(data: Any, loc: Sequence[str | int]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return _ABSENT
    return data


_ABSENT = object()
"""No value at all (not even null)."""
