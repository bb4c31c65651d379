"""Editor settings onto the settings model (no server needed)."""

from __future__ import annotations

import pytest

pytest.importorskip("lsprotocol", reason="the lsp extra is not installed")

from automodel_launch.lsp import options
from automodel_launch.settings import Settings


def test_options_map_onto_the_settings_model(monkeypatch: pytest.MonkeyPatch) -> None:
    assert options.parse(None).settings == Settings(check_paths=False, check_env=False)
    parsed = options.parse({"automodelLaunch": {"hostChecks": True, "debounceMs": 5}})
    assert parsed.settings == Settings()
    assert parsed.debounce_ms == 5
    assert options.parse({"checkpointMarginMinutes": 3}).settings.checkpoint_margin_minutes == 3
    # the editor's word beats AUTOMODEL_LAUNCH_* variables, which beat the server's defaults
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STRICT", "true")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_CHECK_ENV", "true")
    assert options.parse({}).settings.strict is True
    assert options.parse({"strict": False}).settings.strict is False
    assert options.parse({}).settings.check_env is False
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STRIKT", "true")
    broken = options.parse({"strict": True})
    assert broken.settings.strict is True
    assert broken.problems == [
        "unknown variable AUTOMODEL_LAUNCH_STRIKT; did you mean AUTOMODEL_LAUNCH_STRICT?"
    ]
