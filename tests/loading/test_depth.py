"""automodel_launch/loading/depth.py: nesting is bounded before the C composer recurses.

Tens of thousands of ``[`` crashed the process inside libyaml's composer (a segmentation
fault, not an exception); the pre-scan must stop every way of nesting, and cost nothing
on real recipes.
"""

from __future__ import annotations

import time

import pytest

from automodel_launch.loading import load_text
from automodel_launch.loading.depth import MAX_DEPTH, too_deep
from tests.conftest import CORPUS, brief

BOMBS = {
    "flow sequences": "a: " + "[" * 50_000,
    "flow mappings": "a: " + "{a: " * 25_000,
    "block sequences on one line": "- " * 50_000,
    "explicit keys": "? " * 50_000,
    "sequences of mappings": "".join(" " * i + "- a:\n" for i in range(0, 600, 2)),
    "indented mappings": "".join(" " * i + "a:\n" for i in range(400)),
}


@pytest.mark.parametrize("text", BOMBS.values(), ids=BOMBS.keys())
def test_every_way_of_nesting_is_stopped_before_composing(text: str) -> None:
    assert too_deep(text) is not None
    result = load_text(text)
    assert result.loaded is None
    assert [d.code for d in result.diagnostics] == ["too-deep"]
    assert result.diagnostics[0].message == f"the YAML nests more than {MAX_DEPTH} levels deep"


def test_the_position_is_the_first_level_past_the_limit() -> None:
    assert brief(load_text("a: " + "[" * 1000).diagnostics) == ["1:203 error[too-deep] "]


@pytest.mark.parametrize("depth", [1, 50, MAX_DEPTH - 1])
def test_nesting_up_to_the_limit_loads(depth: int) -> None:
    text = "a: " + "[" * depth + "1" + "]" * depth + "\n"
    assert too_deep(text) is None
    assert load_text(text).diagnostics == []


def test_brackets_inside_strings_count_only_when_they_nest() -> None:
    # many openers force the real parse, which sees one string, not nesting
    text = 'a: "' + "[" * 5000 + '"\nb: [[[x]]]\n'
    assert too_deep(text) is None
    assert load_text(text).diagnostics == []


def test_a_syntax_error_is_left_to_the_composer() -> None:
    text = "a: [" * 300 + "]]]: :"
    result = load_text("b: '\n" + text)
    assert [d.code for d in result.diagnostics] == ["yaml-syntax"]


def test_real_recipes_pass_quickly() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.yaml"))[:200]]
    if not texts:
        pytest.skip("no corpus")
    assert all(too_deep(t) is None for t in texts)
    start = time.perf_counter()
    for text in texts:
        too_deep(text)
    assert time.perf_counter() - start < 0.05 * len(texts) / 10
