"""``render`` and ``submit`` refuse what they cannot launch, at the line, writing nothing:
AutoModel's own launchers (k8s:, nemo_run:), a launcher section with no recipe, and YAML
that is no recipe at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "examples" / "valid"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args, "--no-check-paths"],
        capture_output=True, text=True, cwd=cwd, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("example", "line", "how"),
    [
        (
            "k8s_pytorchjob.yaml",
            8,
            "launch on Kubernetes here with skypilot: and cloud: kubernetes",
        ),
        ("nemo_run_named_executor.yaml", 5, "AutoModel hands the recipe to the NeMo-Run executor"),
    ],
)
@pytest.mark.parametrize("command", [("render",), ("submit", "--dry-run")])
def test_automodel_launchers_are_validated_but_not_launched(
    tmp_path: Path, example: str, line: int, how: str, command: tuple[str, ...]
) -> None:
    assert cli("validate", str(EXAMPLES / example), cwd=tmp_path).returncode == 0
    done = cli(*command, str(EXAMPLES / example), "--job-dir", str(tmp_path / "job"), cwd=tmp_path)
    assert done.returncode == 1
    name = example.split("_")[0] if example.startswith("k8s") else "nemo_run"
    by = "by no AutoModel release" if name == "k8s" else "by AutoModel itself"
    assert f"{example}:{line}:1: error[launched-by-automodel] {name}: {name}: is validated here " \
        f"but launched {by}" in done.stdout + done.stderr  # fmt: skip
    assert "`automodel FILE`" in done.stdout + done.stderr
    assert how in done.stdout + done.stderr
    assert not (tmp_path / "job").exists()


LAUNCHER_ONLY = 'slurm:\n  nodes: 2\n  time: "01:00:00"\n'


@pytest.mark.parametrize("command", [("render",), ("submit", "--dry-run")])
def test_a_launcher_section_without_a_recipe_has_nothing_to_train(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    (tmp_path / "launcher.yaml").write_text(LAUNCHER_ONLY, encoding="utf-8")
    assert cli("validate", "launcher.yaml", cwd=tmp_path).returncode == 0
    done = cli(*command, "launcher.yaml", "--job-dir", str(tmp_path / "job"), cwd=tmp_path)
    assert done.returncode == 1
    assert (
        "launcher.yaml:1:1: error[nothing-to-train] slurm: the file has a slurm: section but no "
        "recipe: nothing to train (the job config would be empty)"
    ) in done.stdout + done.stderr
    assert not (tmp_path / "job").exists()


@pytest.mark.parametrize(
    ("addition", "version"),
    [
        ("recipe: TrainFinetuneRecipeForNextTokenPrediction\n", "0.7.0"),
        ("model:\n  x: 1\n", "0.3.0"),  # the 2025 command form: the CLI names the recipe
        ("step_scheduler:\n  max_steps: 10\n", "0.3.0"),
    ],
)
def test_a_recipe_or_a_model_is_something_to_train(
    tmp_path: Path, addition: str, version: str
) -> None:
    (tmp_path / "recipe.yaml").write_text(addition + LAUNCHER_ONLY, encoding="utf-8")
    done = cli("render", "recipe.yaml", "--set", f"automodel_version={version}", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("#!/bin/bash\n")


@pytest.mark.parametrize("command", [("render",), ("submit", "--dry-run")])
def test_a_model_without_a_recipe_key_is_refused_from_0_4_0(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    (tmp_path / "recipe.yaml").write_text("model:\n  x: 1\n" + LAUNCHER_ONLY, encoding="utf-8")
    done = cli(*command, "recipe.yaml", "--job-dir", str(tmp_path / "job"), cwd=tmp_path)
    assert done.returncode == 1
    assert (
        "recipe.yaml:1:1: error[missing-recipe-key] model: AutoModel 0.7.0 starts a job with "
        "`automodel CONFIG`, which needs a recipe: key naming the recipe class"
    ) in done.stdout + done.stderr
    assert not (tmp_path / "job").exists()
    mine = cli("render", "recipe.yaml", "--entry", "-m mytrainer {config}", cwd=tmp_path)
    assert mine.returncode == 0, mine.stdout + mine.stderr
    assert "-m mytrainer" in mine.stdout


def test_an_entry_of_ones_own_needs_no_recipe(tmp_path: Path) -> None:
    (tmp_path / "launcher.yaml").write_text(LAUNCHER_ONLY, encoding="utf-8")
    done = cli("render", "launcher.yaml", "--entry", "-m mytrainer {config}", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-m mytrainer" in done.stdout


def test_ones_own_sbatch_script_is_submitted_with_sbatch(tmp_path: Path) -> None:
    example = EXAMPLES / "slurm_own_sbatch_script.yaml"
    assert cli("validate", str(example), cwd=tmp_path).returncode == 0
    done = cli("render", str(example), "--job-dir", str(tmp_path / "job"), cwd=tmp_path)
    assert done.returncode == 1
    assert (
        "slurm_own_sbatch_script.yaml:7:11: error[own-sbatch-script] slurm.script: slurm.script "
        "names your own sbatch script"
    ) in done.stdout + done.stderr
    assert "submit yours with `sbatch my_cluster.sub`" in done.stdout + done.stderr
    assert not (tmp_path / "job").exists()


@pytest.mark.parametrize(
    ("example", "line", "what"),
    [
        ("files_kubernetes_manifest.yaml", "4:1", "a Kubernetes manifest (kind: PyTorchJob)"),
        ("files_compose.yaml", "3:1", "a Docker Compose file"),
    ],
)
@pytest.mark.parametrize("command", [("render",), ("submit", "--dry-run")])
def test_a_file_that_is_no_recipe_is_no_job(
    tmp_path: Path, example: str, line: str, what: str, command: tuple[str, ...]
) -> None:
    checked = cli("validate", str(EXAMPLES / example), cwd=tmp_path)
    assert checked.returncode == 0
    assert "note[not-a-recipe]" in checked.stdout
    done = cli(*command, str(EXAMPLES / example), "--job-dir", str(tmp_path / "job"), cwd=tmp_path)
    assert done.returncode == 1
    key = "apiVersion" if "Kubernetes" in what else "services"
    assert (
        f"{example}:{line}: error[not-a-recipe] {key}: the file looks like {what}, not an "
        "AutoModel recipe: there is nothing to train"
    ) in done.stdout + done.stderr
    assert not (tmp_path / "job").exists()
