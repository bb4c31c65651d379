"""``shell`` on Slurm: ``salloc`` with the recipe's resources (one node unless asked for
more), then ``srun`` in it with the recipe's container, mounts, variables and working
directory.

Every word handed over is a list element, never a shell string: the command after ``--``
is argv, and a config value reaches a command line only as the value of an ``--opt=value``
word (the models validated it). The recipe's variables, credentials included, are put in
the child's environment, resolved from the caller's by name (as the job's shell resolves
``${HF_TOKEN}``): never on a command line, never in a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from automodel_launch.config.sbatch_options import option_name
from automodel_launch.launchers.shell import ShellCommand
from automodel_launch.loading.env import expand
from automodel_launch.render.environment import exported_variables

if TYPE_CHECKING:
    from automodel_launch.config.slurm import SlurmConfig

JOB_NAME = "automodel-launch-shell"
SALLOC_TOO = frozenset(
    {"gres", "gpus", "gpus-per-task", "gpus-per-socket", "cpus-per-gpu", "mem-per-gpu",
     "mem-per-cpu", "nodelist", "exclude", "licenses", "tmp", "cores-per-socket",
     "sockets-per-node", "threads-per-core", "hint", "network", "comment", "wckey"}
)  # fmt: skip
"""``sbatch_args`` options that are resources (or labels) salloc takes too; the others
(``--requeue``, ``--signal``...) are about a batch job and are left out."""


def _path(text: str, env: Mapping[str, str]) -> str:
    """A path of the config as the job's shell reads it: ``~`` is ``$HOME``, ``${VAR}``
    resolved."""
    if text == "~" or text.startswith("~/"):
        text = "${HOME}" + text[1:]
    return expand(text, env)[0]


def job_environment(cfg: SlurmConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the SBATCH script gives its ranks (:mod:`.render`), built
    from ``environ``: HF_HOME, the credential fields and ``env_vars`` (in order, each
    reference resolved against what is set so far), ``repo_root`` first on PYTHONPATH."""
    env = dict(environ)
    env["HF_HOME"] = _path(cfg.hf_home, env)
    for name, value in exported_variables(cfg):
        env[name] = expand(value.text, env)[0]
    if cfg.repo_root is not None:
        before = env.get("PYTHONPATH")
        env["PYTHONPATH"] = _path(cfg.repo_root, env) + (f":{before}" if before else "")
    env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
    env.setdefault("NCCL_DEBUG", "WARN")
    return env


def salloc_words(cfg: SlurmConfig, nodes: int) -> list[str]:
    """``salloc`` with the recipe's resources on ``nodes`` nodes (one task each)."""
    from automodel_launch.launchers.slurm.render import allocation_options

    options = allocation_options(cfg, JOB_NAME, nodes)
    words = ["salloc"]
    words += [f"--{name}" + ("" if value is True else f"={value}")
              for name, value in options if value is not None]  # fmt: skip
    return words + [arg for arg in cfg.sbatch_args if option_name(arg) in SALLOC_TOO]


def srun_words(cfg: SlurmConfig, env: Mapping[str, str], command: Sequence[str]) -> list[str]:
    """``srun`` in the allocation: ``--pty bash`` on the first node, or ``command`` on
    each node; in the recipe's container with its mounts (as the script's srun)."""
    words = ["srun", "--export=ALL"]
    words += ["--ntasks-per-node=1"] if command else ["--nodes=1", "--ntasks=1", "--pty"]
    workdir = cfg.chdir  # absolute, no reference (the model's check)
    if workdir is not None:
        words.append(f"--chdir={workdir}")
    if cfg.container_image is not None:
        mounts = ",".join(_path(mount.spec, env) for mount in cfg.mounts())
        words.append(f"--container-image={cfg.container_image}")
        if mounts:
            words.append(f"--container-mounts={mounts}")
        words.append("--no-container-mount-home")
        if workdir is not None:
            words.append(f"--container-workdir={workdir}")
    return [*words, "--", *(command or ["bash"])]


def step_without_gpus(cfg: SlurmConfig) -> bool:
    """A whole-node allocation (``gpus_per_node: null``) gives a step none of its GPUs
    unless the step asks for a count (seen on Slurm 22.05); the script asks for
    ``$SLURM_GPUS_ON_NODE``, which a step's own environment has, salloc's not."""
    return cfg.gpus_per_node is None and cfg.whole_nodes and not cfg.gpus_requested_by_args


WHOLE_NODE_NOTE = (
    "note: a whole node is allocated (gpus_per_node: null), and Slurm gives a step none "
    "of its GPUs unless asked: add --set slurm.gpus_per_node=N for N of them"
)


def slurm_shell(
    cfg: SlurmConfig, environ: Mapping[str, str], command: Sequence[str], nodes: int
) -> ShellCommand:
    """The words to run, their environment, and a note when a step would get no GPUs."""
    env = job_environment(cfg, environ)
    words = [*salloc_words(cfg, nodes), *srun_words(cfg, env, command)]
    notes = (WHOLE_NODE_NOTE,) if step_without_gpus(cfg) else ()
    return ShellCommand(words, env, notes)
