"""The launcher table is the one place that knows the launchers."""

from __future__ import annotations

import ast
import re

import pytest

from automodel_launch.config.document import LAUNCHED_BY_AUTOMODEL, LaunchDocument
from automodel_launch.config.document import LAUNCHERS as SECTIONS
from automodel_launch.launcher_names import BY_AUTOMODEL, LAUNCHED_HERE, WITH_SECTION
from automodel_launch.launchers import LAUNCHERS, _load
from tests.test_layers import PACKAGE


def test_one_row_for_every_launcher_a_document_can_have() -> None:
    assert set(LAUNCHERS) == {*SECTIONS, "interactive"} - set(LAUNCHED_BY_AUTOMODEL)
    assert set(LAUNCHED_BY_AUTOMODEL) == set(BY_AUTOMODEL) == {"k8s", "nemo_run"}
    assert SECTIONS == (*WITH_SECTION, *BY_AUTOMODEL) == ("slurm", "skypilot", "k8s", "nemo_run")
    assert list(LAUNCHERS) == list(LAUNCHED_HERE) == ["slurm", "skypilot", "interactive"]
    assert LaunchDocument.model_construct().launcher == "interactive"
    assert {row.name for row in LAUNCHERS.values()} == set(LAUNCHERS)


def test_artifacts_and_default_folders_are_distinct() -> None:
    assert len({row.artifact for row in LAUNCHERS.values()}) == len(LAUNCHERS)
    assert len({row.default_base for row in LAUNCHERS.values()}) == len(LAUNCHERS)


@pytest.mark.parametrize("name", sorted(LAUNCHERS))
def test_every_row_names_a_renderer_and_a_submitter_that_exist(name: str) -> None:
    row = LAUNCHERS[name]
    assert callable(_load(row.renderer))
    assert callable(_load(row.submitter))


_ASKS_WHICH = re.compile(r"""launcher\s*[!=]=|[!=]=\s*["'](?:slurm|skypilot|interactive)["']""")


def test_no_module_but_the_table_asks_which_launcher_it_is() -> None:
    asking = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _ASKS_WHICH.search(line)
    ]
    assert asking == []


NAMES = {*LAUNCHED_HERE, *BY_AUTOMODEL}


def _lists_of_names(source: str) -> list[int]:
    """Lines of tuples, lists, sets and ``Literal[...]`` spelling two launcher names or
    more. A dict keyed by launcher (a hover text, a rule, defaults per section) holds data
    about each launcher, and is not a list of them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        else:
            continue
        spelled = {i.value for i in items if isinstance(i, ast.Constant) and i.value in NAMES}
        if len(spelled) >= 2:
            found.append(node.lineno)
    return sorted(set(found))


def test_the_launcher_names_are_listed_in_one_module() -> None:
    listed = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := _lists_of_names(path.read_text(encoding="utf-8")))
    }
    assert list(listed) == ["launcher_names.py"]


def test_the_names_check_sees_a_list() -> None:
    """The check above can fail: its own list in a module is found, data per launcher is not."""
    source = (
        'A = ("slurm", "skypilot")\nB = {"slurm": 1, "k8s": 2}\nC = ["k8s"]\n'
        'D: Literal["interactive", "nemo_run"]\nE = {"slurm", "x", "skypilot"}\n'
    )
    assert _lists_of_names(source) == [1, 4, 5]
