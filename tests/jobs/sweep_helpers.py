"""Sweeps written straight into job directories and the registry, as submit records them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from automodel_launch.jobs.manifest import MANIFEST, Manifest
from automodel_launch.jobs.registry import open_registry

SWEEP = "abcdef012345"


def job(job_dir: Path, job_id: str, scheduler_id: str | None, **fields: Any) -> Manifest:
    made = Manifest(
        id=job_id, name=fields.pop("name", "lr"), launcher=fields.pop("launcher", "slurm"),
        job_dir=str(job_dir), submitted_at=fields.pop("submitted_at", "2026-11-30T16:49:19Z"),
        config_path="/x.yaml", config_sha256="0" * 64, command_line=("automodel-launch",),
        artifacts=("job.sbatch",), scheduler_id=scheduler_id, **fields,
    )  # fmt: skip
    job_dir.mkdir(parents=True, exist_ok=True)
    (job_dir / MANIFEST).write_text(made.to_json())
    return made


def sweep(
    root: Path, count: int, array: int = 100, sweep_id: str = SWEEP, **details: Any
) -> list[Manifest]:
    """``count`` points of one Slurm array (tasks ``ARRAY_0``...), 2 nodes of 8 GPUs each."""
    made = [
        job(root / sweep_id / f"point{n}", f"{sweep_id[:6]}{n:06x}", f"{array}_{n}",
            sweep=sweep_id, point=n, values={"optimizer.lr": 10.0 ** -(n + 3), "peft.dim": 8},
            details={"nodes": 2, "gpus_per_node": 8, "time": "01:00:00", **details})
        for n in range(count)
    ]  # fmt: skip
    record(*made)
    return made


def record(*manifests: Manifest) -> None:
    with open_registry() as registry:
        for manifest in manifests:
            registry.add(manifest)
