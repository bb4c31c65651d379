"""Data cases: every file under valid/ and invalid/ is discovered automatically.

Each file states what it must produce in ``# expect:`` comment lines, one per
diagnostic, as ``line:col severity[code] path`` (see tests/conftest.py ``brief``).
A file under valid/ may expect warnings but never an error; a file under invalid/
must expect at least one error. The lists must match exactly, in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.validation import validate_path
from tests.conftest import brief, offline_settings

HERE = Path(__file__).parent
CASES = sorted(HERE.glob("valid/*.yaml")) + sorted(HERE.glob("invalid/*.yaml"))


def expected(path: Path) -> list[str]:
    prefix = "# expect: "
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line[len(prefix) :].strip() for line in lines if line.startswith(prefix)]


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example(path: Path) -> None:
    report = validate_path(path, offline_settings())
    assert brief(report.diagnostics) == expected(path)
    if path.parent.name == "valid":
        assert report.ok
    else:
        assert not report.ok


def test_both_directories_have_cases() -> None:
    assert any(p.parent.name == "valid" for p in CASES)
    assert any(p.parent.name == "invalid" for p in CASES)
