"""Every entry of every shipped signature table, through the rule: a mapping with a keyword
the callable does not take is flagged (unless it takes ``**kwargs``), and one with every
required keyword passes clean. In process, one rule run per release and kind."""

from __future__ import annotations

from typing import Any

import pytest

from automodel_launch.automodel import versions
from automodel_launch.automodel.table import SectionBuild, Table, load
from automodel_launch.diagnostics import Collector
from automodel_launch.rules.context import Context
from automodel_launch.rules.recipe_calls import recipe_calls
from tests.conftest import offline_settings

WRONG = "zz_not_an_argument"


def run(version: str, data: dict[str, Any]) -> list[tuple[str, str]]:
    ctx = Context(data, Collector(), offline_settings(automodel_version=version))
    recipe_calls(ctx)
    return sorted((d.path, d.code) for d in ctx.sink.items)


def targets(table: Table) -> list[str]:
    return sorted({*table.callables, *table.aliases})


@pytest.mark.parametrize("version", versions.KNOWN)
def test_every_target_flags_a_wrong_keyword_unless_it_takes_any(version: str) -> None:
    table = load(version)
    data: dict[str, Any] = {}
    expected = []
    for index, target in enumerate(targets(table)):
        sig = table.signature(target)
        assert sig is not None, target
        data[f"s{index}"] = {"_target_": target, **dict.fromkeys(sig.required, 1), WRONG: 1}
        if not sig.var_keyword:
            expected.append((f"s{index}.{WRONG}", "unknown-argument"))
    assert len(data) > 100
    assert run(version, data) == sorted(expected)


@pytest.mark.parametrize("version", versions.KNOWN)
def test_every_target_with_its_required_keywords_is_clean(version: str) -> None:
    table = load(version)
    data: dict[str, Any] = {}
    for index, target in enumerate(targets(table)):
        sig = table.signature(target)
        assert sig is not None, target
        data[f"s{index}"] = {"_target_": target, **dict.fromkeys(sig.required, 1)}
    assert run(version, data) == []


@pytest.mark.parametrize("version", versions.KNOWN)
def test_every_target_missing_a_required_keyword_is_flagged(version: str) -> None:
    table = load(version)
    data: dict[str, Any] = {}
    expected = []
    for index, target in enumerate(targets(table)):
        sig = table.signature(target)
        assert sig is not None, target
        needed = [name for name in sig.required if name not in table.supplied]
        if needed:
            data[f"s{index}"] = {"_target_": target, **dict.fromkeys(needed[1:], 1)}
            expected.append((f"s{index}._target_", "missing-argument"))
    assert run(version, data) == sorted(expected)


@pytest.mark.parametrize("version", versions.KNOWN)
def test_every_section_a_recipe_builds_is_checked(version: str) -> None:
    """Each section (each class its ``choose`` key can pick) with a wrong keyword, for the
    recipe it is listed under; a recipe's null (read key by key) takes anything."""
    table = load(version)
    checked = 0
    for recipe, built in table.sections.items():
        for name, how in built.items():
            section = table.section(None if recipe == "*" else recipe, name)
            if how is None:
                assert section is None
                checked += _section_case(table, recipe, name, None, None)
                continue
            assert section is not None
            picks = dict(section.choices) if section.choose else {None: section.target}
            for value, target in picks.items():
                checked += _section_case(table, recipe, name, section, (value, target))
    assert checked >= 2


def _section_case(
    table: Table,
    recipe: str,
    name: str,
    section: SectionBuild | None,
    pick: tuple[str | None, str] | None,
) -> int:
    data: dict[str, Any] = {"recipe": recipe if recipe != "*" else _plain(table, name)}
    keys: dict[str, Any] = {WRONG: 1}
    expected = []
    if section is not None and pick is not None:
        value, target = pick
        sig = table.signature(target)
        assert sig is not None, (table.version, recipe, name, target)
        supplied = section.supplied | table.supplied
        keys |= dict.fromkeys((n for n in sig.required if n not in supplied), 1)
        if section.choose is not None:
            keys[section.choose] = value
        if not sig.var_keyword:
            expected.append((f"{name}.{WRONG}", "unknown-argument"))
    _put(data, name, keys)
    assert run(table.version, data) == expected, (table.version, recipe, name, pick)
    return 1


def _plain(table: Table, name: str) -> str | None:
    """A recipe that builds section ``name`` the common way (None: no recipe named)."""
    own = {recipe for recipe, built in table.sections.items() if name in built}
    return next((r for r in sorted(table.recipes) if r not in own), None)


def _put(data: dict[str, Any], dotted: str, value: dict[str, Any]) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


LOADER = "torchdata.stateful_dataloader.StatefulDataLoader"
PARALLELIZE = "nemo_automodel.components.moe.parallelizer.parallelize_model"


@pytest.mark.parametrize(
    ("version", "taken"),
    [("0.4.0", "dataloader_type"), ("0.4.0", "group_by_length"), ("main", "group_by_length")],
)
def test_loader_keys_the_recipe_takes_out_are_not_the_loaders_arguments(
    version: str, taken: str
) -> None:
    for section in ("dataloader", "validation_dataloader"):
        data = {section: {"_target_": LOADER, "batch_size": 8, taken: True, WRONG: 1}}
        assert run(version, data) == [(f"{section}.{WRONG}", "unknown-argument")]


def test_the_typed_recipes_drop_the_loaders_target_and_refuse_what_they_do_not_take() -> None:
    data = {"dataloader": {"_target_": "torch.utils.data.DataLoader", "dataloader_type": "x"}}
    assert run("0.7.0", data) == []
    assert run("0.7.0", {"dataloader": {"_target_": "torch.utils.data.NoLoader"}}) == [
        ("dataloader._target_", "unknown-target")
    ]
    # 0.3.0 deletes no group_by_length: the loader is called with it
    data = {"dataloader": {"_target_": LOADER, "group_by_length": True}}
    assert run("0.3.0", data) == [("dataloader.group_by_length", "unknown-argument")]


@pytest.mark.parametrize(
    ("version", "section", "target"),
    [
        ("main", "parallelizer", PARALLELIZE),
        ("0.4.0", "parallelizer", PARALLELIZE),
        ("0.4.0", "moe_config", "nemo_automodel.components.moe.config.MoEParallelizerConfig"),
        ("main", "rng", "nemo_automodel.components.training.rng.StatefulRNG"),
    ],
)
def test_a_target_section_no_recipe_builds_is_imported_but_not_called(
    version: str, section: str, target: str
) -> None:
    assert run(version, {section: {"_target_": target, WRONG: 1}}) == []
    wrong = {section: {"_target_": target + "Nope", WRONG: 1}}
    assert run(version, wrong) == [(f"{section}._target_", "unknown-target")]


def test_a_parallelizer_the_release_reads_is_not_marked_unbuilt() -> None:
    """0.2.0's recipes take ``parallelizer:`` and instantiate it; 0.3.0's do not."""
    assert "parallelizer" not in load("0.2.0").sections["*"]
    assert load("0.3.0").sections["*"]["parallelizer"] is None
