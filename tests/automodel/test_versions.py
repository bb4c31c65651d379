from __future__ import annotations

from typing import get_args

import pytest

from automodel_launch.automodel import versions
from automodel_launch.settings import AutoModelVersion, resolve_settings


def test_the_settings_type_lists_every_known_version() -> None:
    assert get_args(AutoModelVersion) == versions.KNOWN


def test_the_default_is_the_newest_release() -> None:
    assert resolve_settings().automodel_version == "0.7.0" == versions.RELEASES[-1]


@pytest.mark.parametrize(
    ("version", "module"),
    [
        ("0.1.0", "nemo_automodel._cli.app"),
        ("0.3.0", "nemo_automodel._cli.app"),
        ("0.4.0", "nemo_automodel.cli.app"),
        ("0.7.0", "nemo_automodel.cli.app"),
        ("main", "nemo_automodel.cli.app"),
    ],
)
def test_each_release_starts_with_its_own_entry_module(version: str, module: str) -> None:
    assert versions.entry_module(version) == module
