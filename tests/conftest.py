from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings as hypothesis_settings

from automodel_launch import secrets
from automodel_launch.diagnostics import Diagnostic
from automodel_launch.loading import load_text
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_loaded

if TYPE_CHECKING:
    from tests.skypilot_sdk import FakeSdk
    from tests.support.fake_slurm import FakeSlurm

ROOT = Path(__file__).resolve().parent.parent

# CI replays the same examples every run (a landing never hinges on a lucky draw);
# developers' runs keep exploring new ones.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    hypothesis_settings.load_profile("ci")
CORPUS = ROOT.parent / "shared" / "corpus"

# The AutoModel release each corpus directory is checked against: the one whose table
# knows every nemo_automodel `_target_` the directory names (tests/automodel/
# test_corpus_releases.py recounts). Distinct unknown targets per release, 0.1.0 .. main:
#   automodel-2025  27 27 20 6 [0] 2 2 2 2  (examples of main between 0.3.0 and 0.4.0, run
#                   with examples/*/finetune.py, so without the `recipe:` key 0.4.0 reads)
#   automodel-docs   0 everywhere: its 3 targets exist in every release; the docs are
#                   main's of 2026-03-31 (docs/launcher/cluster.md, removed the next day
#                   with the `recipe:`-keyed CLI), whose CLI is 0.3.0's command form
#   automodel-head  66 66 59 45 37 21 4 [0] [0]: main's examples, main
CORPUS_RELEASES = {"automodel-2025": "0.4.0", "automodel-docs": "0.3.0", "automodel-head": "main"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test on the one Slurm cluster is marked ``slurm``: those run one at a time in
    a process of their own (``-m slurm``), beside the rest on every core (``-m "not
    slurm" -n auto``), each of which has its own directories, registry, ports and daemons."""
    for item in items:
        if "slurm_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slurm)


@pytest.fixture(autouse=True)
def _isolated_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user config file or AUTOMODEL_LAUNCH_* variable leaks into a test."""
    for name in list(os.environ):
        if name.startswith("AUTOMODEL_LAUNCH_") and name != "AUTOMODEL_LAUNCH_REQUIRE_INTEGRATION":
            monkeypatch.delenv(name)
    monkeypatch.delenv("AUTOMODEL_LAUNCH_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-xdg-config"))
    # every submit records its job: in the test's own registry, never the user's
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    # what is read from AutoModel's source is cached in the test's own cache directory
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def _nothing_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process no nemo-automodel is installed beside the tool, wherever the tests
    run (the test venv has 0.7.0, other venvs none): a test of the installed release finds
    it on the path it gives (``installed.find(path=...)``, ``installed_here``). A child
    process (``run_cli``) sees the venv as it is."""
    from automodel_launch.automodel import installed

    real = installed.find
    monkeypatch.setattr(installed, "find", lambda path=None: None if path is None else real(path))


@pytest.fixture(autouse=True)
def _uncached_token_check() -> None:
    """Each test runs secrets' token check, not an answer cached by an earlier test (mutation
    testing forks every mutant from a process that already ran the suite)."""
    secrets._short_looks_like_token.cache_clear()


@pytest.fixture
def sky_sdk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """SkyPilot's SDK, offline (:func:`tests.skypilot_sdk.offline_sky`)."""
    from tests.skypilot_sdk import offline_sky

    return offline_sky(monkeypatch, tmp_path)


@pytest.fixture
def sdk(sky_sdk: Any, monkeypatch: pytest.MonkeyPatch) -> FakeSdk:
    """SkyPilot's SDK with its calls recorded and answered by the test
    (:class:`tests.skypilot_sdk.FakeSdk`)."""
    from tests.skypilot_sdk import FakeSdk

    return FakeSdk(sky_sdk, monkeypatch)


@pytest.fixture
def fake_slurm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeSlurm:
    """Slurm's commands as the test writes them (:class:`tests.support.fake_slurm.FakeSlurm`,
    in ``tmp_path/slurm``), alone on PATH; ``fake_slurm.in_front()`` puts the PATH the test
    began with back behind them."""
    from tests.support.fake_slurm import FakeSlurm

    made = FakeSlurm(tmp_path / "slurm", monkeypatch)
    made.alone()
    return made


def offline_settings(**overrides: object) -> Settings:
    return Settings(check_paths=False, check_env=False, **overrides)  # type: ignore[arg-type]


Validate = Callable[..., list[Diagnostic]]

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
"""A recipe line: appended to a launcher section, the file has something to train (and the
section's line numbers do not move)."""


@pytest.fixture
def validate() -> Validate:
    """Validate YAML text (dedented) offline; returns every diagnostic but the note that a
    launcher section alone has nothing to train (``launcher-only``): most tests check a
    launcher section on its own. That note's tests validate through ``validate_path``."""

    def run(text: str, **settings: object) -> list[Diagnostic]:
        result = load_text(textwrap.dedent(text), "config.yaml")
        if result.loaded is None:
            return result.diagnostics
        report = validate_loaded(result.loaded, offline_settings(**settings))
        found = result.diagnostics + report.diagnostics
        return [d for d in found if d.code != "launcher-only"]

    return run


def brief(diagnostics: list[Diagnostic]) -> list[str]:
    """``line:col severity[code] path`` for each diagnostic: compact exact assertions."""
    return [f"{d.line}:{d.column} {d.severity.value}[{d.code}] {d.path}" for d in diagnostics]


def as_a_user(argv: list[str]) -> list[str]:
    """``argv`` run so that file modes apply: as is for a user, and for root (tests and CI
    run as root) through ``setpriv`` without the capabilities that override them."""
    import shutil

    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores file modes, and setpriv is not here to drop that power")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--", *argv]


def run_cli(
    *args: str, cwd: Path, user: bool = False, environ: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m automodel_launch ARGS`` from this checkout; ``user``: see :func:`as_a_user`;
    ``environ``: variables set or replaced (``PATH`` of fake commands)."""
    argv = [sys.executable, "-m", "automodel_launch", *args]
    return subprocess.run(
        as_a_user(argv) if user else argv,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**_without_mutation_run(os.environ), **(environ or {}), "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )


def _without_mutation_run(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment less mutmut's: a child runs the code as written (mutmut's own
    bookkeeping in a child looks for its configuration in the child's folder)."""
    return {k: v for k, v in environ.items() if k != "MUTANT_UNDER_TEST"}
