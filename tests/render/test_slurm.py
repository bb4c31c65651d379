from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.render.cases import RECIPE, SLURM
from tests.render.conftest import assert_golden, render_text


@pytest.mark.parametrize("name", sorted(SLURM))
def test_golden_script(name: str) -> None:
    files = render_text(RECIPE + SLURM[name], name)
    assert_golden(f"{name}.sbatch", files["job.sbatch"])


@pytest.mark.parametrize("name", sorted(SLURM))
def test_script_passes_bash_n_and_shellcheck(name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "job.sbatch"
    script.write_text(render_text(RECIPE + SLURM[name], name)["job.sbatch"])
    subprocess.run(["bash", "-n", str(script)], check=True)
    if shutil.which("shellcheck") is None:
        from tests.integration.conftest import unavailable

        unavailable("shellcheck is not installed (apt-get install shellcheck)")
    result = subprocess.run(
        ["shellcheck", "-s", "bash", str(script)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


def directives(script: str) -> list[str]:
    """The #SBATCH block: every line from the shebang to the first command."""
    lines = script.splitlines()[1:]
    block = []
    for line in lines:
        if line.startswith("#SBATCH"):
            block.append(line)
        elif line.strip() and not line.startswith("#"):
            break
    return block


def test_every_sbatch_line_comes_before_the_first_command() -> None:
    script = render_text(RECIPE + SLURM["slurm_multi_node_container"])["job.sbatch"]
    assert directives(script) == [s for s in script.splitlines() if s.startswith("#SBATCH")]
    assert directives(script) == [
        "#SBATCH --job-name=llm_finetune",
        "#SBATCH --nodes=4",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --time=2-00:00:00",
        "#SBATCH --account=my_account",
        "#SBATCH --partition=batch",
        "#SBATCH --gpus-per-node=8",
        "#SBATCH --output=/jobs/case/%x_%j.out",
    ]


def test_null_account_and_partition_are_omitted() -> None:
    script = render_text(RECIPE + SLURM["slurm_bare_metal_env_secrets"])["job.sbatch"]
    assert "--account" not in script and "--partition" not in script
    assert "None" not in script


def test_bare_metal_has_no_pyxis_flags_and_container_has_them() -> None:
    bare = render_text(RECIPE + SLURM["slurm_bare_metal_env_secrets"])["job.sbatch"]
    assert "--container" not in bare
    boxed = render_text(RECIPE + SLURM["slurm_multi_node_container"])["job.sbatch"]
    assert "--container-image=nvcr.io/nvidia/nemo:dev" in boxed
    assert (
        '--container-mounts="${JOB_DIR}":"${JOB_DIR}",/lustre/hf_cache:/lustre/hf_cache,'
        "/lustre/src/Automodel:/opt/Automodel,/lustre/data:/data,/scratch:/scratch:ro"
    ) in boxed
    assert "--no-container-mount-home" in boxed


def test_secrets_are_references_never_values() -> None:
    script = render_text(RECIPE + SLURM["slurm_bare_metal_env_secrets"])["job.sbatch"]
    assert 'export HF_TOKEN="${HF_TOKEN}"' in script
    assert 'export WANDB_API_KEY="${MY_WANDB}"' in script
    assert "HF_TOKEN, WANDB_API_KEY" in script


def test_fault_tolerance_requeues_and_restarts() -> None:
    script = render_text(RECIPE + SLURM["slurm_nsys_fault_tolerance"])["job.sbatch"]
    assert "#SBATCH --requeue\n#SBATCH --open-mode=append" in script
    assert "--max_restarts=2" in script
    assert "nsys profile" in script and "$JOB_DIR/nsys_" in script
