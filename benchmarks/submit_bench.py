"""What bench_sweep.py and bench_snapshot.py share: the recipe they submit, a stand-in
``sbatch`` on ``PATH`` that counts its calls and answers a job id (the real scheduler's
time is not ours), and one timed ``submit`` in a new process with a fresh registry (a
temporary state directory)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

RECIPE = """\
recipe: TrainFinetuneRecipeForNextTokenPrediction
step_scheduler:
  global_batch_size: 8
  local_batch_size: 1
  max_steps: 100
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
  pretrained_model_name_or_path: gpt2
optimizer:
  _target_: torch.optim.Adam
  lr: 1.0e-5
slurm:
  partition: batch
  time: "01:00:00"
  nodes: 1
  ntasks_per_node: 8
  job_dir: {jobs}
"""


def prepare(folder: Path, slurm: str = "") -> Path:
    """In ``folder``: ``bin/sbatch`` and ``recipe.yaml`` (its jobs in ``folder/jobs``,
    ``slurm`` more lines of its slurm section); the recipe's path."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    sbatch = bin_dir / "sbatch"
    sbatch.write_text('#!/bin/bash\necho called >> "$0.calls"\necho 4242\n')
    sbatch.chmod(0o755)
    recipe = folder / "recipe.yaml"
    recipe.write_text(RECIPE.format(jobs=folder / "jobs") + slurm)
    return recipe


def sbatch_calls(folder: Path) -> int:
    calls = folder / "bin" / "sbatch.calls"
    return calls.read_text().count("called") if calls.exists() else 0


def timed_submit(python: Path, folder: Path, *options: str, expect: str) -> float:
    """Seconds of ``submit RECIPE OPTIONS`` in a new process; exits unless its output
    says ``expect``."""
    command = [str(python), "-m", "automodel_launch", "submit", str(folder / "recipe.yaml"),
               "--no-preflight", "--no-check-paths", *options]  # fmt: skip
    env = {**os.environ, "PATH": f"{folder / 'bin'}:{os.environ['PATH']}",
           "AUTOMODEL_LAUNCH_STATE_DIR": str(folder / "state")}  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0 or expect not in done.stdout:
        sys.exit(f"submit did not say {expect!r}:\n{done.stdout}{done.stderr}")
    return seconds
