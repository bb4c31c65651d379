from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from automodel_launch.diagnostics import Diagnostic, sort_key
from automodel_launch.loading import load_text
from automodel_launch.profiles.overrides import Layers, parse_override
from automodel_launch.results import FileReport
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
"""The key a whole recipe needs beside a launcher section from AutoModel 0.4.0 on."""

SITE = """\
eos:
  slurm:
    account: site-account
    partition: batch
    time: "02:00:00"
    container_image: nvcr.io#nvidia/nemo:25.02
    env_vars:
      NCCL_DEBUG: INFO
      SITE_ONLY: "1"
gcp:
  skypilot:
    cloud: gcp
    region: us-central1
"""


@pytest.fixture
def site_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The site profile file (``$AUTOMODEL_LAUNCH_SITE_PROFILES``), holding :data:`SITE`."""
    path = tmp_path / "site" / "profiles.yaml"
    path.parent.mkdir()
    path.write_text(SITE)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(path))
    return path


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the user's profile file goes (XDG config directory); not written yet."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "automodel-launch" / "profiles.yaml"
    path.parent.mkdir(parents=True)
    return path


Check = Callable[..., FileReport]


@pytest.fixture
def check() -> Check:
    """Validate recipe text (dedented) with ``--profile`` and ``--set`` arguments; the note
    that a launcher section alone has nothing to train (``launcher-only``) is left out, as
    by the ``validate`` fixture: these recipes are launcher sections on their own."""

    def run(
        text: str, *sets: str, profile: str | None = None, purpose: str = "validate"
    ) -> FileReport:
        loaded = load_text(textwrap.dedent(text), "recipe.yaml").loaded
        assert loaded is not None
        layers = Layers(profile, tuple(parse_override(s) for s in sets))
        report = validate_loaded(loaded, offline_settings(), purpose=purpose, layers=layers)  # type: ignore[arg-type]
        report.diagnostics.sort(key=sort_key)
        report.diagnostics = [d for d in report.diagnostics if d.code != "launcher-only"]
        return report

    return run


def where(diagnostics: list[Diagnostic]) -> list[str]:
    """``place severity[code] path``: the place is ``line:col``, ``file:line:col`` or ``--set``."""
    out = []
    for d in diagnostics:
        if d.origin is None:
            place = f"{d.line}:{d.column}"
        elif d.origin.kind == "set":
            place = d.origin.label
        else:
            place = f"{Path(d.origin.where).name}:{d.line}:{d.column}"
        out.append(f"{place} {d.severity.value}[{d.code}] {d.path}")
    return out
