"""The check of one ``sbatch_args`` entry, in process: each refusal's code, message and hint.

The options a field renders and the options refused are written out here again, on
purpose: the tables in ``sbatch_options.py`` must say exactly this (an entry dropped
there, or added, fails a case here).
"""

from __future__ import annotations

import pytest
from pydantic_core import PydanticCustomError

from automodel_launch.config import sbatch_options as opts
from automodel_launch.config.slurm import SlurmConfig

OWNED = {
    "job-name": "slurm.job_name", "nodes": "slurm.nodes", "time": "slurm.time",
    "account": "slurm.account", "partition": "slurm.partition",
    "gpus-per-node": "slurm.gpus_per_node", "qos": "slurm.qos",
    "constraint": "slurm.constraint", "exclusive": "slurm.exclusive", "mem": "slurm.mem",
    "cpus-per-task": "slurm.cpus_per_task", "reservation": "slurm.reservation",
    "mail-type": "slurm.mail_type", "mail-user": "slurm.mail_user",
    "dependency": "slurm.dependency", "chdir": "slurm.chdir", "requeue": "slurm.requeue",
    "signal": "slurm.signal", "no-requeue": "slurm.requeue",
}  # fmt: skip
LOG = "the job's log is written to the job directory, where `status` and `logs` read it"
ONE_TASK = (
    "the script runs one Slurm task per node (its torchrun agent); ranks per node are "
    "ntasks_per_node"
)
SUBMIT = "it changes how sbatch itself behaves at submission, not the job"
ENVIRONMENT = "the job needs the submitting environment (credentials come from it by name)"
REFUSED = {
    "wrap": "the generated script is the job; --wrap would replace it",
    "output": LOG, "error": LOG, "input": "the job reads no standard input",
    "open-mode": "the script sets it for requeued jobs (requeue, fault_tolerance)",
    "ntasks": ONE_TASK, "ntasks-per-node": ONE_TASK, "ntasks-per-core": ONE_TASK,
    "ntasks-per-socket": ONE_TASK, "ntasks-per-gpu": ONE_TASK,
    "array": "every array task would run the same training into the same job directory",
    "export": ENVIRONMENT, "export-file": ENVIRONMENT,
    "clusters": "`status`, `logs` and `cancel` would look for the job on the wrong cluster",
    "wait": SUBMIT, "parsable": SUBMIT, "test-only": SUBMIT + " (use `submit --dry-run`)",
    "quiet": SUBMIT, "verbose": SUBMIT, "help": SUBMIT, "usage": SUBMIT, "version": SUBMIT,
}  # fmt: skip


def refusal(arg: object) -> tuple[str, str, str | None]:
    """The code, message and hint ``arg`` is refused with."""
    with pytest.raises(PydanticCustomError) as caught:
        opts._sbatch_arg(arg)
    error = caught.value
    context = error.context or {}
    return error.type, error.message(), context["hint"]


@pytest.mark.parametrize(("name", "field"), sorted(OWNED.items()))
def test_an_option_a_field_renders_names_the_field(name: str, field: str) -> None:
    for arg in (f"--{name}=x", f"--{name}"):
        assert refusal(arg) == (
            "sbatch-option-has-field", f"--{name} is set by the field {field}", f"use {field}"
        )  # fmt: skip


@pytest.mark.parametrize(("name", "reason"), sorted(REFUSED.items()))
def test_a_refused_option_says_why(name: str, reason: str) -> None:
    for arg in (f"--{name}=x", f"--{name}"):
        assert refusal(arg) == (
            "sbatch-option-refused", f"--{name} cannot be used here: {reason}", "remove it"
        )  # fmt: skip


def test_every_other_option_is_accepted_as_sbatch_reads_it() -> None:
    others = sorted(set(opts.OPTIONS) - set(OWNED) - set(REFUSED))
    assert len(others) == len(opts.OPTIONS) - len(OWNED) - len(REFUSED)
    for name in others:
        kind = opts.OPTIONS[name][1]
        arg = f"--{name}" if kind == "none" else f"--{name}=x"
        assert opts._sbatch_arg(arg) == arg
        if kind == "optional":
            assert opts._sbatch_arg(f"--{name}") == f"--{name}"


@pytest.mark.parametrize(
    ("arg", "hint"),
    [
        ("-t=5", "-t is --time: use slurm.time"),
        ("-J", "-J is --job-name: use slurm.job_name"),
        ("-c=4", "-c is --cpus-per-task: use slurm.cpus_per_task"),
        ("-H", "write it long: --hold"),
        ("-x=n1", "write it long: --exclude=VALUE"),
        ("-k", "write it long: --no-kill=VALUE"),
        ("-Z", "write --option=value, as on an #SBATCH line"),
        ("-", "write --option=value, as on an #SBATCH line"),
        ("", "write --option=value, as on an #SBATCH line"),
        ("t=5", "write --option=value, as on an #SBATCH line"),
        ("xt", "write --option=value, as on an #SBATCH line"),
        ("-tx", "-t is --time: use slurm.time"),
    ],
)
def test_what_is_no_long_option(arg: str, hint: str) -> None:
    assert refusal(arg) == ("invalid-sbatch-arg", f"'{arg}' is not an sbatch --option", hint)


def test_a_short_letter_is_each_options_own() -> None:
    assert opts.SHORT["t"] == "time" and opts.SHORT["N"] == "nodes" and opts.SHORT["H"] == "hold"
    assert len(opts.SHORT) == sum(1 for short, _ in opts.OPTIONS.values() if short)


def test_not_text() -> None:
    assert refusal(5) == (
        "invalid-sbatch-arg",
        "an sbatch argument must be text, but YAML read it as the number 5",
        "put the value in quotes so YAML keeps it as written",
    )


@pytest.mark.parametrize(
    ("arg", "message", "hint"),
    [
        ("--comment x", "'--comment x' separates option and value with a space",
         "write --comment=VALUE"),
        ("--comment\tx=1", "'--comment\\tx=1' separates option and value with a space",
         "write --comment=VALUE"),
        ("--hold=1", "--hold takes no value", "write --hold"),
        ("--hold=", "--hold takes no value", "write --hold"),
        ("--comment", "--comment needs a value", "write --comment=VALUE"),
        ("--comment=", "--comment needs a value", "write --comment=VALUE"),
        ("--comment=$HOME", "the value of --comment holds '$': sbatch reads #SBATCH lines as "
         "written, so no variable is expanded there", "write the value itself"),
    ],
)  # fmt: skip
def test_an_option_written_as_sbatch_does_not_read_it(arg: str, message: str, hint: str) -> None:
    assert refusal(arg) == ("invalid-sbatch-arg", message, hint)


@pytest.mark.parametrize("char", [" ", '"', "'", "#", "\x7f", "é", "\x1b", "\t"])
def test_a_value_sbatch_would_split_or_strip(char: str) -> None:
    assert refusal(f"--comment=a{char}b") == (
        "invalid-sbatch-arg",
        f"the value of --comment contains {char!r}: sbatch splits #SBATCH lines at "
        "whitespace, removes quotes and ends them at '#' (values are printable ASCII)",
        "write a value without spaces, quotes or '#'",
    )


def test_printable_ascii_values_are_kept_as_written() -> None:
    value = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "\"'#$")
    assert opts._sbatch_arg(f"--comment={value}") == f"--comment={value}"
    assert opts._sbatch_arg("--nice=5") == "--nice=5"
    assert opts._sbatch_arg("--comment=a=b") == "--comment=a=b"


@pytest.mark.parametrize(
    ("arg", "hint"),
    [
        ("--gress=gpu:8", "did you mean --gres?"),
        ("--hodl", "did you mean --hold?"),
        ("--zzzzzz", "see `sbatch --help` for the options"),
        ("--Hold", "did you mean --hold?"),
    ],
)
def test_an_unknown_option(arg: str, hint: str) -> None:
    name = arg.partition("=")[0]
    assert refusal(arg) == (
        "unknown-sbatch-option", f"{name} is not an sbatch option (Slurm 22.05)", hint
    )  # fmt: skip


def test_field_names() -> None:
    assert opts._field("requeue") == "slurm.requeue"
    assert opts._field("fault_tolerance.enabled") == "fault_tolerance.enabled"


def test_option_name() -> None:
    assert opts.option_name("--gres=gpu:8") == "gres"
    assert opts.option_name("--hold") == "hold"
    assert opts.option_name("--comment=a=b") == "comment"


@pytest.mark.parametrize("name", ["gpus", "gpus-per-task", "gpus-per-socket"])
def test_options_that_ask_for_gpus_end_whole_nodes(name: str) -> None:
    asked = SlurmConfig.model_validate({"sbatch_args": [f"--{name}=2"]})
    assert asked.gpus_requested_by_args and not asked.whole_nodes
    other = SlurmConfig.model_validate({"sbatch_args": ["--gpu-bind=closest"]})
    assert not other.gpus_requested_by_args and other.whole_nodes
