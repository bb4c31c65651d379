"""What ``render`` and ``submit`` refuse before anything is written: a launcher that
AutoModel runs itself (``k8s:``, ``nemo_run:``), a file with nothing to train, and a
recipe the selected AutoModel release cannot start (no ``recipe:`` key from 0.4.0 on).

``validate`` accepts both: a ``k8s:`` file is a good AutoModel config, and a launcher
snippet without a recipe may be a fragment (a profile, a section kept apart). Only making
a job of them is refused; ``validate`` says so of the snippet in a note
(:func:`launcher_only`), which never fails a file.
"""

from __future__ import annotations

from typing import Any

from automodel_launch.automodel.versions import DEFAULT
from automodel_launch.config.document import (
    LAUNCHED_BY_AUTOMODEL,
    LAUNCHER_SECTIONS,
    LAUNCHERS,
    UNRELEASED_LAUNCHERS,
)
from automodel_launch.diagnostics import Collector
from automodel_launch.launcher_names import launched_here
from automodel_launch.rules.context import Context
from automodel_launch.rules.recipe_key import missing_recipe_key


def _recipe_sections(data: dict[str, Any]) -> list[str]:
    """What makes a file a recipe: AutoModel 0.7's ``recipe:`` target, ``model:``, or in
    the 2025 command form (``automodel finetune llm -c FILE``, the command names the
    recipe) the recipe's own sections: any section the job config keeps."""
    return [
        k
        for k, v in data.items()
        if k not in LAUNCHER_SECTIONS and k not in UNRELEASED_LAUNCHERS and v is not None
    ]


def check_launchable(
    data: dict[str, Any], sink: Collector, *, custom_entry: bool, version: str = DEFAULT
) -> None:
    for name, how in LAUNCHED_BY_AUTOMODEL.items():
        if data.get(name) is not None:
            by = "by no AutoModel release" if name == "k8s" else "by AutoModel itself"
            sink.add(
                "launched-by-automodel",
                (name,),
                f"{name}: is validated here but launched {by}; automodel-launch launches "
                "slurm: and skypilot: jobs, and torchrun on this node",
                how,
                at_key=True,
            )
    slurm = data.get("slurm")
    if isinstance(slurm, dict) and slurm.get("script"):
        sink.add(
            "own-sbatch-script",
            ("slurm", "script"),
            "slurm.script names your own sbatch script; automodel-launch renders its script "
            "from the slurm: fields and would not run yours",
            f"submit yours with `sbatch {slurm['script']}`, or remove script to let "
            "automodel-launch render the job",
        )
    if not custom_entry:
        missing_recipe_key(data, version, sink)
    launcher = _without_recipe(data)
    if launcher is None or custom_entry:
        return
    sink.add(
        "nothing-to-train",
        (launcher,),
        f"the file has a {launcher}: section but no recipe: nothing to train (the job config "
        "would be empty)",
        "add the recipe (recipe:, model:, dataset: ...) to this file, or pass --entry to run "
        "your own program",
        at_key=True,
    )


def _has_recipe(data: dict[str, Any]) -> bool:
    if _recipe_sections(data):
        return True
    slurm = data.get("slurm")
    return isinstance(slurm, dict) and bool(slurm.get("command"))


def _without_recipe(data: dict[str, Any]) -> str | None:
    """The launcher section of a file that has nothing to train, else None."""
    launcher = next((name for name in LAUNCHERS if data.get(name) is not None), None)
    return None if launcher is None or _has_recipe(data) else launcher


def launcher_only(ctx: Context) -> None:
    """``validate`` of a launcher section with nothing to train: a note of what ``render``
    and ``submit`` will need (they refuse it as ``nothing-to-train``)."""
    launcher = _without_recipe(ctx.data)
    if ctx.purpose != "validate" or launcher is None:
        return
    if launcher not in launched_here():
        return
    ctx.sink.add(
        "launcher-only",
        (launcher,),
        f"the file has a {launcher}: section and nothing to train: fine as a part of a "
        "recipe, but render and submit will need a recipe or --entry",
        "add the recipe (recipe:, model:, dataset: ...), or run your own program with --entry",
        at_key=True,
    )
