"""automodel_launch/config/slurm_time.py: Slurm's ``--time`` grammar, parsed like sbatch.

The property tests build strings from the grammar itself (the six forms, ``D-``, the
infinite words in any case) and compute the expected minutes independently, the way
Slurm's ``time_str2mins`` does: seconds round up to a whole minute, ``0`` is no limit.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from automodel_launch.config import slurm_time
from automodel_launch.config.slurm_time import SlurmTime, TimeError, from_minutes, parse

MAX_SECONDS = 2**31 - 2


# ------------------------------------------------------------------ every format, exactly
@pytest.mark.parametrize(
    ("text", "minutes", "normalized"),
    [
        # M
        ("30", 30, "00:30:00"),
        ("90", 90, "01:30:00"),
        ("1440", 1440, "1-00:00:00"),
        ("0005", 5, "00:05:00"),
        # M:S (seconds round up to a whole minute)
        ("30:00", 30, "00:30:00"),
        ("5:30", 6, "00:06:00"),
        ("0:01", 1, "00:01:00"),
        ("0:60", 1, "00:01:00"),
        ("0:61", 2, "00:02:00"),
        # H:M:S (fields are not range-checked)
        ("04:00:00", 240, "04:00:00"),
        ("1:00:00", 60, "01:00:00"),
        ("0:90:00", 90, "01:30:00"),
        ("25:99:99", 1601, "1-02:41:00"),
        ("00:00:01", 1, "00:01:00"),
        # D-H
        ("2-4", 2 * 1440 + 240, "2-04:00:00"),
        ("1-0", 1440, "1-00:00:00"),
        # D-H:M
        ("2-4:30", 2 * 1440 + 270, "2-04:30:00"),
        # D-H:M:S
        ("2-04:30:15", 2 * 1440 + 271, "2-04:31:00"),
        ("2-00:00:00", 2880, "2-00:00:00"),
        ("0-00:00:59", 1, "00:01:00"),
        # D- (days only)
        ("2-", 2880, "2-00:00:00"),
        ("7-", 7 * 1440, "7-00:00:00"),
    ],
)
def test_every_format_parses_to_slurm_minutes(text: str, minutes: int, normalized: str) -> None:
    parsed = parse(text)
    assert parsed.minutes == minutes
    assert parsed.normalized == normalized


@pytest.mark.parametrize(
    "text",
    ["UNLIMITED", "unlimited", "Unlimited", "uNlImItEd", "INFINITE", "infinite", "Infinite", "-1"],
)
def test_infinite_spellings_in_any_case(text: str) -> None:
    assert parse(text) == SlurmTime(None)
    assert parse(text).normalized == "UNLIMITED"


@pytest.mark.parametrize("text", ["0", "00", "0:0", "0:00:00", "0-0", "0-", "0-0:0:0"])
def test_zero_means_no_limit(text: str) -> None:
    assert parse(text).minutes is None
    assert parse(text).normalized == "UNLIMITED"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4h",
        "1h30m",
        "04:00:00 ",
        " 04:00:00",
        "4.5",
        "1:2:3:4",  # more than two ':'
        "1-2-3",  # more than one '-'
        "1--2",
        "1:2-3",  # '-' after ':'
        "1:00-00",
        "-5",  # negative, not -1
        "-",
        "--1",
        ":",
        "1:",  # a ':' needs digits on both sides
        ":30",
        "1::2",
        "1:2:",
        "2-:30",
        "2-4:",
        "2-4:30:",
        "2-4::15",
        "UNLIMITED!",
        "unlimite",
        "forever",
        "INF",
        "٣٠",  # Arabic-Indic digits: Slurm reads ASCII only
        "３０",  # full-width digits
        "1e3",
        "+30",
        "0x10",
        "X",  # any letter, upper case too
        "1X",
        "X1:00",
    ],
)
def test_strings_outside_the_grammar_are_rejected(text: str) -> None:
    with pytest.raises(TimeError, match="is not a Slurm time limit"):
        parse(text)


@pytest.mark.parametrize("text", ["99999999999", "24856-", "1-999999999:00:00", "9999999:00:00"])
def test_longer_than_slurm_can_store(text: str) -> None:
    with pytest.raises(TimeError, match="longer than Slurm can store"):
        parse(text)


@pytest.mark.parametrize(
    "text",
    # 2**31 - 1 seconds in each spelling: the first value Slurm cannot store
    ["24855-03:14:07", "596523:14:07", "35791394:07"],
)
def test_the_first_limit_slurm_refuses(text: str) -> None:
    with pytest.raises(TimeError, match="longer than Slurm can store"):
        parse(text)


@pytest.mark.parametrize("text", ["24855-03:14:06", "596523:14:06", "35791394:06"])
def test_the_largest_storable_limit(text: str) -> None:
    # 2**31 - 2 seconds is 35791394.0333 minutes: 24855 days, 03:14:06.
    assert parse(text).normalized == "24855-03:15:00"


def test_the_largest_storable_minutes() -> None:
    assert from_minutes(35791394).normalized == "24855-03:14:00"
    with pytest.raises(TimeError, match="longer than Slurm can store"):
        from_minutes(35791395)


@pytest.mark.parametrize(
    ("largest", "first_rejected"),
    [
        ("24855-03:14:06", "24855-03:14:07"),  # D-H:M:S
        ("24855-3:14:6", "24855-3:14:7"),
        ("596523:14:06", "596523:14:07"),  # H:M:S
        ("35791394:06", "35791394:07"),  # M:S
    ],
)
def test_the_first_value_slurm_cannot_store(largest: str, first_rejected: str) -> None:
    # 24855-03:14:07 is 2**31 - 1 seconds, one more than the largest limit Slurm stores
    assert 24855 * 86400 + 3 * 3600 + 14 * 60 + 7 == 2**31 - 1 == MAX_SECONDS + 1
    assert parse(largest).minutes == 35791395
    with pytest.raises(TimeError, match=f"^'{first_rejected}' is longer than Slurm can store$"):
        parse(first_rejected)


# ------------------------------------------------------------------ from_minutes (YAML ints)
@pytest.mark.parametrize(
    ("minutes", "expected"),
    [
        (30, "00:30:00"),
        (240, "04:00:00"),
        (1440, "1-00:00:00"),
        (0, "UNLIMITED"),
        (-1, "UNLIMITED"),
        (35791394, "24855-03:14:00"),
    ],
)
def test_from_minutes(minutes: int, expected: str) -> None:
    assert from_minutes(minutes).minutes == (minutes if minutes > 0 else None)
    assert from_minutes(minutes).normalized == expected


@pytest.mark.parametrize(
    ("minutes", "reason"),
    [
        (-2, "^-2 minutes is negative$"),
        (-3600, "is negative"),
        (10**9, "^1000000000 minutes is longer than Slurm can store$"),
        (35791395, "longer than"),
    ],
)
def test_from_minutes_rejects(minutes: int, reason: str) -> None:
    with pytest.raises(TimeError, match=reason):
        from_minutes(minutes)


@pytest.mark.parametrize(
    ("text", "ambiguous"),
    [
        ("30:00", True),
        ("4:00", True),
        ("90:00", True),
        ("30", False),
        ("04:00:00", False),
        ("2-4:30", False),
        ("UNLIMITED", False),
    ],
)
def test_looks_like_hours_minutes(text: str, ambiguous: bool) -> None:
    assert slurm_time.looks_like_hours_minutes(text) is ambiguous


# ------------------------------------------------------------------ property tests
DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=6)


def _n(field: str) -> int:
    return int(field)


@st.composite
def grammar_time(draw: st.DrawFn) -> tuple[str, int]:
    """(text, seconds) for one of the six forms or ``D-``, with arbitrary digit fields."""
    form = draw(st.sampled_from(["M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", "D-"]))
    fields = [draw(DIGITS) for _ in range(form.count("M") + form.count("S") + form.count("H"))]
    days = draw(DIGITS) if form.startswith("D-") else "0"
    if form == "M":
        return fields[0], _n(fields[0]) * 60
    if form == "M:S":
        return ":".join(fields), _n(fields[0]) * 60 + _n(fields[1])
    if form == "H:M:S":
        h, m, s = fields
        return ":".join(fields), _n(h) * 3600 + _n(m) * 60 + _n(s)
    base = _n(days) * 86400
    if form == "D-":
        return f"{days}-", base
    units = [3600, 60, 1][: len(fields)]
    return f"{days}-" + ":".join(fields), base + sum(
        _n(f) * u for f, u in zip(fields, units, strict=True)
    )


@st.composite
def infinite_word(draw: st.DrawFn) -> str:
    word = draw(st.sampled_from(["unlimited", "infinite"]))
    upper = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    return "".join(c.upper() if u else c for c, u in zip(word, upper, strict=True))


@given(grammar_time())
def test_every_grammar_string_is_accepted_and_round_trips(case: tuple[str, int]) -> None:
    text, seconds = case
    if seconds > MAX_SECONDS:
        with pytest.raises(TimeError, match="longer than Slurm can store"):
            parse(text)
        return
    parsed = parse(text)
    expected = (seconds + 59) // 60
    assert parsed.minutes == (expected or None)
    assert parse(parsed.normalized).minutes == parsed.minutes


@given(infinite_word())
def test_infinite_words_in_every_case(text: str) -> None:
    assert parse(text).minutes is None
    assert parse(parse(text).normalized).minutes is None


@given(st.integers(min_value=0, max_value=MAX_SECONDS // 60))
def test_from_minutes_round_trips(minutes: int) -> None:
    normalized = from_minutes(minutes).normalized
    assert parse(normalized).minutes == (minutes or None)


_GRAMMAR = re.compile(r"[0-9]+(:[0-9]+){0,2}|[0-9]+-([0-9]+(:[0-9]+){0,2})?|-1")


def _in_grammar(text: str) -> bool:
    return bool(_GRAMMAR.fullmatch(text)) or text.lower() in ("unlimited", "infinite")


@given(st.text(alphabet="0123456789-:", max_size=12))
def test_digit_dash_colon_strings_outside_the_grammar_are_rejected(text: str) -> None:
    assume(not _in_grammar(text))
    with pytest.raises(TimeError, match="is not a Slurm time limit"):
        parse(text)


@given(grammar_time(), st.text(min_size=1, max_size=3), st.integers(min_value=0, max_value=20))
def test_any_other_character_is_rejected(case: tuple[str, int], junk: str, position: int) -> None:
    text, _ = case
    assume(any(ch not in "0123456789-:" for ch in junk))
    at = min(position, len(text))
    broken = text[:at] + junk + text[at:]
    assume(not _in_grammar(broken))
    with pytest.raises(TimeError):
        parse(broken)


@given(st.lists(DIGITS, min_size=4, max_size=6))
def test_more_than_two_colons_is_rejected(fields: list[str]) -> None:
    with pytest.raises(TimeError, match="is not a Slurm time limit"):
        parse(":".join(fields))


@given(st.lists(DIGITS, min_size=3, max_size=5))
def test_more_than_one_dash_is_rejected(fields: list[str]) -> None:
    with pytest.raises(TimeError, match="is not a Slurm time limit"):
        parse("-".join(fields))


@given(DIGITS, DIGITS, DIGITS)
def test_dash_after_colon_is_rejected(a: str, b: str, c: str) -> None:
    with pytest.raises(TimeError, match="is not a Slurm time limit"):
        parse(f"{a}:{b}-{c}")


@given(st.text())
def test_parse_raises_only_time_error(text: str) -> None:
    try:
        result = parse(text)
    except TimeError:
        return
    assert isinstance(result, SlurmTime)
