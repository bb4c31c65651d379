"""sbatch's own long options (Slurm 22.05), which of them ``sbatch_args`` may carry, and
the check of each ``sbatch_args`` entry.

The table is checked against the installed ``sbatch`` (``--help``, ``--usage`` and its
option parser) by tests/config/test_sbatch_options.py. ``arg`` says whether the option
takes a value: ``none`` (``--hold``), ``required`` (``--comment=TEXT``) or ``optional``
(``--exclusive[=user]``), as sbatch's parser reads it.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, WithJsonSchema

from automodel_launch.config.types import fail, not_text, show

Arg = Literal["none", "required", "optional"]

OPTIONS: dict[str, tuple[str | None, Arg]] = {
    # long name: (short letter, argument)
    "account": ("A", "required"),
    "acctg-freq": (None, "required"),
    "array": ("a", "required"),
    "batch": (None, "required"),
    "bb": (None, "required"),
    "bbf": (None, "required"),
    "begin": ("b", "required"),
    "chdir": ("D", "required"),
    "cluster-constraint": (None, "required"),
    "clusters": ("M", "required"),
    "comment": (None, "required"),
    "constraint": ("C", "required"),
    "container": (None, "required"),
    "contiguous": (None, "none"),
    "core-spec": ("S", "required"),
    "cores-per-socket": (None, "required"),
    "cpu-freq": (None, "required"),
    "cpus-per-gpu": (None, "required"),
    "cpus-per-task": ("c", "required"),
    "deadline": (None, "required"),
    "delay-boot": (None, "required"),
    "dependency": ("d", "required"),
    "distribution": ("m", "required"),
    "error": ("e", "required"),
    "exclude": ("x", "required"),
    "exclusive": (None, "optional"),
    "export": (None, "required"),
    "export-file": (None, "required"),
    "extra-node-info": ("B", "required"),
    "get-user-env": (None, "optional"),
    "gid": (None, "required"),
    "gpu-bind": (None, "required"),
    "gpu-freq": (None, "required"),
    "gpus": ("G", "required"),
    "gpus-per-node": (None, "required"),
    "gpus-per-socket": (None, "required"),
    "gpus-per-task": (None, "required"),
    "gres": (None, "required"),
    "gres-flags": (None, "required"),
    "help": ("h", "none"),
    "hint": (None, "required"),
    "hold": ("H", "none"),
    "ignore-pbs": (None, "none"),
    "input": ("i", "required"),
    "job-name": ("J", "required"),
    "kill-on-invalid-dep": (None, "required"),
    "licenses": ("L", "required"),
    "mail-type": (None, "required"),
    "mail-user": (None, "required"),
    "mcs-label": (None, "required"),
    "mem": (None, "required"),
    "mem-bind": (None, "required"),
    "mem-per-cpu": (None, "required"),
    "mem-per-gpu": (None, "required"),
    "mincpus": (None, "required"),
    "network": (None, "required"),
    "nice": (None, "optional"),
    "no-kill": ("k", "optional"),
    "no-requeue": (None, "none"),
    "nodefile": ("F", "required"),
    "nodelist": ("w", "required"),
    "nodes": ("N", "required"),
    "ntasks": ("n", "required"),
    "ntasks-per-core": (None, "required"),
    "ntasks-per-gpu": (None, "required"),
    "ntasks-per-node": (None, "required"),
    "ntasks-per-socket": (None, "required"),
    "open-mode": (None, "required"),
    "output": ("o", "required"),
    "overcommit": ("O", "none"),
    "oversubscribe": ("s", "none"),
    "parsable": (None, "none"),
    "partition": ("p", "required"),
    "power": (None, "required"),
    "prefer": (None, "required"),
    "priority": (None, "required"),
    "profile": (None, "required"),
    "propagate": (None, "optional"),
    "qos": ("q", "required"),
    "quiet": ("Q", "none"),
    "reboot": (None, "none"),
    "requeue": (None, "none"),
    "reservation": (None, "required"),
    "signal": (None, "required"),
    "sockets-per-node": (None, "required"),
    "spread-job": (None, "none"),
    "switches": (None, "required"),
    "test-only": (None, "none"),
    "thread-spec": (None, "required"),
    "threads-per-core": (None, "required"),
    "time": ("t", "required"),
    "time-min": (None, "required"),
    "tmp": (None, "required"),
    "uid": (None, "required"),
    "usage": (None, "none"),
    "use-min-nodes": (None, "none"),
    "verbose": ("v", "none"),
    "version": ("V", "none"),
    "wait": ("W", "none"),
    "wait-all-nodes": (None, "required"),
    "wckey": (None, "required"),
    "wrap": (None, "required"),
}

OWNED: dict[str, str] = {
    "job-name": "job_name",
    "nodes": "nodes",
    "time": "time",
    "account": "account",
    "partition": "partition",
    "gpus-per-node": "gpus_per_node",
    "qos": "qos",
    "constraint": "constraint",
    "exclusive": "exclusive",
    "mem": "mem",
    "cpus-per-task": "cpus_per_task",
    "reservation": "reservation",
    "mail-type": "mail_type",
    "mail-user": "mail_user",
    "dependency": "dependency",
    "chdir": "chdir",
    "requeue": "requeue",
    "signal": "signal",
    "no-requeue": "requeue",
}
"""Options a field renders: ``sbatch_args`` naming one is an error that names the field."""

_LOG = "the job's log is written to the job directory, where `status` and `logs` read it"
_ONE_TASK = (
    "the script runs one Slurm task per node (its torchrun agent); ranks per node are "
    "ntasks_per_node"
)
_SUBMIT = "it changes how sbatch itself behaves at submission, not the job"
REFUSED: dict[str, str] = {
    "wrap": "the generated script is the job; --wrap would replace it",
    "output": _LOG,
    "error": _LOG,
    "input": "the job reads no standard input",
    "open-mode": "the script sets it for requeued jobs (requeue, fault_tolerance)",
    "ntasks": _ONE_TASK,
    "ntasks-per-node": _ONE_TASK,
    "ntasks-per-core": _ONE_TASK,
    "ntasks-per-socket": _ONE_TASK,
    "ntasks-per-gpu": _ONE_TASK,
    "array": "every array task would run the same training into the same job directory",
    "export": "the job needs the submitting environment (credentials come from it by name)",
    "export-file": "the job needs the submitting environment (credentials come from it by name)",
    "clusters": "`status`, `logs` and `cancel` would look for the job on the wrong cluster",
    "wait": _SUBMIT,
    "parsable": _SUBMIT,
    "test-only": _SUBMIT + " (use `submit --dry-run`)",
    "quiet": _SUBMIT,
    "verbose": _SUBMIT,
    "help": _SUBMIT,
    "usage": _SUBMIT,
    "version": _SUBMIT,
}
"""Options that would break the job or the tool's view of it, with the reason."""

GPU_REQUESTS = frozenset({"gpus", "gpus-per-task", "gpus-per-socket"})
"""Options that request GPUs in another way than gpus_per_node (``--gres=gpu:N`` too)."""

SHORT: dict[str, str] = {short: name for name, (short, _) in OPTIONS.items() if short}


_UNREADABLE = re.compile(r"""[^\x21-\x7e]|["'#]""")
"""What sbatch splits at, strips, or ends the line at, on an ``#SBATCH`` line, and
anything that is not printable ASCII."""


# --------------------------------------------------------------------------- sbatch_args
_ARG_SCHEMA = {
    "type": "string",
    "pattern": r"^--[a-z][a-z-]*(=[!%&(-~]+)?$",
    "patternErrorMessage": "--option or --option=value: printable ASCII without spaces, "
    "quotes, '#' or '$'",
}


def _sbatch_arg(value: Any) -> str:
    if not isinstance(value, str):
        not_text("an sbatch argument", value, "invalid-sbatch-arg")
    text = value
    name, has_value, arg = text.partition("=")
    if not name.startswith("--"):
        long = SHORT.get(name[1:2]) if name.startswith("-") else None
        fix = "write --option=value, as on an #SBATCH line"
        if long in OWNED:
            fix = f"-{name[1:2]} is --{long}: use {_field(OWNED[long])}"
        elif long is not None:
            fix = f"write it long: --{long}" + ("" if OPTIONS[long][1] == "none" else "=VALUE")
        fail("invalid-sbatch-arg", f"{show(text)} is not an sbatch --option", fix)
    name = name[2:]
    if " " in name or "\t" in name:
        fail(
            "invalid-sbatch-arg",
            f"{show(text)} separates option and value with a space",
            f"write --{name.split()[0]}=VALUE",
        )
    if name in OWNED:
        where = _field(OWNED[name])
        fail("sbatch-option-has-field", f"--{name} is set by the field {where}", f"use {where}")
    if name in REFUSED:
        fail(
            "sbatch-option-refused",
            f"--{name} cannot be used here: {REFUSED[name]}",
            "remove it",
        )
    if name not in OPTIONS:
        close = next(iter(difflib.get_close_matches(name, OPTIONS)), None)
        fail(
            "unknown-sbatch-option",
            f"--{name} is not an sbatch option (Slurm 22.05)",
            f"did you mean --{close}?" if close else "see `sbatch --help` for the options",
        )
    kind_of = OPTIONS[name][1]
    if kind_of == "none" and has_value:
        fail("invalid-sbatch-arg", f"--{name} takes no value", f"write --{name}")
    if kind_of == "required" and not arg:
        fail("invalid-sbatch-arg", f"--{name} needs a value", f"write --{name}=VALUE")
    if "$" in arg:
        fail(
            "invalid-sbatch-arg",
            f"the value of --{name} holds '$': sbatch reads #SBATCH lines as written, so no "
            "variable is expanded there",
            "write the value itself",
        )
    bad = _UNREADABLE.search(arg)
    if bad is not None:
        fail(
            "invalid-sbatch-arg",
            f"the value of --{name} contains {bad.group()!r}: sbatch splits #SBATCH lines at "
            "whitespace, removes quotes and ends them at '#' (values are printable ASCII)",
            "write a value without spaces, quotes or '#'",
        )
    return text


def _field(owner: str) -> str:
    return owner if "." in owner else f"slurm.{owner}"


SbatchArg = Annotated[str, BeforeValidator(_sbatch_arg), WithJsonSchema(_ARG_SCHEMA)]


def option_name(arg: str) -> str:
    """``--gres=gpu:8`` -> ``gres``."""
    return arg.partition("=")[0][2:]
