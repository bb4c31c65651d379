"""Stand-in trainer that reports progress as AutoModel does, no model.

Rank 0 prints AutoModel's step line (``step N | epoch E | loss ... | tps A(B/gpu) | ...``)
each step and ``[val] ...`` each VAL_EVERY steps, and appends JSON Lines to
CKPT_DIR/training.jsonl and validation.jsonl, BUFFER records at a time (AutoModel: 100).
A checkpoint is a folder ``epoch_0_step_N`` in CKPT_DIR every CKPT_EVERY steps. Each
rank's throughput is 1,000 tokens/s less 10% per other rank (a scaling to measure).

MODE: ``train`` (STEPS steps of STEP_SECONDS), ``nan`` (the loss is nan from step
NAN_AT), ``hang`` (no step after HANG_AT). START_AFTER: the first step comes that many
seconds after the job's start as Slurm counts it (``scontrol show job``), so a time limit
falls at a known step however long the start took. The config's ``optimizer.lr`` (a
sweep's point has its own; else LR) sets the curves: the validation loss is lowest at 0.2.
"""

import json
import math
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path


def job_start() -> float:
    shown = subprocess.run(
        ["scontrol", "show", "job", os.environ["SLURM_JOB_ID"]],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    stamp = shown.split("StartTime=", 1)[1].split()[0]
    return time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))


def swept_lr() -> float | None:
    """``optimizer.lr`` of the job's config (a sweep's point has its own), read as text."""
    config = Path(os.environ.get("JOB_DIR", ".")) / "job_config.yaml"
    found = re.search(r"^optimizer:\n(?:[ ]+.*\n)*?[ ]+lr: ([0-9.eE+-]+)$",
                      config.read_text() if config.exists() else "", re.M)  # fmt: skip
    return float(found.group(1)) if found else None


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "train"
    rank0 = os.environ.get("RANK", "0") == "0"
    folder = Path(os.environ["CKPT_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    steps = int(os.environ.get("STEPS", "20"))
    pause = float(os.environ.get("STEP_SECONDS", "1"))
    every = int(os.environ.get("CKPT_EVERY", "10"))
    val_every = int(os.environ.get("VAL_EVERY", "5"))
    buffer_size = int(os.environ.get("BUFFER", "5"))
    lr = swept_lr() or float(os.environ.get("LR", "0.1"))
    gpus = int(os.environ.get("WORLD_SIZE", "1"))
    start_after = float(os.environ.get("START_AFTER", "0"))
    if start_after:
        time.sleep(max(0.0, job_start() + start_after - time.time()))
    pending: dict[str, list[str]] = {"training.jsonl": [], "validation.jsonl": []}

    def record(name: str, data: dict[str, object], now: bool = False) -> None:
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        data = {**data, "timestamp": stamp.replace("+00:00", "Z")}
        pending[name].append(json.dumps(data))
        if now or len(pending[name]) >= buffer_size:
            with open(folder / name, "a", encoding="utf-8") as out:
                out.write("\n".join(pending[name]) + "\n")
            pending[name] = []

    for step in range(1, steps + 1):
        if mode == "hang" and step > int(os.environ.get("HANG_AT", "10")):
            time.sleep(3600)
        time.sleep(pause)
        loss = 1.0 + 3.0 * math.exp(-step * lr)
        if mode == "nan" and step >= int(os.environ.get("NAN_AT", "8")):
            loss = float("nan")
        per_gpu = 1000.0 * 0.9 ** (gpus - 1)  # each rank added costs 10% per GPU
        tps = per_gpu * gpus
        if rank0:
            os.write(1, (
                f"step {step} | epoch 0 | loss {loss:.4f} | grad_norm 1.0000 | lr {lr:.2e} | "
                f"mem 1.50 GiB | tps {tps:.2f}({per_gpu:.2f}/gpu) | num_label_tokens 4096\n"
            ).encode())  # fmt: skip
            record("training.jsonl", {"step": step, "epoch": 0, "loss": loss,
                                      "tps": tps, "tps_per_gpu": per_gpu})  # fmt: skip
            if step % val_every == 0:
                val = 1.2 + 2.0 * math.exp(-step * lr) + abs(lr - 0.2)
                os.write(1, f'[val] name "default" | step {step} | epoch 0 | loss {val:.4f}\n'
                         .encode())  # fmt: skip
                record("validation.jsonl", {"step": step, "epoch": 0, "val_loss": val}, True)
            if step % every == 0:
                (folder / f"epoch_0_step_{step}").mkdir(exist_ok=True)
    for name in pending:
        if pending[name] and rank0:
            with open(folder / name, "a", encoding="utf-8") as out:
                out.write("\n".join(pending[name]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
