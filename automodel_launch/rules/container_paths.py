"""Paths a recipe writes to that no container mount keeps.

In a pyxis container (``slurm.container_image``) only the mounted directories reach
the host; anything else a job writes (a checkpoint, a dataset cache, the Hugging Face
cache) lands in the container's own filesystem and is gone when the job ends. Only the
whole recipe shows it: the path is in a recipe section, the mounts in ``slurm:``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.diagnostics import Loc
from automodel_launch.rules.context import Context

WRITTEN_KEYS = frozenset(
    {"checkpoint_dir", "output_dir", "save_dir", "log_dir", "logging_dir", "index_mapping_dir",
     "hf_home"}
)  # fmt: skip
"""Recipe keys whose directory the job writes into (and every ``*cache_dir``)."""


def unmounted_paths(ctx: Context) -> None:
    slurm = ctx.section("slurm", SlurmConfig)
    if slurm is None or slurm.container_image is None:
        return
    if ctx.invalid("slurm") & {"hf_home", "repo_root", "nemo_mount", "extra_mounts", "job_dir"}:
        return  # judged on mounts the user did not write
    dests = [m.dest.rstrip("/") or "/" for _, m in slurm.named_mounts()]
    if slurm.job_dir and slurm.job_dir.startswith("/"):
        dests.append(slurm.job_dir.rstrip("/") or "/")
    for loc, path in _written_paths(ctx.data):
        if not any(path == d or path.startswith(d.rstrip("/") + "/") for d in dests):
            ctx.sink.add(
                "path-not-mounted",
                loc,
                f"{path} is under no container mount: the job writes it into the container's "
                "own filesystem, which is lost when the job ends",
                f"mount it: add {_parent(path)} to slurm.extra_mounts (or write the path "
                "under a directory that is mounted)",
            )
    if slurm.hf_home and not slurm.hf_home.startswith(("/", "~", "$")):  # $X: said elsewhere
        ctx.sink.add(
            "path-not-mounted",
            ("slurm", "hf_home"),
            f"hf_home '{slurm.hf_home}' is relative, so it is not mounted: each node downloads "
            "into a cache inside its container, lost when the job ends",
            "write an absolute path on shared storage, or ~/... (mounted at the same path)",
        )


def _written_paths(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    for name, section in data.items():
        if name not in LAUNCHER_SECTIONS:
            yield from _walk(section, (name,))
    slurm = data.get("slurm")
    env_vars = slurm.get("env_vars") if isinstance(slurm, dict) else None
    if isinstance(env_vars, dict):
        for key, value in env_vars.items():
            if isinstance(key, str) and "CACHE" in key and _absolute(value):
                yield ("slurm", "env_vars", key), value


def _walk(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and _written(key) and _absolute(item):
                yield (*loc, key), item
            else:
                yield from _walk(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*loc, index))


def _written(key: str) -> bool:
    return key in WRITTEN_KEYS or key.endswith("cache_dir")


def _absolute(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("/") and "://" not in value


def _parent(path: str) -> str:
    """The top directory of the path, the usual mount (``/lustre`` of ``/lustre/a/b``)."""
    top = path.strip("/").split("/", 1)[0]
    return f"/{top}" if top else "/"
