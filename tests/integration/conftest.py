from __future__ import annotations

import os

import pytest

REQUIRED = os.environ.get("AUTOMODEL_LAUNCH_REQUIRE_INTEGRATION") == "1"


def unavailable(reason: str) -> None:
    """Skip when a real component is missing; in CI (REQUIRE_INTEGRATION=1) fail instead."""
    if REQUIRED:
        pytest.fail(f"integration component unavailable in CI: {reason}", pytrace=False)
    pytest.skip(reason)
