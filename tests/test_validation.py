"""automodel_launch/validation.py: what the sections are validated from."""

from __future__ import annotations

import pytest

from automodel_launch.loading import load_text
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings

REQUIRED = {"slurm": "", "skypilot": "  cloud: kubernetes\n  accelerators: L4:1\n"}


@pytest.mark.parametrize("launcher", ["slurm", "skypilot"])
def test_env_values_keep_the_text_as_written(launcher: str) -> None:
    text = (
        f"{launcher}:\n{REQUIRED[launcher]}  env_vars:\n    PY: 3.10\n    HEX: 0x10\n    BIG: 1e3\n"
        "    FLAG: True\n    QUOTED: '3.10'\n    N: 7\n"
    )
    loaded = load_text(text).loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    assert report.document is not None
    section = getattr(report.document, launcher)
    assert section.env_vars == {
        "PY": "3.10",
        "HEX": "0x10",
        "BIG": "1e3",
        "FLAG": "True",
        "QUOTED": "3.10",
        "N": "7",
    }
    assert loaded.data[launcher]["env_vars"]["PY"] == 3.1, "the loaded data is not changed"
