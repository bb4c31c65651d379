"""Everything checked after loading, as rules of one signature: ``rule(context)``.

:data:`RULES` is the order they run in. The sections are validated first, each on its
own model (so a mistake in ``slurm:`` hides nothing in ``skypilot:``); the rules that
join sections read the validated models from the context; YAML 1.1 traps are reported
last, once the section rule has said which of them are errors. A file that is no recipe
(a Kubernetes manifest...) is said to be one first, and no other rule judges it.
"""

from __future__ import annotations

from collections.abc import Callable

from automodel_launch.rules import launch
from automodel_launch.rules.automodel_launchers import k8s_rules
from automodel_launch.rules.container_paths import unmounted_paths
from automodel_launch.rules.context import Context, Purpose, Section, Trap
from automodel_launch.rules.interpolations import interpolations
from automodel_launch.rules.launchable import launcher_only
from automodel_launch.rules.nemo_run import nemo_run_rules
from automodel_launch.rules.not_a_recipe import not_a_recipe
from automodel_launch.rules.placeholders import placeholders
from automodel_launch.rules.recipe_calls import recipe_calls
from automodel_launch.rules.recipe_key import recipe_key
from automodel_launch.rules.release import automodel_release
from automodel_launch.rules.requeue import requeue_recipe
from automodel_launch.rules.runtime import runtime_sizes
from automodel_launch.rules.sections import validate_sections
from automodel_launch.rules.skypilot_results import automodel_on_the_nodes, results_on_vm_disk
from automodel_launch.rules.startup import startup_sizes
from automodel_launch.rules.traps import find_traps, report_traps, yaml_tags

Rule = Callable[[Context], None]

RULES: tuple[Rule, ...] = (
    not_a_recipe,
    yaml_tags,
    launch.launcher_keys,
    launcher_only,
    validate_sections,
    automodel_release,
    launch.launcher_environment,
    launch.slurm_rules,
    requeue_recipe,
    launch.skypilot_rules,
    results_on_vm_disk,
    automodel_on_the_nodes,
    k8s_rules,
    nemo_run_rules,
    launch.fault_tolerance,
    launch.recipe_secrets,
    launch.comment_secrets,
    unmounted_paths,
    recipe_calls,
    placeholders,
    interpolations,
    runtime_sizes,
    startup_sizes,
    recipe_key,
    report_traps,
)


def run_rules(ctx: Context) -> None:
    for rule in RULES:
        rule(ctx)
        if ctx.finished:
            return


__all__ = ["RULES", "Context", "Purpose", "Rule", "Section", "Trap", "find_traps", "run_rules"]
