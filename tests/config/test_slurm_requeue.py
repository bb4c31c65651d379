"""``slurm.signal``, ``slurm.requeue``, ``slurm.max_requeues``: the parser
(config/slurm_signal.py), the fields, and their rules (rules/requeue.py), through the
whole pipeline with exact codes, lines and messages."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from automodel_launch.config import slurm_signal
from automodel_launch.config.slurm import SlurmConfig
from tests.conftest import Validate, brief

SIGNAL_HINT = "write [R:]SIGNAL[@SECONDS], e.g. USR1@120 (SIGNAL USR1 or USR2, SECONDS 0..65535)"


# ------------------------------------------------------------------ the parser
@pytest.mark.parametrize(
    ("text", "stored", "sbatch"),
    [
        ("USR1@120", "USR1@120", "B:USR1@120"),
        ("usr2", "USR2@60", "B:USR2@60"),
        ("SIGUSR1@0", "USR1@0", "B:USR1@0"),
        ("sigUsr2@65535", "USR2@65535", "B:USR2@65535"),
        ("10@90", "USR1@90", "B:USR1@90"),
        ("12", "USR2@60", "B:USR2@60"),
        ("B:USR1@90", "USR1@90", "B:USR1@90"),
        ("b:USR1@90", "USR1@90", "B:USR1@90"),
        ("R:USR1@90", "R:USR1@90", "RB:USR1@90"),
        ("RB:USR2@5", "R:USR2@5", "RB:USR2@5"),
        ("br:USR2@5", "R:USR2@5", "RB:USR2@5"),
    ],
)
def test_sbatch_spellings_are_read_and_normalised(text: str, stored: str, sbatch: str) -> None:
    parsed = slurm_signal.parse(text)
    assert (parsed.text, parsed.sbatch) == (stored, sbatch)
    assert slurm_signal.parse(parsed.text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FOO@90", "'FOO@90' does not name a signal"),
        ("", "'' does not name a signal"),
        ("@90", "'@90' does not name a signal"),
        ("USR1@", "'USR1@': the time after @ must be whole seconds"),
        ("USR1@1.5", "'USR1@1.5': the time after @ must be whole seconds"),
        ("USR1@-5", "'USR1@-5': the time after @ must be whole seconds"),
        ("USR1@90@2", "'USR1@90@2': the time after @ must be whole seconds"),
        ("USR1@65536", "'USR1@65536': 65536 seconds is more than sbatch's 65535"),
        ("99@90", "'99@90': signal number 99 is not one sbatch names"),
        ("BB:USR1", "'BB:USR1' repeats the B: flag"),
        ("X:USR1", "'X:USR1' does not name a signal"),
        ("KILL@90", "the job script traps the signal to requeue, and KILL cannot serve: "
         "bash cannot trap it"),
        ("TERM", "the job script traps the signal to requeue, and TERM cannot serve: "
         "Slurm sends it for other reasons (ending or stopping a job)"),
        ("18@60", "the job script traps the signal to requeue, and CONT cannot serve: "
         "Slurm sends it for other reasons (ending or stopping a job)"),
        ("HUP@60", "the job script traps the signal to requeue, and HUP cannot serve: "
         "only USR1 and USR2 are left to the job"),
    ],
)  # fmt: skip
def test_what_the_script_cannot_use_is_refused(text: str, message: str) -> None:
    with pytest.raises(slurm_signal.SignalError) as raised:
        slurm_signal.parse(text)
    assert str(raised.value) == message


@given(
    flags=st.sampled_from(["", "B:", "b:", "R:", "RB:", "BR:", "rb:"]),
    sig=st.sampled_from(["USR1", "usr1", "SIGUSR1", "SigUsr2", "USR2", "10", "12"]),
    seconds=st.one_of(st.none(), st.integers(0, 65535)),
)
def test_every_valid_value_matches_the_schema_pattern_and_round_trips(
    flags: str, sig: str, seconds: int | None
) -> None:
    text = flags + sig + ("" if seconds is None else f"@{seconds}")
    parsed = slurm_signal.parse(text)
    assert re.fullmatch(slurm_signal._PATTERN, text)
    assert parsed.seconds == (60 if seconds is None else seconds)
    assert parsed.name == ("USR1" if sig.upper().endswith(("USR1", "10")) else "USR2")
    assert parsed.reservation == ("R" in flags.upper())
    assert slurm_signal.parse(parsed.text) == parsed
    assert re.fullmatch(r"R?B:USR[12]@\d+", parsed.sbatch)


# ------------------------------------------------------------------ the fields
def test_defaults_are_off_with_three_requeues() -> None:
    cfg = SlurmConfig.model_validate({})
    assert (cfg.signal, cfg.requeue, cfg.max_requeues) == (None, False, 3)
    assert cfg.warning_signal is None


def test_a_signal_number_as_yaml_integer_is_read(validate: Validate) -> None:
    text = "slurm:\n  signal: 12\n  requeue: true\n  time: '60'\n"
    assert brief(validate(text, checkpoint_margin_minutes=1)) == []
    assert SlurmConfig.model_validate({"signal": 12}).signal == "USR2@60"


def test_an_invalid_signal_is_one_error_at_its_value(validate: Validate) -> None:
    found = validate("slurm:\n  time: '60'\n  requeue: true\n  signal: KILL@90\n")
    assert brief(found) == ["4:11 error[invalid-signal] slurm.signal"]
    assert found[0].hint == SIGNAL_HINT


def test_a_signal_of_the_wrong_type(validate: Validate) -> None:
    found = validate("slurm:\n  signal: [USR1]\n")
    assert brief(found) == ["2:11 error[invalid-signal] slurm.signal"]
    assert found[0].message == 'signal must be text such as "USR1@120", not a list'


@pytest.mark.parametrize(("value", "got"), [("-1", "-1"), ("yes", "true/false"), ("'2'", "'2'")])
def test_max_requeues_is_a_whole_number_from_zero(validate: Validate, value: str, got: str) -> None:
    found = validate(f"slurm:\n  requeue: true\n  signal: USR1@600\n  max_requeues: {value}\n")
    assert [d.code for d in found] in (["out-of-range"], ["wrong-type"], ["yaml11-trap"])
    assert found[0].line == 4


# ------------------------------------------------------------------ the rules
def test_a_good_requeue_config_is_clean(validate: Validate) -> None:
    text = "slurm:\n  time: '04:00:00'\n  signal: USR1@600\n  requeue: true\n  max_requeues: 0\n"
    assert validate(text) == []


def test_requeue_without_a_signal_is_an_error(validate: Validate) -> None:
    found = validate("slurm:\n  requeue: true\n")
    assert brief(found) == ["2:12 error[requeue-needs-signal] slurm.requeue"]
    assert found[0].hint == 'add signal: "USR1@600" (seconds before the time limit)'
    short = validate("slurm:\n  requeue: true\n", checkpoint_margin_minutes=1)
    assert short[0].hint == 'add signal: "USR1@120" (seconds before the time limit)'


def test_a_signal_without_requeue_is_only_logged_and_says_so(validate: Validate) -> None:
    found = validate("slurm:\n  signal: USR2@900\n")
    assert brief(found) == ["2:11 warning[signal-without-requeue] slurm.signal"]
    assert found[0].message == (
        "signal: USR2@900 without requeue: true: the script only logs the signal and "
        "training runs on to the time limit"
    )


def test_max_requeues_without_requeue_warns(validate: Validate) -> None:
    found = validate("slurm:\n  max_requeues: 5\n")
    assert brief(found) == ["2:17 warning[max-requeues-without-requeue] slurm.max_requeues"]
    assert found[0].message == "max_requeues: 5 has no effect without requeue: true"
    assert validate("slurm:\n  requeue: false\n") == []


def test_requeue_with_checkpointing_off_warns(validate: Validate) -> None:
    text = "checkpoint:\n  enabled: false\nslurm:\n  signal: USR1@60\n  requeue: true\n"
    found = validate(text)
    assert brief(found) == ["5:12 warning[requeue-without-checkpoint] slurm.requeue"]
    assert found[0].message == (
        "requeue: true with checkpointing off: every requeued run starts training from the "
        "beginning"
    )


def test_a_signal_not_shorter_than_the_time_limit_is_an_error(validate: Validate) -> None:
    found = validate("slurm:\n  time: '30'\n  signal: USR1@1800\n  requeue: true\n")
    assert brief(found) == ["3:11 error[signal-exceeds-time] slurm.signal"]
    assert found[0].message == (
        "signal: USR1@1800 asks for the signal 1800 s before a 00:30:00 limit (1800 s): "
        "it would come as the job starts"
    )
    assert validate("slurm:\n  time: '31'\n  signal: USR1@1800\n  requeue: true\n") == []
    assert validate("slurm:\n  time: UNLIMITED\n  signal: USR1@65535\n  requeue: true\n") == []


def test_a_signal_inside_the_checkpoint_margin_warns(validate: Validate) -> None:
    found = validate("slurm:\n  signal: R:USR2@300\n  requeue: true\n")
    assert brief(found) == ["2:11 warning[signal-margin-short] slurm.signal"]
    assert found[0].message == (
        "signal: R:USR2@300 comes 300 s before the time limit, under the 10-minute "
        "checkpoint margin: a checkpoint being written then may not finish before the job "
        "is requeued"
    )
    assert found[0].hint == (
        'signal at least 600 s before the limit (signal: "R:USR2@600"), or lower '
        "checkpoint_margin_minutes (AUTOMODEL_LAUNCH_CHECKPOINT_MARGIN_MINUTES)"
    )
    assert (
        validate("slurm:\n  signal: USR2@300\n  requeue: true\n", checkpoint_margin_minutes=5) == []
    )
    off = "checkpoint:\n  enabled: false\nslurm:\n  signal: USR1@60\n  requeue: true\n"
    assert [d.code for d in validate(off)] == ["requeue-without-checkpoint"]


def test_rules_on_a_failed_time_are_skipped(validate: Validate) -> None:
    found = validate("slurm:\n  time: 4h\n  signal: USR1@90000\n  requeue: true\n")
    assert brief(found) == [
        "2:9 error[invalid-time] slurm.time",
        "3:11 error[invalid-signal] slurm.signal",
    ]
    found = validate("slurm:\n  time: 4h\n  signal: USR1@60\n  requeue: true\n")
    assert brief(found) == ["2:9 error[invalid-time] slurm.time"]


# ------------------------------------------------------------------ the recipe under requeue
REQUEUE = "slurm:\n  signal: USR1@600\n  requeue: true\n"


def test_a_fixed_restore_point_under_requeue_warns(validate: Validate) -> None:
    found = validate("checkpoint:\n  restore_from: epoch_0_step_100\n" + REQUEUE)
    assert brief(found) == ["2:17 warning[requeue-fixed-restore] checkpoint.restore_from"]
    assert found[0].message == (
        "every requeued run resumes from 'epoch_0_step_100', not from the checkpoint the run "
        "before it wrote"
    )
    assert found[0].hint == "set checkpoint.restore_from: null to resume from the latest checkpoint"
    older = validate("restore_from:\n  path: /ckpt/step_5\n" + REQUEUE)
    assert brief(older) == ["2:9 warning[requeue-fixed-restore] restore_from.path"]
    for latest in ("null", "LATEST", "latest"):
        assert validate(f"checkpoint:\n  restore_from: {latest}\n" + REQUEUE) == []
    assert validate("checkpoint:\n  restore_from: /ckpt/step_5\nslurm: {}\n") == []


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("null", "null"),
        ("SIGUSR1", "SIGUSR1"),
        ("[USR1, 12]", "[USR1, 12]"),
        ("true", "true"),
        ("'15'", "15"),
    ],
)
def test_a_recipe_that_does_not_catch_sigterm_under_requeue_warns(
    validate: Validate, value: str, shown: str
) -> None:
    found = validate(f"step_scheduler:\n  preemption_signal: {value}\n" + REQUEUE)
    assert brief(found) == [
        "2:22 warning[requeue-signal-unhandled] step_scheduler.preemption_signal"
    ]
    assert found[0].message == (
        f"the job script stops the ranks with SIGTERM before requeueing, and preemption_signal: "
        f"{shown} leaves it uncaught: the ranks die without a final checkpoint and the "
        "requeued run repeats the steps since the last one"
    )


@pytest.mark.parametrize("value", ["SIGTERM", "term", "15", "[SIGUSR1, sigterm]", "[15]"])
def test_recipes_that_catch_sigterm_are_fine(validate: Validate, value: str) -> None:
    assert validate(f"step_scheduler:\n  preemption_signal: {value}\n" + REQUEUE) == []
    assert validate("step_scheduler:\n  preemption_signal: null\nslurm: {}\n") == []
