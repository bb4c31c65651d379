"""Every entry of every shipped signature table, through the rule: a mapping with a keyword
the callable does not take is flagged (unless it takes ``**kwargs``), and one with every
required keyword passes clean. In process, one rule run per release and kind."""

from __future__ import annotations

from typing import Any

import pytest

from automodel_launch.automodel import versions
from automodel_launch.automodel.table import Table, load
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
    table = load(version)
    for recipe, built in table.sections.items():
        data: dict[str, Any] = {} if recipe == "*" else {"recipe": recipe}
        expected = []
        for name in built:
            section = table.section(None if recipe == "*" else recipe, name)
            assert section is not None
            sig = table.signature(section.target)
            assert sig is not None, (version, recipe, name, section.target)
            needed = [n for n in sig.required if n not in section.supplied | table.supplied]
            _put(data, name, {**dict.fromkeys(needed, 1), WRONG: 1})
            if not sig.var_keyword:
                expected.append((f"{name}.{WRONG}", "unknown-argument"))
        assert run(version, data) == sorted(expected), (version, recipe)


def _put(data: dict[str, Any], dotted: str, value: dict[str, Any]) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value
