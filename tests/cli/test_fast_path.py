"""The typer-free validate path accepts exactly what the typer command accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.cli import fast
from tests.cli.typer_options import typer_options


def test_fast_path_knows_every_validate_option() -> None:
    assert set(fast.SWITCHES) | set(fast.VALUED) | fast.TYPER_ONLY == typer_options("validate")


def test_anything_unusual_goes_to_typer() -> None:
    assert fast.parse([]) is None
    assert fast.parse(["--help"]) is None
    assert fast.parse(["--no-such-option", "a.yaml"]) is None
    assert fast.parse(["--format"]) is None
    assert fast.parse(["--cluster", "a.yaml"]) is None
    assert fast.parse(["-f", "json", "--strict", "a.yaml", "--", "-b.yaml"]) == (
        {"format": "json", "strict": True},
        [Path("a.yaml"), Path("-b.yaml")],
    )


def test_the_plugin_search_is_answered_without_its_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "__all__")
    monkeypatch.delitem(sys.modules, fast._PLUGIN_LOADER, raising=False)
    fast._answer_plugin_search()
    stand_in = sys.modules[fast._PLUGIN_LOADER]
    assert stand_in.get_plugins() == ()
    assert not hasattr(stand_in, "__path__")  # the import system sees a plain module
    # any other name: the real loader, imported then
    assert stand_in.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"
    assert sys.modules[fast._PLUGIN_LOADER] is not stand_in


def test_plugins_asked_for_are_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "some_plugin")
    monkeypatch.delitem(sys.modules, fast._PLUGIN_LOADER, raising=False)
    fast._answer_plugin_search()
    assert fast._PLUGIN_LOADER not in sys.modules
