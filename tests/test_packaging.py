"""What the package declares is what it ships: one version, no pattern matching nothing."""

from __future__ import annotations

import importlib.metadata

import tomllib

import automodel_launch
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_kept_once() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "automodel_launch.__version__"
    }
    assert importlib.metadata.version("automodel-launch") == automodel_launch.__version__


def test_every_package_data_pattern_ships_a_file() -> None:
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        folder = ROOT / package.replace(".", "/")
        for pattern in patterns:
            assert list(folder.glob(pattern)), f"{package}: {pattern} matches nothing"
