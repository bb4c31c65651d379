"""Everything checked after loading, as rules of one signature: ``rule(context)``.

:data:`RULES` is the order they run in. The sections are validated first, each on its
own model (so a mistake in ``slurm:`` hides nothing in ``skypilot:``); the rules that
join sections read the validated models from the context; YAML 1.1 traps are reported
last, once the section rule has said which of them are errors.
"""

from __future__ import annotations

from collections.abc import Callable

from automodel_launch.rules import launch
from automodel_launch.rules.automodel_launchers import k8s_rules, nemo_run_rules
from automodel_launch.rules.container_paths import unmounted_paths
from automodel_launch.rules.context import Context, Purpose, Section, Trap
from automodel_launch.rules.placeholders import placeholders
from automodel_launch.rules.recipe_calls import recipe_calls
from automodel_launch.rules.requeue import requeue_recipe
from automodel_launch.rules.sections import validate_sections
from automodel_launch.rules.traps import find_traps, report_traps, yaml_tags

Rule = Callable[[Context], None]

RULES: tuple[Rule, ...] = (
    yaml_tags,
    launch.launcher_keys,
    validate_sections,
    launch.launcher_environment,
    launch.slurm_rules,
    requeue_recipe,
    launch.skypilot_rules,
    k8s_rules,
    nemo_run_rules,
    launch.fault_tolerance,
    launch.recipe_secrets,
    launch.comment_secrets,
    unmounted_paths,
    recipe_calls,
    placeholders,
    report_traps,
)


def run_rules(ctx: Context) -> None:
    for rule in RULES:
        rule(ctx)


__all__ = ["RULES", "Context", "Purpose", "Rule", "Section", "Trap", "find_traps", "run_rules"]
