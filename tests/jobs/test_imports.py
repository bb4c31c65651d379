"""Job tracking (registry, SQLite, platformdirs, the backends) loads only for the job
commands and submit: validate, render and schema never import it; ``jobs`` imports neither
typer nor rich (nor the recipe loader)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.jobs.sweep_helpers import SWEEP, sweep
from tests.support.fake_slurm import FakeSlurm


@pytest.mark.parametrize(
    "args",
    [["validate", "{config}"], ["render", "{config}"], ["schema"], ["validate", "{config}",
     "--no-strict", "-f", "text"]],
)  # fmt: skip
def test_no_job_tracking_on_validate_render_schema(tmp_path: Path, args: list[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text('slurm:\n  time: "04:00:00"\n  container_image: null\n')
    argv = [a.replace("{config}", str(config)) for a in args]
    script = (
        "import sys\n"
        "from automodel_launch.cli import errors\n"
        "from automodel_launch.cli.app import run_app\n"
        f"errors.run(lambda: run_app({argv!r}))\n"
        "found = sorted(m for m in sys.modules if m.startswith('automodel_launch.jobs')\n"
        "               or m.split('.')[0] in ('sqlite3', 'platformdirs', 'plotext',\n"
        "                                      'matplotlib'))\n"
        "print('JOBS', found, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert "JOBS []" in done.stderr, done.stderr


def test_jobs_imports_neither_typer_nor_rich(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    sweep(tmp_path / "jobs", 3)
    fake_slurm.squeue()
    fake_slurm.answer("sacct")
    script = (
        "import sys\n"
        "sys.argv = ['automodel-launch', 'jobs']\n"
        "from automodel_launch.cli import _dispatch, errors\n"
        "code = errors.run(_dispatch)\n"
        "heavy = {'typer', 'click', 'rich', 'ruamel', 'importlib.metadata', 'plotext',\n"
        "         'matplotlib'}\n"
        "print(code, sorted(heavy & set(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": fake_slurm.path},
    )  # fmt: skip
    assert done.stderr == "0 []\n"
    assert done.stdout.splitlines()[1].split()[:2] == [SWEEP, "lr"]
    assert [call.split()[0] for call in fake_slurm.calls] == ["squeue", "sacct"]
