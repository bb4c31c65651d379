"""The SBATCH script of a job with a code snapshot: the snapshot on PYTHONPATH, never
``repo_root``; an array in a container mounts it for every task."""

from __future__ import annotations

import pytest

from automodel_launch.automodel.versions import DEFAULT
from automodel_launch.config.document import LaunchDocument
from automodel_launch.launchers.slurm.render import render_sbatch
from automodel_launch.loading import load_text
from automodel_launch.render.entry import JobSpec, default_entry
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.render.cases import RECIPE

SECTION = 'slurm:\n  time: "01:00:00"\n  repo_root: /home/me/Automodel\n'
IMAGE = "  container_image: nvcr.io/nvidia/nemo:25.07\n"
CODE = "/jobs/run/code"


def document(extra: str = "") -> LaunchDocument:
    loaded = load_text(RECIPE + SECTION + extra, "case.yaml").loaded
    assert loaded is not None
    found = validate_loaded(loaded, offline_settings()).document
    assert found is not None
    return found


def script(extra: str = "", **spec: object) -> str:
    given = JobSpec(entry=default_entry(DEFAULT), job_dir="/jobs/run", **spec)  # type: ignore[arg-type]
    return render_sbatch(document(extra), given)


def lines_with(text: str, word: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if word in line]


def test_the_snapshot_is_put_on_pythonpath_instead_of_repo_root() -> None:
    assert lines_with(script(code=CODE), "PYTHONPATH") == [
        "export PYTHONPATH=/jobs/run/code${PYTHONPATH:+:$PYTHONPATH}"
    ]
    assert lines_with(script(), "PYTHONPATH") == [
        "export PYTHONPATH=/home/me/Automodel${PYTHONPATH:+:$PYTHONPATH}"
    ]


def test_a_snapshot_path_is_one_literal_shell_word() -> None:
    assert lines_with(script(code="/jobs/a $b/code"), "PYTHONPATH") == [
        'export PYTHONPATH="/jobs/a \\$b/code"${PYTHONPATH:+:$PYTHONPATH}'
    ]


@pytest.mark.parametrize(
    ("tasks", "code", "mounted"),
    [(2, CODE, True), (0, CODE, False), (2, None, False)],
)
def test_an_array_in_a_container_mounts_the_shared_snapshot(
    tasks: int, code: str | None, mounted: bool
) -> None:
    [mounts] = lines_with(script(IMAGE, code=code, array_tasks=tasks), "--container-mounts=")
    expected = '--container-mounts="${JOB_DIR}":"${JOB_DIR}",'
    expected += f"{CODE}:{CODE}," if mounted else ""
    assert mounts.startswith(expected + '"${HOME}"/.cache/huggingface')
