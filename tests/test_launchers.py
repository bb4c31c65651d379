"""The launcher table is the one place that knows the launchers."""

from __future__ import annotations

import re

import pytest

from automodel_launch.config.document import LAUNCHED_BY_AUTOMODEL, LaunchDocument
from automodel_launch.config.document import LAUNCHERS as SECTIONS
from automodel_launch.launchers import LAUNCHERS, _load
from tests.test_layers import PACKAGE


def test_one_row_for_every_launcher_a_document_can_have() -> None:
    assert set(LAUNCHERS) == {*SECTIONS, "interactive"} - set(LAUNCHED_BY_AUTOMODEL)
    assert set(LAUNCHED_BY_AUTOMODEL) == {"k8s", "nemo_run"}
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
