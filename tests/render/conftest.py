from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from automodel_launch.prepare import EntryChoice, prepare
from tests.conftest import offline_settings

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("AUTOMODEL_LAUNCH_UPDATE_GOLDEN") == "1"


def render_text(
    text: str,
    name: str = "case",
    *,
    entry: str | None = None,
    environ: dict[str, str] | None = None,
    job_dir: str | None = None,
) -> dict[str, str]:
    """The job directory files for YAML text, through the path ``render --job-dir`` takes
    (validate for rendering, then render); the config must have no errors. ``entry`` is
    what ``--entry`` would say."""
    with tempfile.TemporaryDirectory() as folder:
        previous = os.getcwd()
        os.chdir(folder)
        try:
            Path(f"{name}.yaml").write_text(text, encoding="utf-8")
            prepared = prepare(
                Path(f"{name}.yaml"),
                offline_settings(),
                entry=EntryChoice(entry),
                job_dir=Path(job_dir or f"/jobs/{name}"),
                nproc_per_node=8,
                environ=environ or {},
            )
        finally:
            os.chdir(previous)
    errors = [d.message for d in prepared.report.diagnostics if d.is_error]
    assert prepared.document is not None, errors
    return prepared.files


def assert_golden(name: str, text: str) -> None:
    """Compare with tests/render/golden/NAME; AUTOMODEL_LAUNCH_UPDATE_GOLDEN=1 rewrites it."""
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"no golden file {path}; run with AUTOMODEL_LAUNCH_UPDATE_GOLDEN=1 and review")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"
