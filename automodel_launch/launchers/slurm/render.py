"""The SBATCH script for a ``slurm:`` section.

Layout: every ``#SBATCH`` line first (nothing above them can void them; each only
when its field is set, ``sbatch_args`` last), then the rendezvous variables, the
environment, the ``setup`` lines, and one ``srun`` that starts one torchrun agent per
node (or the ``command``). Every value from the config is shell-quoted; credentials appear
only as ``${NAME}`` references, resolved by the job's shell from the submitting
environment (sbatch exports it).
"""

from __future__ import annotations

from automodel_launch.config.document import LaunchDocument
from automodel_launch.config.recipe import FaultTolerance
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.launchers.slurm import notify, requeue
from automodel_launch.launchers.slurm.arrays import task_ranges
from automodel_launch.layout import (
    ERROR_FILES,
    EXIT_CODE,
    JOB_CONFIG,
    POINTS,
    RANK_LOGS,
    SLURM_ARRAY_LOG_PATTERN,
    SLURM_LOG_PATTERN,
    agent_error_file,
    staging,
)
from automodel_launch.render.entry import JobSpec
from automodel_launch.render.environment import exported_variables
from automodel_launch.render.shell import home_path, quote, word
from automodel_launch.render.torchrun import Rendezvous, join_lines, torchrun_words
from automodel_launch.version import __version__

AUTO_PORT = "$((20000 + SLURM_JOB_ID % 40000))"
FIRST_HOST = 'MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)'
"""``sed -n 1p`` reads the whole list: ``head -n1`` can end scontrol with SIGPIPE under pipefail."""
STEP_GPUS = '${SLURM_GPUS_ON_NODE:+"--gpus-per-node=$SLURM_GPUS_ON_NODE"}'
"""An exclusive job holds every GPU of its nodes, but a step gets none of those it did
not ask for (srun(1), seen on Slurm 22.05): ask for the node's GPUs where it has any."""
RANK_PREFIX = (
    f'export PET_TEE=3 PET_LOG_DIR="$JOB_DIR/{RANK_LOGS}" '
    'TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE="[rank\\${rank}]:"'
)
"""torchrun (through its ``PET_*`` variables) tags each output line with the global rank
(``automodel-launch logs --rank N`` selects them) and keeps each rank's own output under
``torchrun/`` in the job directory."""
RECORD_EXIT = (
    f"""trap 'set -- "$?"; rm -f "$JOB_DIR/{staging(EXIT_CODE)}"; """
    f"""(set -C; printf "%s\\n" "$1" > "$JOB_DIR/{staging(EXIT_CODE)}") """
    f"""&& mv -f "$JOB_DIR/{staging(EXIT_CODE)}" "$JOB_DIR/{EXIT_CODE}"' EXIT"""
)
"""The job leaves its exit status in the job directory: ``status`` reads it when Slurm
no longer knows the job (no accounting, and past MinJobAge). It is written to a new file
(``set -C``: never through a link left in the job directory) and renamed over."""
_NODE_ERROR_FILE = agent_error_file("\\$SLURM_NODEID")
PER_NODE_ADDRESS = (
    'bash -c "export PET_LOCAL_ADDR=\\"\\$SLURMD_NODENAME\\" '
    f'TORCHELASTIC_ERROR_FILE=\\"\\$JOB_DIR/{_NODE_ERROR_FILE}\\"; '
    'exec \\"\\$@\\"" rank'
)
"""Each torchrun agent advertises its own Slurm node name to the c10d rendezvous, and
records the first failure of its ranks in the job directory (``status`` reads it)."""


def render_sbatch(document: LaunchDocument, spec: JobSpec) -> str:
    cfg = document.slurm
    assert cfg is not None, "render_sbatch needs a slurm: section"
    ft = document.fault_tolerance
    ft = ft if ft is not None and ft.enabled else None
    parts = [
        _directives(cfg, spec, ft),
        _header(spec, cfg),
        "set -euo pipefail\n",
        requeue.trap(cfg),
        notify.functions(cfg),
        _rendezvous(cfg, spec),
        _environment(cfg, spec),
        notify.start(cfg),
        _setup(cfg),
        _launch(cfg, spec, ft),
    ]
    return "\n".join(p for p in parts if p)


def allocation_options(cfg: SlurmConfig, job_name: str, nodes: int) -> list[tuple[str, object]]:
    """The options that say what a job of ``cfg`` is given (its nodes, one task each, time,
    account, partition, GPUs...): the script's ``#SBATCH`` lines and ``shell``'s ``salloc``
    (:mod:`automodel_launch.job_shell`) ask for the same; None: not asked."""
    return [
        ("job-name", job_name),
        ("nodes", nodes),
        ("ntasks-per-node", 1),
        ("time", cfg.time),
        ("account", cfg.account),
        ("partition", cfg.partition),
        ("qos", cfg.qos),
        ("reservation", cfg.reservation),
        ("gpus-per-node", cfg.gpus_per_node or None),
        ("exclusive", True if cfg.whole_nodes else None),
        ("constraint", cfg.constraint),
        ("mem", cfg.mem),
        ("cpus-per-task", cfg.cpus_per_task),
    ]


def _directives(cfg: SlurmConfig, spec: JobSpec, ft: FaultTolerance | None) -> str:
    options = [
        *allocation_options(cfg, cfg.job_name or spec.job_name, cfg.nodes),
        ("mail-type", ",".join(cfg.mail_type) if cfg.mail_type else None),
        ("mail-user", cfg.mail_user),
        ("dependency", ",".join(d for d in (cfg.dependency, spec.after) if d) or None),
        ("chdir", cfg.chdir),
        ("array", _array(spec)),
        ("output", f"{spec.job_dir}/{POINTS}/%a/{SLURM_ARRAY_LOG_PATTERN}" if spec.array_tasks
                   else f"{spec.job_dir}/{SLURM_LOG_PATTERN}"),
    ]  # fmt: skip
    lines = ["#!/bin/bash"]
    lines += [f"#SBATCH --{name}" + ("" if value is True else f"={value}")
              for name, value in options if value is not None]  # fmt: skip
    lines += requeue.directives(cfg, ft)
    lines += [f"#SBATCH {arg}" for arg in cfg.sbatch_args]
    return "\n".join(lines) + "\n"


def _array(spec: JobSpec) -> str | None:
    """``0-N``, or the indexes of the array's points (``1-3:2``); ``%K``: at most K tasks
    at once. None for one job."""
    if not spec.array_tasks:
        return None
    limit = f"%{spec.max_parallel}" if spec.max_parallel else ""
    if spec.array_indexes:
        return task_ranges(spec.array_indexes) + limit
    return f"0-{spec.array_tasks - 1}{limit}"


def _job_dir(spec: JobSpec) -> str:
    """The job's directory as the script sets it: an array task's is its point's."""
    if spec.array_tasks:
        return f'{quote(spec.job_dir)}/{POINTS}/"$SLURM_ARRAY_TASK_ID"'
    return quote(spec.job_dir)


def _header(spec: JobSpec, cfg: SlurmConfig) -> str:
    names = notify.credential_names(cfg)
    lines = [f"# Generated by automodel-launch {__version__} from {_comment(spec.source)}."]
    if names:
        lines.append(
            "# Credentials come by name from the submitting environment, never written "
            "here: " + ", ".join(names) + "."
        )
    return "\n".join(lines) + "\n"


def _comment(text: str) -> str:
    return text.replace("\n", " ")


def _rendezvous(cfg: SlurmConfig, spec: JobSpec) -> str:
    # an array's tasks may share a node: each takes its own port from its own job id
    port = AUTO_PORT if cfg.master_port == "auto" or spec.array_tasks else str(cfg.master_port)
    return "\n".join([
        f"JOB_DIR={_job_dir(spec)}",
        notify.record_exit(RECORD_EXIT, cfg),
        RANK_PREFIX,
        f'mkdir -p "$JOB_DIR/{ERROR_FILES}"',
        FIRST_HOST,
        f"MASTER_PORT={port}",
        f"WORLD_SIZE={cfg.world_size}",
        "export JOB_DIR MASTER_ADDR MASTER_PORT WORLD_SIZE",
        "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
        'export NCCL_DEBUG="${NCCL_DEBUG:-WARN}"',
        # torchrun's tee copies each rank's lines to its own stdout, the job's log: written
        # as they come (not in 8 KiB blocks at the end), `logs --follow` shows them live
        'export PYTHONUNBUFFERED="${PYTHONUNBUFFERED:-1}"',
    ]) + "\n"  # fmt: skip


def _environment(cfg: SlurmConfig, spec: JobSpec) -> str:
    """``repo_root`` is put first on PYTHONPATH after env_vars are exported: an
    ``env_vars.PYTHONPATH`` (which may itself reference the submitting ``${PYTHONPATH}``)
    follows the checkout instead of replacing it. With a snapshot, the snapshot is put
    there instead: the live checkout is never on the path."""
    lines = [f"export HF_HOME={home_path(cfg.hf_home)}"]
    lines += [f"export {name}={word(value.text)}" for name, value in exported_variables(cfg)]
    if cfg.repo_root is not None:
        root = quote(spec.code) if spec.code is not None else home_path(cfg.repo_root)
        lines.append(f"export PYTHONPATH={root}" + "${PYTHONPATH:+:$PYTHONPATH}")
    if cfg.container_image is not None and cfg.hf_home.startswith("~"):
        lines.append(
            'mkdir -p "$HF_HOME"  # mounted into the container: the cache outlives the job'
        )
    return "\n".join(lines) + "\n"


def _setup(cfg: SlurmConfig) -> str:
    """``setup`` runs here, in the batch shell (so what it exports reaches srun), with
    ``set -u`` off: module and venv scripts read variables that may be unset."""
    if not cfg.setup:
        return ""
    return "\n".join([
        "# setup: runs once, on the first node, outside the container",
        "set +u",
        "eval " + quote("\n".join(cfg.setup)),
        "set -u",
    ]) + "\n"  # fmt: skip


def _launch(cfg: SlurmConfig, spec: JobSpec, ft: FaultTolerance | None) -> str:
    srun = ["srun", "--export=ALL", "--ntasks-per-node=1", "--kill-on-bad-exit=1"]
    if cfg.container_image is not None:
        # an array task's JOB_DIR is its point's: the sweep's snapshot is beside them
        code = [f"{spec.code}:{spec.code}"] if spec.code is not None and spec.array_tasks else []
        mounts = ",".join(["${JOB_DIR}:${JOB_DIR}", *code, *(m.spec for m in cfg.mounts())])
        srun += [
            f"--container-image={quote(cfg.container_image)}",
            "--container-mounts=" + word(mounts),
            "--no-container-mount-home",
        ]
    if cfg.gpus_per_node is None and cfg.whole_nodes and not cfg.gpus_requested_by_args:
        srun.append(STEP_GPUS)
    srun.append(PER_NODE_ADDRESS)
    if cfg.nsys_enabled:
        srun += [
            "nsys",
            "profile",
            "--force-overwrite=true",
            '--output="$JOB_DIR/nsys_%q{SLURM_JOB_ID}_node%q{SLURM_NODEID}"',
        ]
    if cfg.command is not None:
        return requeue.launch(cfg, join_lines([*srun, "bash", "-c", quote(cfg.command)]) + "\n")
    rendezvous = Rendezvous(
        nnodes=str(cfg.nodes), endpoint='"$MASTER_ADDR:$MASTER_PORT"', rdzv_id='"$SLURM_JOB_ID"'
    )
    srun += torchrun_words(
        cfg.ntasks_per_node, rendezvous, max_restarts=ft.max_restarts if ft else None
    )
    srun += spec.entry.words(f'"$JOB_DIR"/{JOB_CONFIG}')
    return requeue.launch(cfg, join_lines(srun) + "\n")


def render_artifact(document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
    """The launcher table's entry: ranks per node come from the section, not the host."""
    return render_sbatch(document, spec)
