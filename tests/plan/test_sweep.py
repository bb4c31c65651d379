"""automodel_launch/plan/sweep.py: ``--sweep`` options and the points they make."""

from __future__ import annotations

import pytest

from automodel_launch.plan.sweep import MAX_POINTS, SweepError, parse_axis, points
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
