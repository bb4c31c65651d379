"""``automodel-launch render``: the artifact on stdout, or a complete job directory."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SLURM = ROOT / "examples" / "llm_finetune_slurm.yaml"
BROKEN = ROOT / "examples" / "broken.yaml"
TOKEN = "hf_" + "RenderTestTokenValue0123456789abcdef"


def render(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", "render", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60,
        env={**os.environ, "HF_TOKEN": TOKEN, **(env or {})},
    )  # fmt: skip


def test_prints_the_sbatch_script(tmp_path: Path) -> None:
    done = render(str(SLURM), "--no-check-paths", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("#!/bin/bash\n#SBATCH --job-name=llm_finetune\n")
    assert f"#SBATCH --output={tmp_path}/slurm_jobs/llm_finetune/%x_%j.out" in done.stdout
    assert "hf_RenderTestTokenValue" not in done.stdout + done.stderr
    assert not (tmp_path / "slurm_jobs").exists()


def test_a_config_with_errors_is_not_rendered(tmp_path: Path) -> None:
    done = render(str(BROKEN), "--job-dir", str(tmp_path / "job"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "error[invalid-time] slurm.time" in done.stderr
    assert not (tmp_path / "job").exists()


def test_job_dir_holds_the_script_and_the_job_config(tmp_path: Path) -> None:
    job = tmp_path / "job"
    done = render(str(SLURM), "--no-check-paths", "--job-dir", str(job))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in job.iterdir()) == ["job.sbatch", "job_config.yaml", "launch.yaml"]
    assert stat.S_IMODE((job / "job.sbatch").stat().st_mode) == 0o755
    config = (job / "job_config.yaml").read_text()
    assert "slurm:" not in config and "ckpt_every_steps: 200" in config
    assert f"JOB_DIR={job}" in (job / "job.sbatch").read_text()
    for file in job.iterdir():
        assert "hf_RenderTestTokenValue" not in file.read_text()


def test_an_existing_job_dir_is_never_overwritten(tmp_path: Path) -> None:
    job = tmp_path / "job"
    job.mkdir()
    (job / "keep.txt").write_text("mine")
    done = render(str(SLURM), "--no-check-paths", "--job-dir", str(job))
    assert done.returncode == 1
    assert "already exists and is not empty" in done.stderr
    assert sorted(p.name for p in job.iterdir()) == ["keep.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["job"]


def test_a_job_dir_path_sbatch_cannot_carry_is_refused(tmp_path: Path) -> None:
    done = render(str(SLURM), "--no-check-paths", "--job-dir", str(tmp_path / "my job#1"))
    assert done.returncode == 2
    assert "cannot carry safely" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_interactive_config_prints_the_torchrun_command(tmp_path: Path) -> None:
    config = tmp_path / "local.yaml"
    config.write_text("recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel:\n  name: x\n")
    done = render(str(config), "--nproc-per-node", "4", env={"CUDA_VISIBLE_DEVICES": "0"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"torchrun --nproc_per_node=4 -m nemo_automodel.cli.app {config}\n"
    one = render(str(config), env={"CUDA_VISIBLE_DEVICES": "0"})
    assert one.stdout == f"automodel {config}\n"


def test_an_interactive_config_for_a_2025_release_names_its_command(tmp_path: Path) -> None:
    config = tmp_path / "local.yaml"
    config.write_text("model:\n  name: x\n")
    old = {"CUDA_VISIBLE_DEVICES": "0", "AUTOMODEL_LAUNCH_AUTOMODEL_VERSION": "0.3.0"}
    done = render(str(config), "--nproc-per-node", "4", env=old)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"torchrun --nproc_per_node=4 -m nemo_automodel._cli.app finetune llm -c {config}\n"
    )
    one = render(str(config), env=old)
    assert one.stdout == f"automodel finetune llm -c {config}\n"
    chosen = render(str(config), "--command", "pretrain", "--domain", "vlm", env=old)
    assert chosen.stdout == f"automodel pretrain vlm -c {config}\n"


def test_custom_entry(tmp_path: Path) -> None:
    config = tmp_path / "local.yaml"
    config.write_text("model:\n  name: x\n")
    done = render(str(config), "--nproc-per-node", "2", "--entry", "-m my_pkg.train --cfg {config}")
    assert done.stdout == f"torchrun --nproc_per_node=2 -m my_pkg.train --cfg {config}\n"


def test_a_credential_in_a_recipe_section_is_never_written(tmp_path: Path) -> None:
    config = tmp_path / "leaky.yaml"
    config.write_text(
        "wandb:\n  api_key: hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n"
        "slurm:\n  nodes: 1\n  container_image: null\n"
    )
    done = render(str(config), "--no-check-paths", "--job-dir", str(tmp_path / "job"))
    assert done.returncode == 1
    assert "2:12: error[secret-in-recipe] wandb.api_key" in done.stderr
    assert "AbCdEfGh" not in done.stderr + done.stdout
    assert not (tmp_path / "job").exists()


def test_a_home_relative_job_dir_is_written_where_the_script_points(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    done = render(
        str(SLURM), "--no-check-paths", "--job-dir", "~/x", cwd=work, env={"HOME": str(home)}
    )
    assert done.returncode == 0, done.stderr
    assert not (work / "~").exists()
    assert sorted(p.name for p in (home / "x").iterdir()) == [
        "job.sbatch",
        "job_config.yaml",
        "launch.yaml",
    ]
    assert f"JOB_DIR={home}/x\n" in (home / "x" / "job.sbatch").read_text()
    assert done.stderr == f"wrote {home}/x/: job.sbatch, job_config.yaml, launch.yaml\n"


def test_validate_refuses_the_job_dir_render_would_refuse(tmp_path: Path) -> None:
    # one rule for both commands: a config error (exit 1) with a position, not a usage error
    for value in ['"my jobs"', '"${HOME}/jobs"']:
        config = tmp_path / "c.yaml"
        config.write_text(f"slurm:\n  job_dir: {value}\n")
        done = render(str(config), "--no-check-paths", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert "c.yaml:2:12: error[invalid-job-dir] slurm.job_dir:" in done.stderr
        checked = subprocess.run(
            [sys.executable, "-m", "automodel_launch", "validate", "--no-check-paths", str(config)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert checked.returncode == 1
        assert "error[invalid-job-dir] slurm.job_dir" in checked.stdout
