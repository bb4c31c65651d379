"""``shell``: a shell (or one command) in a job's environment, to reproduce a failure.

Slurm: ``salloc`` with the recipe's resources (one node unless asked for more), then
``srun`` in it with the recipe's container, mounts, variables and working directory.
No launcher section: the caller's own environment, on this node (what a local run gets).

Every word handed over is a list element, never a shell string: the command after ``--``
is argv, and a config value reaches a command line only as the value of an ``--opt=value``
word (the models validated it). The recipe's variables, credentials included, are put in
the child's environment, resolved from the caller's by name (as the job's shell resolves
``${HF_TOKEN}``): never on a command line, never in a file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, ClassVar

from automodel_launch.config.sbatch_options import option_name
from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.loading.env import expand
from automodel_launch.render.environment import exported_variables

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.config.slurm import SlurmConfig

JOB_NAME = "automodel-launch-shell"
NOT_FOUND = 127
"""Exit status when the program cannot be started, as a shell says it."""
SALLOC_TOO = frozenset(
    {"gres", "gpus", "gpus-per-task", "gpus-per-socket", "cpus-per-gpu", "mem-per-gpu",
     "mem-per-cpu", "nodelist", "exclude", "licenses", "tmp", "cores-per-socket",
     "sockets-per-node", "threads-per-core", "hint", "network", "comment", "wckey"}
)  # fmt: skip
"""``sbatch_args`` options that are resources (or labels) salloc takes too; the others
(``--requeue``, ``--signal``...) are about a batch job and are left out."""


class ShellError(LaunchError):
    """No shell is opened for this recipe (SkyPilot): exit 1."""


class NoProgram(ShellError):
    """The program is not there (salloc off a login node, a misspelt command): exit 127."""

    exit_code: ClassVar[int] = NOT_FOUND


class CannotRun(ShellError):
    """The program is there and cannot be run (not executable): exit 126, as a shell says."""

    exit_code: ClassVar[int] = 126


def _path(text: str, env: Mapping[str, str]) -> str:
    """A path of the config as the job's shell reads it: ``~`` is ``$HOME``, ``${VAR}``
    resolved."""
    if text == "~" or text.startswith("~/"):
        text = "${HOME}" + text[1:]
    return expand(text, env)[0]


def job_environment(cfg: SlurmConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the SBATCH script gives its ranks (:mod:`.render.slurm`), built
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
) -> tuple[list[str], dict[str, str]]:
    """The words to run and their environment."""
    env = job_environment(cfg, environ)
    return [*salloc_words(cfg, nodes), *srun_words(cfg, env, command)], env


def local_shell(
    environ: Mapping[str, str], command: Sequence[str]
) -> tuple[list[str], dict[str, str]]:
    """``command``, else ``$SHELL`` (bash without one), in the caller's environment."""
    return list(command) or [environ.get("SHELL") or "bash"], dict(environ)


def shell_of(
    document: LaunchDocument,
    environ: Mapping[str, str],
    command: Sequence[str],
    nodes: int | None = None,
) -> tuple[list[str], dict[str, str]]:
    """What ``shell`` runs for a validated recipe; raises :class:`ShellError` for a
    recipe no shell is opened for."""
    if document.slurm is not None:
        return slurm_shell(document.slurm, environ, command, nodes or 1)
    if document.skypilot is not None:
        raise ShellError(
            "shell does not open SkyPilot clusters: a cluster is launched by `submit` and "
            "kept by SkyPilot",
            hint="once the job's cluster is up, `sky ssh CLUSTER` (or `ssh CLUSTER`) opens "
            "a shell on its first node; `sky status` names it",
        )
    if nodes not in (None, 1):
        raise UsageError(
            f"--nodes {nodes}: a recipe without a launcher section runs on this node only",
            hint="leave --nodes out",
        )
    return local_shell(environ, command)


@contextmanager
def _terminal_signals_to_child() -> Iterator[None]:
    """Ctrl-C and Ctrl-\\ reach the child (same terminal): here they do nothing, so this
    process waits for the child's own exit status. A handler (unlike SIG_IGN) is reset
    to the default in the child when it starts."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGQUIT)}
    for sig in kept:
        signal.signal(sig, lambda _signum, _frame: None)
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)


def run(words: Sequence[str], env: Mapping[str, str]) -> int:
    """Run ``words`` (stdin, stdout and stderr this process's), and return its exit
    status (128 + N when a signal N ended it)."""
    try:
        process = subprocess.Popen(list(words), env=dict(env))
    except FileNotFoundError:
        hint = (
            "run it on a Slurm login node" if words[0] == "salloc" else "check the command's name"
        )
        raise NoProgram(f"cannot run '{words[0]}': no such program", hint=hint) from None
    except OSError as exc:
        raise CannotRun(f"cannot run '{words[0]}': {exc.strerror}") from None
    with _terminal_signals_to_child():
        try:
            code = process.wait()
        except BaseException:  # SIGTERM or SIGHUP (errors.Interrupted): the child goes too
            process.terminate()
            process.wait()
            raise
    return 128 - code if code < 0 else code


def open_shell(
    document: LaunchDocument,
    command: Sequence[str],
    nodes: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    words, env = shell_of(document, os.environ if environ is None else environ, command, nodes)
    if document.slurm is not None and step_without_gpus(document.slurm):
        print(WHOLE_NODE_NOTE, file=sys.stderr)
    return run(words, env)
