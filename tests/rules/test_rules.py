from __future__ import annotations

import inspect

from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.diagnostics import Collector
from automodel_launch.loading import LoadedFile, load_text
from automodel_launch.rules import RULES, Context, find_traps, run_rules
from automodel_launch.rules.sections import validate_sections
from automodel_launch.rules.traps import report_traps
from tests.conftest import offline_settings

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"


def load_ok(text: str) -> LoadedFile:
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    return loaded


def test_every_rule_takes_the_context_alone() -> None:
    for rule in RULES:
        assert list(inspect.signature(rule).parameters) == ["ctx"], rule.__name__


def test_sections_come_before_the_rules_that_join_them_and_traps_last() -> None:
    assert RULES.index(validate_sections) < min(
        RULES.index(r) for r in RULES if r.__name__.endswith("_rules")
    )
    assert RULES[-1] is report_traps


def test_a_failed_field_is_left_out_and_named_invalid() -> None:
    loaded = load_ok("slurm:\n  nodes: zero\n  time: '3:00:00'\n" + RECIPE)
    ctx = Context(loaded.data, Collector(), offline_settings())
    run_rules(ctx)
    slurm = ctx.section("slurm", SlurmConfig)
    assert slurm is not None and slurm.time == "03:00:00"
    assert ctx.invalid("slurm") == frozenset({"nodes"})
    assert ctx.invalid("skypilot") == frozenset()
    assert [d.code for d in ctx.sink.items] == ["wrong-type"]


def test_a_trap_that_breaks_the_field_type_is_one_error() -> None:
    loaded = load_ok("skypilot:\n  cloud: aws\n  use_spot: yes\n" + RECIPE)
    ctx = Context(loaded.data, Collector(), offline_settings(), traps=find_traps(loaded))
    run_rules(ctx)
    errors = [(d.code, d.severity.value) for d in ctx.sink.items if d.is_error]
    assert errors == [("yaml11-trap", "error")]
