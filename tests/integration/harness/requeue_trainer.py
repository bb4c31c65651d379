"""Stand-in trainer for the requeue test: AutoModel's preemption behaviour, no model.

One step a second up to TOTAL_STEPS. A checkpoint (the step reached) is written to
CKPT_DIR every CKPT_EVERY steps, by rename so it is whole or absent, and read at
start: a restarted run resumes from it. A task of a job array keeps its own checkpoints,
in CKPT_DIR/TASK_ID. SIGTERM is handled as AutoModel's
StepScheduler handles its preemption signal: the step in progress finishes, a
checkpoint is saved, training stops. Every event is one line on stdout.
"""

import os
import signal
import sys
import time
from pathlib import Path

STOP = []


def say(text: str) -> None:
    restarts = os.environ.get("SLURM_RESTART_COUNT", "0")  # unset on a first run
    # one write() per line: the job's output file is shared with the batch shell
    os.write(1, f"trainer: {text} SLURM_RESTART_COUNT={restarts}\n".encode())


def save(path: Path, step: int, reason: str) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(str(step))
    partial.replace(path)
    say(f"checkpoint step={step} reason={reason}")


def main() -> int:
    folder = Path(os.environ["CKPT_DIR"])
    task = os.environ.get("SLURM_ARRAY_TASK_ID")
    if task is not None:
        folder = folder / task
    folder.mkdir(parents=True, exist_ok=True)
    latest = folder / "latest"
    total = int(os.environ.get("TOTAL_STEPS", "60"))
    every = int(os.environ.get("CKPT_EVERY", "5"))
    signal.signal(signal.SIGTERM, lambda signum, frame: STOP.append(signum))
    step = int(latest.read_text()) if latest.exists() else 0
    say(f"start step={step}")
    while step < total:
        time.sleep(1)
        step += 1
        if STOP:
            save(latest, step, "sigterm")
            say(f"stopped step={step}")
            return 0
        if step % every == 0:
            save(latest, step, "interval")
    save(latest, step, "final")
    say(f"done step={step}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
