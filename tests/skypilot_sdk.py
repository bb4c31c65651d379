"""SkyPilot's SDK with its network calls replaced: no cloud account exists here.

:func:`offline_sky` is the installed SDK, skipped where it is not installed (failed in
CI), with its home and usage collection kept off the user's. :class:`FakeSdk` replaces
its calls at their boundary only: each replaced call is bound to the installed SDK's
own signature first (a call it would refuse fails here), is recorded, and answers with
what the test put in :attr:`FakeSdk.answers` (a function there is called with the
call's arguments, as the SDK names them: it can write a log into ``output_stream``).
Everything up to the calls is SkyPilot's real code (Task parsing, secrets). The stand-in
cloud that a sweep's driver process shares is :mod:`tests.submit.skypilot_cloud`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CALLS = ("launch", "queue", "tail_logs", "cancel",
         "jobs.launch", "jobs.queue", "jobs.tail_logs", "jobs.cancel")  # fmt: skip


def offline_sky(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """The ``sky`` module, its home in ``tmp_path`` and no usage collection."""
    from tests.integration.conftest import REQUIRED

    sky = __import__("sky") if REQUIRED else pytest.importorskip("sky")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
    return sky


class FakeSdk:
    """Records calls by name (:attr:`calls`: the arguments but the task, :attr:`tasks`: the
    tasks launched); answers with what the test put in :attr:`answers`: ``"NAME()"`` is
    what a call returns (its name when unset: the request id), a request id is what
    ``sky.stream_and_get`` returns for it."""

    def __init__(self, sky: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.tasks: list[Any] = []
        self.answers: dict[str, Any] = {}
        for name in CALLS:
            owner = sky.jobs if name.startswith("jobs.") else sky
            attribute = name.removeprefix("jobs.")
            monkeypatch.setattr(owner, attribute, self._fake(name, getattr(owner, attribute)))
        monkeypatch.setattr(sky, "stream_and_get", lambda request: self.answers[request])

    def _fake(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(real)

        def call(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)  # TypeError: not the installed SDK's call
            if "task" in bound.arguments:
                self.tasks.append(bound.arguments["task"])
            arguments = {k: v for k, v in bound.arguments.items() if k != "task"}
            self.calls.append((name, arguments))
            answer = self.answers.get(f"{name}()", name)
            return answer(**bound.arguments) if callable(answer) else answer

        return call
