"""A tiny trainer for sweep tests: reads its job config, trains on CPU, says what it did.

    sweep_trainer.py CONFIG [GATE]

It reads ``optimizer.lr`` and ``step_scheduler.max_steps`` from the job config it is
given (its point's: the array task's own), fits y = 3x with one weight by plain SGD over
gloo (a process group of its ranks; one rank alone fits it without torch, which a loaded
machine takes seconds to import), and writes one line ``point lr=LR steps=N loss=L
start=T0 end=T1`` (wall-clock seconds, so a test can see how many points ran at
once). With GATE, a path, it waits after training until that file exists (10 minutes at
most), holding its task running while the test looks at it.

Checkpoints as AutoModel keeps them (0.7.0's ``load_checkpoint`` with ``restore_from``
unset): unless ``checkpoint.enabled`` is false, it resumes from the folder in
``checkpoint.checkpoint_dir`` (default ``checkpoints/``) whose name ends in the highest
``step_S`` (one holding ``.incomplete`` skipped), says so (``resume step=S
checkpoint_dir=DIR``: 0 when there is none), trains steps S+1 to N only, and saves
``epoch_0_step_N`` there at the end.
"""

import os
import re
import sys
import time
from pathlib import Path

import yaml


def checkpoint_dir(config: dict) -> Path | None:
    section = config.get("checkpoint") or {}
    if section.get("enabled") is False:
        return None
    return Path(section.get("checkpoint_dir") or "checkpoints/")


def latest_step(folder: Path | None) -> int:
    """The step of the latest complete checkpoint in ``folder`` (0: none)."""
    found = 0
    if folder is not None and folder.is_dir():
        for entry in folder.iterdir():
            match = re.search(r"step_(\d+)$", entry.name)
            usable = entry.is_dir() and not entry.is_symlink()
            if match and usable and not (entry / ".incomplete").exists():
                found = max(found, int(match.group(1)))
    return found


def say(line: str) -> None:
    os.write(1, (line + "\n").encode())  # one write: the log is shared with the other ranks


def main() -> int:
    start = time.time()
    config = yaml.safe_load(Path(sys.argv[1]).read_text())
    lr = float(config["optimizer"]["lr"])
    steps = int(config["step_scheduler"]["max_steps"])
    folder = checkpoint_dir(config)
    group = None
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        loss, group = distributed(lr, steps, folder)
    else:  # one rank: the same fit without torch, which a loaded machine takes long to import
        resumed = latest_step(folder)
        say(f"resume step={resumed} checkpoint_dir={folder}")
        weight, loss = 0.0, 0.0
        xs = [-1 + 2 * i / 15 for i in range(16)]
        for _ in range(resumed, steps):
            loss = sum((weight * x - 3 * x) ** 2 for x in xs) / 16
            weight -= lr * sum(2 * (weight * x - 3 * x) * x for x in xs) / 16
        if folder is not None:
            (folder / f"epoch_0_step_{steps}").mkdir(parents=True, exist_ok=True)
    time.sleep(1)  # long enough for the scheduler to see tasks overlap, if it lets them
    if len(sys.argv) > 2:
        gate = Path(sys.argv[2])
        deadline = time.monotonic() + 600
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
    if int(os.environ.get("RANK", "0")) == 0:
        say(f"point lr={lr} steps={steps} loss={loss:.6f} start={start} end={time.time()}")
    if group is not None:
        group.destroy_process_group()
    return 0


def distributed(lr: float, steps: int, folder: Path | None) -> tuple[float, object]:
    """Train over gloo, every rank resuming where rank 0 found: the loss at the end, and
    the process group's module (destroyed once the run is done)."""
    import torch
    import torch.distributed as dist

    dist.init_process_group(backend="gloo")
    first = torch.tensor([latest_step(folder)])
    dist.broadcast(first, 0)
    resumed = int(first.item())
    if dist.get_rank() == 0:
        say(f"resume step={resumed} checkpoint_dir={folder}")
    weight = torch.zeros(1, requires_grad=True)
    x = torch.linspace(-1, 1, 16)
    loss = torch.tensor(0.0)
    for _ in range(resumed, steps):
        loss = ((weight * x - 3 * x) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            dist.all_reduce(weight.grad)
            weight -= lr * weight.grad / dist.get_world_size()
            weight.grad.zero_()
    if folder is not None and dist.get_rank() == 0:
        (folder / f"epoch_0_step_{steps}").mkdir(parents=True, exist_ok=True)
    return float(loss.item()), dist


if __name__ == "__main__":
    sys.exit(main())
