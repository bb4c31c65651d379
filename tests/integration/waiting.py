"""Waiting on a job's state, never on the clock: the tests' one polling loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Shown = dict[str, Any]


def status_until(
    status: Callable[[], Shown], done: Callable[[Shown], bool], timeout: float, pause: float
) -> Shown:
    """``status()`` once ``done`` holds for it (the last one seen after ``timeout`` s: only
    a limit for a broken run, a loaded machine gets there first)."""
    deadline = time.monotonic() + timeout
    while True:
        shown = status()
        if done(shown) or time.monotonic() > deadline:
            return shown
        time.sleep(pause)
