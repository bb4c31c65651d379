"""automodel_launch/loading/yaml11.py: what AutoModel's YAML 1.1 loader (PyYAML) reads.

The resolver is checked against PyYAML itself where it is installed (pre-commit pulls
it in), and the traps are checked end to end with exact diagnostics.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from automodel_launch.loading.yaml11 import differs, resolve
from tests.conftest import Validate, brief


# ------------------------------------------------------------------ the resolver
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1:00:00", 3600),
        ("10:00:00", 36000),
        ("1:30", 90),
        ("90:00", 5400),
        ("-1:00", -60),
        ("yes", True),
        ("Yes", True),
        ("YES", True),
        ("on", True),
        ("ON", True),
        ("no", False),
        ("off", False),
        ("Off", False),
        ("true", True),
        ("False", False),
        ("010", 8),
        ("0o10", "0o10"),  # not an octal in YAML 1.1
        ("0x1F", 31),
        ("0b101", 5),
        ("1_000", 1000),
        ("0", 0),
        ("-0", 0),
        ("+7", 7),
        ("1.5", 1.5),
        ("1:30.5", 90.5),
        ("1.0e+3", 1000.0),
        ("1e3", "1e3"),  # YAML 1.1 floats need a dot and a signed exponent
        ("~", None),
        ("null", None),
        ("", None),
        ("y", "y"),  # PyYAML does not read y/n as booleans
        ("n", "n"),
        ("00:30:00", "00:30:00"),  # a leading 0 is not base 60
        ("0:30:00", "0:30:00"),
        ("1:60", "1:60"),  # base-60 digits stop at 59
        ("2-04:00:00", "2-04:00:00"),
        ("UNLIMITED", "UNLIMITED"),
        ("nvcr.io/nvidia/nemo:dev", "nvcr.io/nvidia/nemo:dev"),
    ],
)
def test_resolve(text: str, value: Any) -> None:
    got = resolve(text)
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize(("text", "sign"), [(".inf", 1), ("-.inf", -1), ("+.inf", 1), (".Inf", 1)])
def test_resolve_infinity(text: str, sign: int) -> None:
    assert resolve(text) == sign * math.inf


def test_resolve_nan() -> None:
    value = resolve(".nan")
    assert isinstance(value, float) and math.isnan(value)


# ------------------------------------------------------------------ differs
@pytest.mark.parametrize(
    ("text", "value_12", "value_11"),
    [
        ("1:00:00", "1:00:00", 3600),
        ("yes", "yes", True),
        ("on", "on", True),
        ("off", "off", False),
        ("010", 10, 8),
        ("0o17", 15, "0o17"),
        ("1e3", 1000.0, "1e3"),
    ],
)
def test_differs(text: str, value_12: Any, value_11: Any) -> None:
    assert differs(text, value_12) == value_11


@pytest.mark.parametrize(
    ("text", "value_12"),
    [
        ("00:30:00", "00:30:00"),
        ("true", True),
        ("42", 42),
        ("1.5", 1.5),
        ("1.0", 1.0),
        ("hello", "hello"),
        ("null", None),
        (".nan", math.nan),
    ],
)
def test_no_difference(text: str, value_12: Any) -> None:
    assert differs(text, value_12) is None


# ------------------------------------------------------------------ against PyYAML itself
SCALAR_PIECES = st.sampled_from(
    [*"0123456789", ":", ".", "-", "+", "_", "e", "E", "x", "b", "o", "a", "f", "y", "n",
     "yes", "no", "on", "off", "true", "false", "null", "~", "inf", "nan", "Y", "N"]
)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "value"), [("1:40:0.03", 6000.030000000001), ("-1:40:0.03", -6000.030000000001)]
)
def test_a_base_60_float_is_summed_as_pyyaml_sums_it(text: str, value: float) -> None:
    """From the last part up: the same float to the last bit, so a job config that writes
    the value reads as the original did (found by the AutoModel loader's round trip)."""
    assert resolve(text) == value
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(f"x: {text}\n")["x"] == value


@settings(max_examples=400)
@given(st.lists(SCALAR_PIECES, min_size=1, max_size=8).map("".join))
def test_resolve_agrees_with_pyyaml(text: str) -> None:
    yaml = pytest.importorskip("yaml")
    try:
        loaded = yaml.safe_load(f"x: {text}\n")
    except (yaml.YAMLError, ValueError):
        assume(False)
        return
    assume(isinstance(loaded, dict) and "x" in loaded)
    expected = loaded["x"]
    got = resolve(text)
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float) and math.isnan(got)
        return
    assert got == expected
    assert type(got) is type(expected)


# ------------------------------------------------------------------ the traps, end to end
def test_unquoted_hours_minutes_seconds(validate: Validate) -> None:
    diags = validate("slurm:\n  time: 1:00:00\n")
    assert brief(diags) == ["2:9 warning[yaml11-trap] slurm.time"]
    assert diags[0].message == (
        "unquoted 1:00:00 is read by AutoModel's YAML 1.1 loader as the integer 3600, "
        "which Slurm takes as 3600 minutes"
    )
    assert diags[0].hint == 'quote it: time: "1:00:00"'


def test_ten_hours_is_36000(validate: Validate) -> None:
    diags = validate("slurm:\n  time: 10:00:00\n")
    assert brief(diags) == ["2:9 warning[yaml11-trap] slurm.time"]
    assert "the integer 36000, which Slurm takes as 36000 minutes" in diags[0].message


@pytest.mark.parametrize("value", ["00:30:00", "04:00:00", "0:30:00", '"1:00:00"', "'10:00:00'"])
def test_not_a_trap(validate: Validate, value: str) -> None:
    # A leading 0 is not base 60 in YAML 1.1; quoted values are text in both.
    assert validate(f"slurm:\n  time: {value}\n") == []


def test_unquoted_minutes_seconds_is_a_trap_and_ambiguous(validate: Validate) -> None:
    diags = validate("slurm:\n  time: 90:00\n")
    assert brief(diags) == [
        "2:9 warning[ambiguous-time] slurm.time",
        "2:9 warning[yaml11-trap] slurm.time",
    ]
    assert diags[1].message == (
        "unquoted 90:00 is read by AutoModel's YAML 1.1 loader as the integer 5400, "
        "which Slurm takes as 5400 minutes"
    )


@pytest.mark.parametrize(
    ("word", "value"),
    [("yes", "true"), ("Yes", "true"), ("on", "true"), ("no", "false"), ("off", "false")],
)
def test_use_spot_yes_is_an_error_write_true(validate: Validate, word: str, value: str) -> None:
    diags = validate(f"skypilot:\n  cloud: aws\n  use_spot: {word}\n")
    assert brief(diags) == ["3:13 error[yaml11-trap] skypilot.use_spot"]
    assert diags[0].message == (
        f"unquoted {word} is read by AutoModel's YAML 1.1 loader as the boolean {value}"
    )
    assert diags[0].hint == f"write {value}"


def test_other_boolean_fields_too(validate: Validate) -> None:
    assert brief(validate("slurm:\n  nsys_enabled: on\n")) == [
        "2:17 error[yaml11-trap] slurm.nsys_enabled"
    ]
    assert brief(validate("slurm: {}\nfault_tolerance:\n  requeue: yes\n")) == [
        "3:12 error[yaml11-trap] fault_tolerance.requeue"
    ]


@pytest.mark.parametrize(
    ("field", "word"), [("account", "on"), ("partition", "no"), ("account", "off")]
)
def test_a_text_field_with_a_boolean_word_warns_quote_it(
    validate: Validate, field: str, word: str
) -> None:
    diags = validate(f"slurm:\n  {field}: {word}\n")
    col = len(field) + 5
    assert brief(diags) == [f"2:{col} warning[yaml11-trap] slurm.{field}"]
    assert diags[0].hint == f'quote it: {field}: "{word}"'
    assert validate(f'slurm:\n  {field}: "{word}"\n') == []


def test_an_octal_looking_count(validate: Validate) -> None:
    diags = validate("slurm:\n  nodes: 010\n")
    assert brief(diags) == ["2:10 warning[yaml11-trap] slurm.nodes"]
    assert (
        diags[0].message == "unquoted 010 is read by AutoModel's YAML 1.1 loader as the integer 8"
    )


def test_env_values_are_checked(validate: Validate) -> None:
    assert brief(validate("slurm:\n  env_vars:\n    NCCL_P2P_DISABLE: on\n")) == [
        "3:23 warning[yaml11-trap] slurm.env_vars.NCCL_P2P_DISABLE"
    ]


def test_recipe_sections_are_not_checked(validate: Validate) -> None:
    assert validate("model:\n  flag: yes\n  eta: 1:00:00\n") == []


def test_every_trap_in_one_file(validate: Validate) -> None:
    text = """\
        slurm:
          time: 1:00:00
          account: on
          nodes: 010
          nsys_enabled: yes
    """
    assert brief(validate(text)) == [
        "2:9 warning[yaml11-trap] slurm.time",
        "3:12 warning[yaml11-trap] slurm.account",
        "4:10 warning[yaml11-trap] slurm.nodes",
        "5:17 error[yaml11-trap] slurm.nsys_enabled",
    ]


# ------------------------------------------------------------------ hints that fit the field
@pytest.mark.parametrize(
    ("line", "code", "message", "hint"),
    [
        (
            "nodes: 010",
            "warning",
            "unquoted 010 is read by AutoModel's YAML 1.1 loader as the integer 8",
            "write 10: plain decimal digits read the same in YAML 1.1 and 1.2",
        ),
        (
            "nodes: 0o17",
            "warning",
            "unquoted 0o17 is read by AutoModel's YAML 1.1 loader as the text '0o17'",
            "write 15: plain decimal digits read the same in YAML 1.1 and 1.2",
        ),
        (
            "nodes: 1e400",
            "error",
            "unquoted 1e400 is read by AutoModel's YAML 1.1 loader as the text '1e400' "
            "(and by YAML 1.2 as infinity)",
            "write a whole number in plain decimal digits",
        ),
        (
            "nodes: 1:00",
            "error",
            "unquoted 1:00 is read by AutoModel's YAML 1.1 loader as the integer 60",
            "write a whole number in plain decimal digits, e.g. 60",
        ),
    ],
)
def test_a_number_field_is_not_told_to_quote(
    validate: Validate, line: str, code: str, message: str, hint: str
) -> None:
    diags = validate(f"slurm:\n  {line}\n")
    assert brief(diags) == [f"2:10 {code}[yaml11-trap] slurm.nodes"]
    assert diags[0].message == message
    assert diags[0].hint == hint


@pytest.mark.parametrize("word", ["0o17", "1e400"])
def test_a_text_field_is_told_to_quote(validate: Validate, word: str) -> None:
    diags = validate(f"slurm:\n  job_name: {word}\n")
    traps = [d for d in diags if d.code == "yaml11-trap"]
    assert [d.hint for d in traps] == [f'quote it: job_name: "{word}"']
    assert validate(f'slurm:\n  job_name: "{word}"\n') == []


def test_an_env_value_keeps_its_text(validate: Validate) -> None:
    diags = validate("slurm:\n  env_vars:\n    MODE: 0o17\n")
    assert [d.hint for d in diags] == ['quote it: MODE: "0o17"']


def test_a_key_overriding_a_merged_one_is_no_trap(validate: Validate) -> None:
    text = "base: &b\n  account: yes\nslurm:\n  <<: *b\n  account: research\n"
    assert validate(text) == []
    assert validate(text, strict=True) == []


def test_a_merge_list_inside_a_launcher_section(validate: Validate) -> None:
    text = "a: &a {account: on}\nslurm:\n  <<: [*a]\n"
    assert brief(validate(text)) == ["1:17 warning[yaml11-trap] slurm.account"]


@pytest.mark.parametrize("digits", ["1" * 5000, "0x" + "f" * 4000, "1_" * 3000 + "1"])
def test_huge_integers_stay_text(validate: Validate, digits: str) -> None:
    assert resolve(digits) == digits
    recipe = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
    diags = validate(f"slurm:\n  nodes: {digits}\nmodel:\n  n: {digits}\n{recipe}")
    assert brief(diags) == ["2:10 error[wrong-type] slurm.nodes"]
