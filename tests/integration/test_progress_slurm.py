"""On the real local Slurm cluster: ``status`` follows a job's training as a stand-in
trainer reports it in AutoModel's words (``harness/progress_trainer.py``: the step lines,
``training.jsonl`` and ``validation.jsonl`` under ``checkpoint.checkpoint_dir``).

Three jobs are submitted at once and watched together:

- **limit**: a step a second, 1,000 steps, a checkpoint every 100, a 3-minute limit.
  Its first step comes 30 s after the job's start as Slurm counts it (the trainer waits
  for that), so the limit falls near step 150 however long the start took: the forecast
  says it stops near 150 with its last checkpoint at 100, and it does. Slurm stops a job
  at its first time-limit check after the limit (about every 30 s) and gives it KillWait
  (5 s) more: the last step is 150 to 190, which holds no other checkpoint.
- **nan**: the loss is nan from step 8; ``status`` names the step.
- **hang**: no step after step 6; ``status`` names the hang once ten usual intervals and
  the 30 s floor passed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS, Cluster
from tests.integration.tool import ENDED, Tool

pytestmark = pytest.mark.integration

CONFIG = """\
step_scheduler:
  max_steps: {steps}
  ckpt_every_steps: {every}
checkpoint:
  enabled: true
  checkpoint_dir: {ckpt}
slurm:
  job_name: {name}
  nodes: 1
  ntasks_per_node: 1
  gpus_per_node: 0
  time: "{time}"
  container_image: null
  master_port: {port}
  job_dir: {jobs}
  env_vars:
    OMP_NUM_THREADS: 1
    CKPT_DIR: {ckpt}
    STEPS: {steps}
    CKPT_EVERY: {every}
{more}"""


class Cli(Tool):
    def submit(self, name: str, mode: str, *, steps: int, every: int, time_limit: str,
               more: dict[str, str], prefix: str = "",
               options: tuple[str, ...] = ()) -> str:  # fmt: skip
        config = self.tmp / f"{name}.yaml"
        extra = "".join(f"    {key}: {value}\n" for key, value in more.items())
        config.write_text(prefix + CONFIG.format(
            name=name, steps=steps, every=every, time=time_limit, port=free_port(),
            jobs=self.tmp / "jobs", ckpt=self.tmp / "ckpt" / name, more=extra,
        ))  # fmt: skip
        return self.submitted(config, f"{HARNESS / 'progress_trainer.py'} {mode}", *options)


def _problems(shown: dict[str, Any]) -> list[str]:
    return [p["kind"] for p in (shown.get("progress") or {}).get("problems", [])]


def test_status_follows_training_forecasts_the_limit_and_names_nan_and_hang(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    cli = Cli(slurm_cluster, torchrun, tmp_path)
    limit = cli.submit("limit", "train", steps=1000, every=100, time_limit="3",
                       more={"STEP_SECONDS": "1", "START_AFTER": "30"})  # fmt: skip
    nan = cli.submit("nan", "nan", steps=14, every=5, time_limit="5",
                     more={"STEP_SECONDS": "0.5", "NAN_AT": "8"})  # fmt: skip
    hang = cli.submit("hang", "hang", steps=100, every=5, time_limit="5",
                      more={"STEP_SECONDS": "1", "HANG_AT": "6"})  # fmt: skip

    shown = cli.until(nan, lambda s: s["state"] in ENDED, 300)
    assert shown["state"] == "COMPLETED", shown
    progress = shown["progress"]
    assert progress["problems"] == [
        {"kind": "not-a-number", "step": 8, "text": "the loss is nan at step 8"}
    ]
    assert (progress["step"], progress["max_steps"], progress["loss"]) == (14, 14, "nan")
    text = cli.run("status", nan).stdout
    assert "problem    the loss is nan at step 8\n" in text, text

    shown = cli.until(limit, lambda s: ((s.get("progress") or {}).get("step") or 0) >= 25, 300)
    assert shown["state"] == "RUNNING", shown
    progress = shown["progress"]
    assert progress["max_steps"] == 1000 and progress["loss"] < 4.0
    assert 0.9 <= progress["seconds_per_step"] <= 1.3, progress
    assert progress["rate_from"] == "training.jsonl's timestamps"
    assert progress["tps_per_gpu"] == 1000.0 and progress["mem_gib"] == 1.5
    forecast = progress["forecast"]
    assert forecast["finishes"] is False and forecast["requeued"] is False
    stop = forecast["stop_step"]
    assert 135 <= stop <= 152, forecast
    assert forecast["last_checkpoint"] == 100
    assert forecast["lost_steps"] == stop - 100
    assert re.fullmatch(
        r"at 1\.\d\d s a step, step 1000 comes \d+m\d\ds after the start; the limit is 3m: "
        rf"the job stops near step {stop}; its last checkpoint will be step 100; the "
        rf"{stop - 100} steps after it are lost",
        forecast["text"],
    ), forecast
    text = cli.run("status", limit).stdout
    assert re.search(r"^progress   step \d+ of 1000, epoch 0; loss \d\.\d{4}", text, re.M), text
    assert re.search(
        r"^rate       1\.\d\d s a step \(from training\.jsonl's timestamps\); "
        r"1,000 tokens/s per GPU; memory 1\.50 GiB; \d+m\d\ds left",
        text,
        re.M,
    ), text
    assert f"forecast   {forecast['text']}\n" in text

    shown = cli.until(hang, lambda s: "hang" in _problems(s), 240)
    assert "hang" in _problems(shown), shown
    (problem,) = [p for p in shown["progress"]["problems"] if p["kind"] == "hang"]
    assert problem["step"] == 6
    assert re.fullmatch(r"no new step for \d+s after step 6 \(a step usually takes 1\.\d\d s\): "
                        r"it may hang", problem["text"]), problem  # fmt: skip
    assert cli.run("cancel", hang).returncode == 0

    shown = cli.until(limit, lambda s: s["state"] in ENDED, 420)
    assert shown["state"] == "TIMEOUT", shown
    log = Path(shown["log_path"]).read_text()
    last = max(int(n) for n in re.findall(r"^\S* ?step (\d+) \|", log, re.M))
    assert stop - 3 <= last <= 190, (stop, last)
    kept = sorted(int(p.name.rsplit("_", 1)[1]) for p in (tmp_path / "ckpt" / "limit").glob(
        "epoch_0_step_*"))  # fmt: skip
    assert kept == [100], kept
    assert shown["progress"]["step"] == last


SWEEP_CONFIG = """\
optimizer:
  lr: 0.1
"""


def test_status_sweep_ranks_points_by_validation_loss_and_shows_the_scaling(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    """A 3-point sweep of ``optimizer.lr`` (the trainer's validation loss is lowest at 0.2)
    and a ``slurm.nodes=1,2`` sweep (two arrays of one sweep), submitted together."""
    cli = Cli(slurm_cluster, torchrun, tmp_path)
    settings = {"STEP_SECONDS": "0.3", "VAL_EVERY": "5"}
    lrs = cli.submit("lrs", "train", steps=20, every=10, time_limit="5", more=settings,
                     prefix=SWEEP_CONFIG,
                     options=("--sweep", "optimizer.lr=0.1,0.2,0.3"))  # fmt: skip
    nodes = cli.submit("nodes", "train", steps=20, every=10, time_limit="5", more=settings,
                       options=("--sweep", "slurm.nodes=1,2"))  # fmt: skip

    def done(shown: dict[str, Any]) -> bool:
        return all(p["state"] in ENDED for p in shown["points"])

    shown = cli.until(lrs, done, 300)
    assert [p["state"] for p in shown["points"]] == ["COMPLETED"] * 3, shown
    assert (shown["sort"], shown["order"], shown["best_point"]) == ("val_loss", [1, 2, 0], 1)
    best = [p["progress"]["best_val_loss"] for p in shown["points"]]
    assert best[1] < best[2] < best[0], best
    assert [p["progress"]["best_val_step"] for p in shown["points"]] == [20, 20, 20]
    text = cli.run("status", lrs).stdout
    assert (f"best       point 1 (optimizer.lr=0.2): validation loss {best[1]:.4f} at step 20\n"
            in text), text  # fmt: skip
    rows = re.findall(r"^(\*| ) +(\d) +optimizer\.lr=", text, re.M)
    assert rows == [("*", "1"), (" ", "2"), (" ", "0")], text
    by_lr = cli.run("status", lrs, "--sort", "optimizer.lr", "--format", "json")
    assert json.loads(by_lr.stdout)["order"] == [0, 1, 2]
    wrong = cli.run("status", lrs, "--sort", "colour")
    assert wrong.returncode == 2
    said = " ".join(wrong.stderr.replace("│", " ").split())  # rich's box folds the line
    assert ("'colour': sort by one of point, state, step, loss, val_loss, tps_per_gpu, "
            "elapsed, optimizer.lr") in said, wrong.stderr  # fmt: skip

    shown = cli.until(nodes, done, 300)
    assert [p["state"] for p in shown["points"]] == ["COMPLETED"] * 2, shown
    assert len(shown["scheduler_id"].split(",")) == 2, shown  # two arrays, one sweep
    assert shown["scaling"] == [
        {"point": 0, "nodes": 1, "tps": 1000.0, "tps_per_gpu": 1000.0, "efficiency": 1.0},
        {"point": 1, "nodes": 2, "tps": 1800.0, "tps_per_gpu": 900.0, "efficiency": 0.9},
    ]
    text = cli.run("status", nodes).stdout
    assert ("scaling    point 1: 2 node(s), 900 tokens/s per GPU, 90% of the smallest "
            "point's\n") in text, text  # fmt: skip
