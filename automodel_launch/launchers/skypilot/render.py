"""The SkyPilot task for a ``skypilot:`` section.

A task YAML that SkyPilot's own schema accepts. The VM does not have the local
environment, so ``${VAR}`` references in ``envs`` are resolved from the submitting
environment (``spec.environ``); credentials go under ``secrets:`` by name only, and
their values (:func:`secret_values`) reach SkyPilot's API at submit time, never this
file. A variable is a credential when its name or a name it references is secret,
or when its resolved value is shaped like a token. Spot tasks carry a
managed-job ``job_recovery`` and are launched with ``sky jobs launch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from automodel_launch import secrets
from automodel_launch.config.document import LaunchDocument
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.layout import JOB_CONFIG, RANK_LOGS
from automodel_launch.loading import env
from automodel_launch.render.entry import JobSpec
from automodel_launch.render.environment import Value, exported_variables
from automodel_launch.render.shell import quote
from automodel_launch.render.torchrun import Rendezvous, join_lines, torchrun_words

MASTER_PORT = 13742
REMOTE_ROOT = "~/.automodel-launch"

_RUN_PREAMBLE = """\
set -euo pipefail
MASTER_ADDR="$(echo "$SKYPILOT_NODE_IPS" | head -n1)"
NODE_ADDR="$(echo "$SKYPILOT_NODE_IPS" | sed -n "$((SKYPILOT_NODE_RANK + 1))p")"
MASTER_PORT="${{MASTER_PORT:-{port}}}"
WORLD_SIZE=$((SKYPILOT_NUM_NODES * {nproc}))
export MASTER_ADDR MASTER_PORT WORLD_SIZE PET_LOCAL_ADDR="$NODE_ADDR"
export TORCH_NCCL_ASYNC_ERROR_HANDLING=1
"""


RANK_TAGS = (
    "export PET_TEE=3 PET_LOG_DIR={log_dir} "
    'TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE="[rank\\${{rank}}]:"\n'
)
"""torchrun tags each line with the global rank (``logs --rank N`` keeps rank N's) and
keeps each rank's output on its node, beside the job config (as the Slurm script does)."""


def remote_config_path(job_name: str) -> str:
    return f"{REMOTE_ROOT}/{job_name}/{JOB_CONFIG}"


def render_task(document: LaunchDocument, spec: JobSpec) -> dict[str, Any]:
    cfg = document.skypilot
    assert cfg is not None, "render_task needs a skypilot: section"
    name = cfg.job_name or spec.job_name
    envs, secret_names = split_environment(cfg, spec.environ)
    task: dict[str, Any] = {
        "name": name,
        "num_nodes": cfg.num_nodes,
        "resources": _resources(cfg, spec.environ),
    }
    if envs:
        task["envs"] = envs
    if secret_names:
        task["secrets"] = dict.fromkeys(secret_names)
    task["file_mounts"] = {
        remote_config_path(name): f"{spec.job_dir}/{JOB_CONFIG}",
        **_file_mounts(cfg, spec.environ),
    }
    if cfg.setup:
        task["setup"] = cfg.setup
    task["run"] = run_script(cfg, spec, name)
    return task


def _resources(cfg: SkyPilotConfig, environ: Mapping[str, str]) -> dict[str, Any]:
    resources: dict[str, Any] = {"cloud": cfg.cloud}
    for key in ("region", "zone", "instance_type", "accelerators", "disk_size"):
        value = getattr(cfg, key)
        if value is not None:
            resources[key] = value
    if cfg.image_id is not None:
        resources["image_id"] = _as_written_or_resolved(cfg.image_id, environ)
    resources["use_spot"] = cfg.use_spot
    if not cfg.use_spot and cfg.autostop is not None:
        resources["autostop"] = {"idle_minutes": cfg.autostop, "down": cfg.down}
    if cfg.use_spot:
        recovery = cfg.job_recovery
        resources["job_recovery"] = {
            "strategy": recovery.strategy if recovery else "EAGER_NEXT_REGION",
            "max_restarts_on_errors": recovery.max_restarts_on_errors if recovery else 0,
        }
    return resources


def _file_mounts(cfg: SkyPilotConfig, environ: Mapping[str, str]) -> dict[str, Any]:
    """The section's mounts, their ``${VAR}`` references resolved as ``envs`` are."""
    mounts: dict[str, Any] = {}
    for dest, held in cfg.file_mounts.items():
        if isinstance(held, str):
            mounts[dest] = _as_written_or_resolved(held, environ)
            continue
        storage = held.model_dump(exclude_none=True)
        for key in ("name", "source"):
            value = storage.get(key)
            if isinstance(value, str):
                storage[key] = _as_written_or_resolved(value, environ)
            elif isinstance(value, list):
                storage[key] = [_as_written_or_resolved(v, environ) for v in value]
        mounts[dest] = storage
    return mounts


def _as_written_or_resolved(text: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` resolved from the submitting environment; as written when a reference is
    unset (SkyPilot fills ``${NAME}`` from the task's envs) or the value looks like a token
    (it never reaches the task file)."""
    resolved, missing = env.expand(text, environ)
    return text if missing or secrets.looks_like_token(resolved) else resolved


def split_environment(
    cfg: SkyPilotConfig, environ: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """(envs resolved now, names of secrets whose values travel at submit time)."""
    envs: dict[str, str] = {}
    names: list[str] = []
    for name, value, is_secret in _resolved(cfg, environ):
        if is_secret:
            names.append(name)
        else:
            envs[name] = value
    return envs, names


def secret_values(cfg: SkyPilotConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The value of each secret the task names, resolved from ``environ`` (unset ones left out)."""
    return {
        name: value for name, value, is_secret in _resolved(cfg, environ) if is_secret and value
    }


def _resolved(cfg: SkyPilotConfig, environ: Mapping[str, str]) -> list[tuple[str, str, bool]]:
    """(NAME, value now, is a secret); a value with an unset reference stays as written."""
    variables: list[tuple[str, str, bool]] = []
    exported = exported_variables(cfg)
    if cfg.hf_home:
        exported.insert(0, ("HF_HOME", Value(cfg.hf_home, False)))
    for name, value in exported:
        resolved, missing = env.expand(value.text, environ)
        if missing:
            variables.append((name, "" if value.is_secret else value.text, value.is_secret))
        else:
            variables.append(
                (name, resolved, value.is_secret or secrets.looks_like_token(resolved))
            )
    return variables


def run_script(cfg: SkyPilotConfig, spec: JobSpec, name: str) -> str:
    nproc = cfg.ranks_per_node
    rendezvous = Rendezvous(
        nnodes='"$SKYPILOT_NUM_NODES"',
        endpoint='"$MASTER_ADDR:$MASTER_PORT"',
        rdzv_id=quote(name),
        node_rank='"$SKYPILOT_NODE_RANK"',
    )
    config_word = '"$HOME"/' + quote(remote_config_path(name).removeprefix("~/"))
    words = torchrun_words(nproc, rendezvous) + spec.entry.words(config_word)
    rank_logs = '"$HOME"/' + quote(f"{REMOTE_ROOT}/{name}/{RANK_LOGS}".removeprefix("~/"))
    tags = RANK_TAGS.format(log_dir=rank_logs)
    return _RUN_PREAMBLE.format(port=MASTER_PORT, nproc=nproc) + tags + join_lines(words) + "\n"


def task_yaml(task: dict[str, Any]) -> str:
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.scalarstring import LiteralScalarString

    yaml = YAML()
    yaml.width = 4096
    body = {k: LiteralScalarString(v) if k in ("run", "setup") else v for k, v in task.items()}
    out = io.StringIO()
    yaml.dump(body, out)
    return out.getvalue()


def render_artifact(document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
    """The launcher table's entry: ranks per node come from the section, not the host."""
    return task_yaml(render_task(document, spec))
