from __future__ import annotations

import os
from pathlib import Path

import pytest

from automodel_launch.loading import load_text
from automodel_launch.render.entry import Entry, JobSpec, default_entry
from automodel_launch.render.job import job_files, render_artifact
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("AUTOMODEL_LAUNCH_UPDATE_GOLDEN") == "1"


def render_text(
    text: str,
    name: str = "case",
    *,
    entry: Entry | None = None,
    environ: dict[str, str] | None = None,
    job_dir: str | None = None,
) -> dict[str, str]:
    """Validate YAML text (no errors allowed) and render its job directory files."""
    loaded = load_text(text, f"{name}.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    assert report.document is not None, [d.message for d in report.diagnostics if d.is_error]
    spec = JobSpec(
        entry=entry or default_entry(report.document.recipe),
        job_dir=job_dir or f"/jobs/{name}",
        source=f"{name}.yaml",
        job_name=name,
        environ=environ or {},
    )
    artifact = render_artifact(report.document, spec, nproc_per_node=8)
    return job_files(report.document, loaded, artifact)


def assert_golden(name: str, text: str) -> None:
    """Compare with tests/render/golden/NAME; AUTOMODEL_LAUNCH_UPDATE_GOLDEN=1 rewrites it."""
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"no golden file {path}; run with AUTOMODEL_LAUNCH_UPDATE_GOLDEN=1 and review")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"
