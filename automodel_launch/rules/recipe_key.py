"""The ``recipe:`` key, which AutoModel's CLI reads from 0.4.0 on.

From 0.4.0 a job starts as ``python -m nemo_automodel.cli.app CONFIG`` and that CLI
stops at once ("YAML config must specify a recipe target") when the file has no
``recipe:``; 0.1 to 0.3 named the recipe on the command line instead
(``_cli.app finetune llm -c CONFIG``), a module later releases no longer have.

A whole recipe without the key is an error when the file has a launcher section this
tool submits (the job would die after the queue wait). Without one, ``validate`` does
not know how the file will be run (AutoModel's own examples include files its other
scripts run: the diffusion and convergence configs), so it says nothing; ``render`` and
``submit``, which would start it with ``automodel``, refuse it without ``--entry``
(:func:`automodel_launch.rules.launchable.check_launchable`).
"""

from __future__ import annotations

from typing import Any

from automodel_launch.automodel.versions import FIRST_CONFIG_FORM, entry_form
from automodel_launch.diagnostics import Collector
from automodel_launch.launcher_names import WITH_SECTION
from automodel_launch.rules.context import Context

SUBMITTED_HERE = WITH_SECTION
EXAMPLE = "TrainFinetuneRecipeForNextTokenPrediction"


def whole_recipe(data: dict[str, Any]) -> bool:
    """A file AutoModel could run: it names its recipe or builds a model. Anything less
    (a launcher section with the few recipe keys it depends on, as AutoModel's own docs
    show them) is a fragment: its keys are checked, its completeness is not."""
    return data.get("recipe") is not None or isinstance(data.get("model"), dict)


def needs_recipe_key(data: dict[str, Any], version: str) -> bool:
    """A whole recipe that this release cannot start."""
    if entry_form(version) != "config" or data.get("recipe") is not None:
        return False
    slurm = data.get("slurm")
    if isinstance(slurm, dict) and slurm.get("command"):
        return False  # the nodes run the user's own command
    return whole_recipe(data)


def missing_recipe_key(data: dict[str, Any], version: str, sink: Collector) -> None:
    if not needs_recipe_key(data, version):
        return
    sink.add(
        "missing-recipe-key",
        ("model",),
        f"AutoModel {version} starts a job with `automodel CONFIG`, which needs a recipe: "
        "key naming the recipe class; this file has none, so the job would stop at once",
        f"add e.g. `recipe: {EXAMPLE}` (the recipe class to run), set automodel_version to "
        f"the release before {FIRST_CONFIG_FORM} that runs this file (--set "
        'automodel_version="0.3.0"), or pass --entry to run your own program',
        at_key=True,
    )


def recipe_key(ctx: Context) -> None:
    if ctx.purpose != "validate":
        return  # render and submit decide with --entry in view (check_launchable)
    if any(ctx.data.get(name) is not None for name in SUBMITTED_HERE):
        missing_recipe_key(ctx.data, ctx.release().version, ctx.sink)
