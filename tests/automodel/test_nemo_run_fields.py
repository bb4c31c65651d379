"""The shipped NeMo-Run executor fields are what tools/nemo_run_fields.py reads from the
nemo-run wheels on the package index (downloaded once into the wheel cache)."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from automodel_launch.config.nemo_run import executor_fields
from tests.conftest import ROOT


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "nemo_run_fields", ROOT / "tools" / "nemo_run_fields.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("nemo_run_fields", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.integration
def test_the_committed_file_is_what_the_wheels_produce() -> None:
    tool = script()
    committed = tool.OUTPUT.read_text(encoding="utf-8")
    assert committed == tool.text(tool.cache_dir()), (
        "automodel_launch/config/nemo_run_fields.json is out of date: run "
        "`python tools/nemo_run_fields.py` and commit the result"
    )


def test_the_file_the_package_reads_is_the_one_the_script_writes() -> None:
    tool = script()
    data = json.loads(tool.OUTPUT.read_text(encoding="utf-8"))
    assert list(data["releases"]) == list(tool.VERSIONS)
    assert data["classes"] == list(tool.CLASSES)
    for release in data["releases"].values():
        assert release["source"].startswith("nemo_run-")
    newest = data["releases"][tool.VERSIONS[-1]]
    assert executor_fields()["SlurmExecutor"] == frozenset(newest["SlurmExecutor"].split())


SOURCE = """
from typing import ClassVar
from dataclasses import dataclass, field

@dataclass(kw_only=True)
class Base:
    packager: str = ""
    env_vars: dict = field(default_factory=dict)
    _private: bool = False
    kinds: ClassVar[list[str]] = []

    def method(self) -> None:
        local: int = 1

@dataclass(kw_only=True)
class Child(Base):
    nodes: int = 1
    job_name: str = field(init=False, default="x")
    env_vars: dict = field(default_factory=dict)
"""


def test_fields_are_annotated_names_public_and_not_class_variables() -> None:
    tree = ast.parse(SOURCE)
    tool = script()
    assert tool.class_fields(tree, "Base") == ([], ["packager", "env_vars"])
    assert tool.class_fields(tree, "Child") == (["Base"], ["nodes", "job_name", "env_vars"])
    with pytest.raises(LookupError):
        tool.class_fields(tree, "Missing")


def test_inherited_fields_come_first_once(tmp_path: Path) -> None:
    import zipfile

    wheel = tmp_path / "nemo_run-9.9.9-py3-none-any.whl"
    base = "from dataclasses import dataclass\n@dataclass\nclass Executor:\n    retries: int = 0\n"
    local = "@dataclass\nclass LocalExecutor(Executor):\n    nodes: int = 1\n    retries: int = 1\n"
    slurm = "@dataclass\nclass SlurmExecutor(Executor):\n    account: str\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("nemo_run/core/execution/base.py", base)
        archive.writestr("nemo_run/core/execution/local.py", local)
        archive.writestr("nemo_run/core/execution/slurm.py", slurm)
    assert script().release_fields(wheel) == {
        "Executor": "retries",
        "LocalExecutor": "retries nodes",
        "SlurmExecutor": "retries account",
    }
