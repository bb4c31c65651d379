"""automodel_launch/plan/sweep.py: ``--sweep`` options and the points they make."""

from __future__ import annotations

from datetime import date

import pytest

from automodel_launch.jobs import manifest
from automodel_launch.jobs.manifest import MAX_DETAIL_CHARS, MAX_VALUE_KEY_CHARS
from automodel_launch.plan.sweep import (
    MAX_AXES,
    MAX_POINTS,
    MAX_VALUES,
    SHOWN_CHARS,
    Point,
    SweepError,
    parse_axis,
    points,
    recorded,
)
from automodel_launch.profiles.overrides import parse_override


def test_comma_values_are_read_as_set_reads_them() -> None:
    axis = parse_axis("optimizer.lr=1e-5, 1.0e-4,'x'")
    assert axis.key == "optimizer.lr"
    assert [o.value for o in axis.overrides] == [1e-5, 1.0e-4, "x"]
    assert [o.value for o in axis.overrides] == [
        parse_override(f"optimizer.lr={text}").value for text in ("1e-5", "1.0e-4", "'x'")
    ]
    assert [o.argument for o in axis.overrides] == [
        "optimizer.lr=1e-5", "optimizer.lr=1.0e-4", "optimizer.lr='x'",
    ]  # fmt: skip
    assert {o.option for o in axis.overrides} == {"--sweep"}
    assert axis.overrides[1].origin.label == "--sweep optimizer.lr=1.0e-4"


def test_a_flow_list_carries_commas_quotes_and_lists() -> None:
    axis = parse_axis("dataset.split=[train, \"a,b\", 'c', [1, 2], 010]")
    assert [o.value for o in axis.overrides] == ["train", "a,b", "c", [1, 2], 10]
    # an unquoted item keeps its text: the YAML 1.1 check sees 010 as it would in --set
    assert axis.overrides[4].plain == parse_override("dataset.split=010").plain


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("optimizer.lr", "--sweep 'optimizer.lr' has no '=': write KEY=V1,V2,..., e.g. "
                         "optimizer.lr=1e-5,1e-4"),
        ("optimizer.lr=", "--sweep optimizer.lr: an empty value; write KEY=V1,V2"),
        ("optimizer.lr=1,,2", "--sweep optimizer.lr: an empty value; write KEY=V1,V2"),
        ("optimizer.lr=1,1", "--sweep optimizer.lr lists the value '1' twice"),
        ("optimizer.lr=[]", "--sweep optimizer.lr: '[]' is not a YAML list of values"),
        ("optimizer.lr=[a, b", "--sweep optimizer.lr: '[a, b' is not a YAML list of values"),
        ("=1,2", "--sweep: KEY is empty"),
        ("a..b=1,2", "--sweep: 'a..b' is not a dotted field path"),
        ("a=1,2\x1b[31m", "--sweep a: it holds the control character 0x1b"),
    ],
)  # fmt: skip
def test_a_malformed_option_says_what_to_write(argument: str, message: str) -> None:
    with pytest.raises(SweepError) as raised:
        parse_axis(argument)
    assert str(raised.value).startswith(message)


def test_points_are_the_product_first_option_slowest() -> None:
    made = points([parse_axis("a.x=1,2"), parse_axis("b=p,q,r")])
    assert [p.index for p in made] == list(range(6))
    assert [p.values for p in made[:4]] == [
        {"a.x": 1, "b": "p"}, {"a.x": 1, "b": "q"}, {"a.x": 1, "b": "r"}, {"a.x": 2, "b": "p"},
    ]  # fmt: skip
    assert made[5].label == "a.x=2, b=r"


@pytest.mark.parametrize(
    ("axes", "sets", "message"),
    [
        (["a=1,2", "a=3"], [], "--sweep a is given twice: list all its values in one option"),
        (["a=1,2"], ["a=5"], "a is given to both --set and --sweep: keep one"),
        (["a=1,2", "a.b=1,2"], [], "--sweep a and --sweep a.b: one field holds the other"),
    ],
)
def test_a_field_swept_twice_or_also_set_is_refused(
    axes: list[str], sets: list[str], message: str
) -> None:
    with pytest.raises(SweepError, match=message):
        points([parse_axis(a) for a in axes], [parse_override(s) for s in sets])


def test_a_product_past_the_limit_is_refused_before_it_is_made() -> None:
    values = ",".join(str(i) for i in range(101))
    with pytest.raises(SweepError) as raised:
        points([parse_axis(f"a={values}"), parse_axis(f"b={values}")])
    assert str(raised.value) == f"the sweep makes 10,201 points; at most {MAX_POINTS:,}"


def test_the_key_ends_at_the_first_equals_sign_and_may_be_spaced() -> None:
    axis = parse_axis(" dataset.name =a=1, b=2")
    assert axis.key == "dataset.name"
    assert [o.value for o in axis.overrides] == ["a=1", "b=2"]
    assert [o.argument for o in axis.overrides] == ["dataset.name=a=1", "dataset.name=b=2"]


def test_a_flow_list_may_follow_spaces() -> None:
    axis = parse_axis("k= [1, 2]")
    assert [o.value for o in axis.overrides] == [1, 2]


def test_a_quoted_flow_item_is_given_as_json_text() -> None:
    axis = parse_axis('k=["é", "", null, 2024-01-05]')
    assert [o.argument for o in axis.overrides] == ['k="é"', 'k=""', "k=null", "k=2024-01-05"]
    assert [o.value for o in axis.overrides] == ["é", "", None, "2024-01-05"]


@pytest.mark.parametrize(
    "text", ["[1] [2]", "[1, 2", " [a: 1", "[]", "[a, b]]", "[{a: 1, a: 2}, 3]"]
)
def test_what_is_no_flow_list_of_values_is_refused(text: str) -> None:
    with pytest.raises(SweepError) as raised:
        parse_axis(f"k={text}")
    assert str(raised.value) == (
        f"--sweep k: '{text}' is not a YAML list of values; write k='[a, \"b,c\"]'"
    )


@pytest.mark.parametrize("text", ["", "  ", "1,", ", 1", "1, ,2"])
def test_an_empty_value_says_how_to_write_one(text: str) -> None:
    with pytest.raises(SweepError) as raised:
        parse_axis(f"k={text}")
    assert str(raised.value) == (
        "--sweep k: an empty value; write KEY=V1,V2 (a value with a comma or an empty text "
        'goes in a YAML list: k=\'[a, "b,c", ""]\')'
    )


def test_a_value_given_twice_is_named() -> None:
    with pytest.raises(SweepError) as raised:
        parse_axis("k=1,2,3,2")
    assert str(raised.value) == "--sweep k lists the value '2' twice: each point must differ"
    assert [o.value for o in parse_axis("k=1,01").overrides] == [1, 1]  # two spellings


def test_one_option_takes_at_most_a_thousand_values() -> None:
    assert MAX_VALUES == 1000
    assert len(parse_axis("k=" + ",".join(map(str, range(1000)))).overrides) == 1000
    with pytest.raises(SweepError) as raised:
        parse_axis("k=" + ",".join(map(str, range(1001))))
    assert str(raised.value) == "--sweep k has 1001 values; at most 1000"


def test_a_point_s_values_and_label_are_its_overrides() -> None:
    made = points([parse_axis("optimizer.lr=1e-5,1e-4"), parse_axis("peft.dim=[8, 16]")])
    assert made[1].values == {"optimizer.lr": 1e-5, "peft.dim": 16}
    assert made[1].label == "optimizer.lr=1e-5, peft.dim=16"
    assert points([]) == [Point(0, ())]


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        (None, None), (True, True), (3, 3), (2.5, 2.5), ("é", "é"),
        ([1, "é"], '[1, "é"]'), ({"a": None}, '{"a": null}'), (date(2024, 1, 5), '"2024-01-05"'),
    ],
)  # fmt: skip
def test_a_value_is_recorded_as_a_scalar_or_its_json_text(value: object, kept: object) -> None:
    assert recorded(value) == kept and type(recorded(value)) is type(kept)


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("k=[" + "x" * 257 + ", y]",
         f"--sweep k: the value '{'x' * 37}...' (257 characters) is not one a sweep point "
         f"records: should be a boolean, an integer, a number or a text of at most "
         f"{MAX_DETAIL_CHARS} characters"),
        ("k=x=" + "y" * 300,  # the value as written: after the first '=' of the argument
         f"--sweep k: the value 'x={'y' * 35}...' (302 characters) is not "
         "one a sweep point records: should be a boolean, an integer, a number or a text of at "
         f"most {MAX_DETAIL_CHARS} characters"),
        ("k=1,.inf",
         "--sweep k: the value '.inf' is not one a sweep point records: should be a boolean, "
         f"an integer, a number or a text of at most {MAX_DETAIL_CHARS} characters"),
        ("k=[[" + ", ".join(["1234567"] * 30) + "]]",  # a list: recorded as its JSON text
         "--sweep k: the value '" + ("[" + ", ".join(["1234567"] * 30) + "]")[:37] + "...' "
         "(270 characters) is not one a sweep point records: should be a boolean, an integer, "
         f"a number or a text of at most {MAX_DETAIL_CHARS} characters"),
        ("k=" + str(2**64),
         f"--sweep k: the value '{2**64}' is not one a sweep point records: should be a "
         f"boolean, an integer, a number or a text of at most {MAX_DETAIL_CHARS} characters"),
        ("a" * 201 + "=1,2",
         f"--sweep {'a' * 37}... (201 characters): a point records keys of at most "
         f"{MAX_VALUE_KEY_CHARS} characters"),
    ],
)  # fmt: skip
def test_a_value_a_point_could_not_record_is_refused_before_anything_is_written(
    argument: str, message: str
) -> None:
    with pytest.raises(SweepError) as raised:
        parse_axis(argument)
    assert str(raised.value) == message
    key = argument.partition("=")[0]
    assert raised.value.hint == (
        None
        if len(key) > MAX_VALUE_KEY_CHARS
        else f"sweep values that fit; submit one that does not with --set {key}=VALUE"
    )


def test_the_longest_value_and_key_a_point_records_are_taken() -> None:
    longest = "x" * MAX_DETAIL_CHARS
    assert parse_axis(f"k={longest},y").overrides[0].value == longest
    assert parse_axis("a" * MAX_VALUE_KEY_CHARS + "=1,2").key == "a" * MAX_VALUE_KEY_CHARS
    short = "x" * (SHOWN_CHARS + 300)
    with pytest.raises(SweepError, match=f"the value '{'x' * (SHOWN_CHARS - 3)}\\.\\.\\.' "):
        parse_axis(f"k={short}")
    exact = "1" + "0" * (SHOWN_CHARS - 1)  # a number past 64 bits, shown whole
    with pytest.raises(SweepError, match=f"the value '{exact}' is not one"):
        parse_axis(f"k={exact}")
    with pytest.raises(SweepError, match=f"the value '{exact[:-3]}...' \\(41 characters\\)"):
        parse_axis(f"k={exact}0")


def test_the_sweep_s_bounds_are_within_what_its_points_record() -> None:
    assert MAX_POINTS <= manifest.MAX_POINTS
    assert MAX_AXES <= manifest.MAX_VALUES


def test_at_most_sixteen_options_and_ten_thousand_points() -> None:
    axes = [parse_axis(f"k{i}=1") for i in range(16)]
    assert len(points(axes)) == 1
    with pytest.raises(SweepError) as raised:
        points([*axes, parse_axis("extra=1")])
    assert str(raised.value) == "17 --sweep options; at most 16"
    hundred = ",".join(map(str, range(100)))
    assert len(points([parse_axis(f"a={hundred}"), parse_axis(f"b={hundred}")])) == MAX_POINTS


def test_fields_that_only_share_a_start_are_no_nesting() -> None:
    made = points([parse_axis("optimizer.lr=1,2"), parse_axis("optimizer.lr_min=3,4")])
    assert len(made) == 4
    with pytest.raises(SweepError, match="--sweep a and --sweep a\\[0\\]: one field holds"):
        points([parse_axis("a=[[1], [2]]"), parse_axis("a[0]=1,2")])
