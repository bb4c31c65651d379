"""``launch.yaml``: the whole config a job was checked with, planned again as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.loading import load_text
from automodel_launch.plan.plan import JobPlan
from tests.conftest import ROOT

NO_JOB = ("files_", "k8s_", "nemo_run_", "runtime_ranks_unknown", "slurm_own_sbatch_script")
"""Valid examples this tool renders no job of: other YAML files, AutoModel's own launchers,
a job whose ranks or script are the user's."""
VALID = sorted(
    p for p in (ROOT / "tests/examples/valid").glob("*.yaml") if not p.name.startswith(NO_JOB)
)


def plan_of(path: Path) -> JobPlan:
    return api.plan(path, entry="train.py", config=api.settings(check_paths=False, check_env=False))


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_a_job_planned_from_its_launch_config_is_the_same_job(path: Path, tmp_path: Path) -> None:
    first = plan_of(path)
    assert not first.failed(False), first.report.diagnostics
    launch = tmp_path / "launch.yaml"
    launch.write_text(first.files["launch.yaml"])
    again = plan_of(launch)
    assert not again.failed(False), again.report.diagnostics
    assert again.files["job_config.yaml"] == first.files["job_config.yaml"]
    assert again.artifact.replace(str(launch), "R") == first.artifact.replace(str(path), "R")


def launch_text(tmp_path: Path, text: str, *sets: str) -> str:
    (tmp_path / "r.yaml").write_text(text)
    made = api.plan(
        tmp_path / "r.yaml", sets=list(sets), entry="train.py",
        config=api.settings(check_paths=False, check_env=False),
    )  # fmt: skip
    assert not made.failed(False), made.report.diagnostics
    return made.files["launch.yaml"]


SLURM = "slurm:\n  partition: batch  # the queue\n  time: 1:00:00\n  env_vars:\n    PY: 3.10\n"
RECIPE = "model:\n  name: gpt2  # small\n# the rate\nlr: 1.0e-5\n"


def test_the_recipe_keeps_its_text_and_the_launcher_its_merged_values(tmp_path: Path) -> None:
    text = launch_text(tmp_path, SLURM + RECIPE, "slurm.nodes=2", "lr=3e-4")
    assert text.startswith("model:\n  name: gpt2  # small\n# the rate\nlr: 0.0003\n")
    assert "the queue" not in text  # the launcher half is written from the data
    loaded = load_text(text, Path("launch.yaml")).loaded
    assert loaded is not None
    assert loaded.data["slurm"] == {
        "partition": "batch", "time": "1:00:00", "env_vars": {"PY": "3.10"}, "nodes": 2,
    }  # fmt: skip
    assert loaded.data["lr"] == 0.0003


def test_a_document_end_is_written_whole(tmp_path: Path) -> None:
    text = launch_text(tmp_path, SLURM + RECIPE + "...\n")
    loaded = load_text(text, Path("launch.yaml")).loaded
    assert loaded is not None and "..." not in text
    assert loaded.data["model"] == {"name": "gpt2"}
    assert loaded.data["slurm"]["time"] == "1:00:00"


def test_a_flow_mapping_is_written_whole(tmp_path: Path) -> None:
    text = launch_text(tmp_path, "{slurm: {partition: batch, time: '1:00:00'}, lr: 1.0e-5}\n")
    loaded = load_text(text, Path("launch.yaml")).loaded
    assert loaded is not None and "{" not in text
    assert loaded.data == {"lr": 1.0e-5, "slurm": {"partition": "batch", "time": "1:00:00"}}
