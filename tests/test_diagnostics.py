"""automodel_launch/diagnostics.py: the Diagnostic type, the code catalogue, positions."""

from __future__ import annotations

import ast
import datetime
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from automodel_launch.diagnostics import (
    CODES,
    Collector,
    Diagnostic,
    Origin,
    Severity,
    dotted,
    from_pydantic,
    sort_key,
)
from tests.conftest import ROOT


def diagnostic(**overrides: object) -> Diagnostic:
    fields: dict[str, object] = {
        "severity": Severity.ERROR,
        "code": "invalid-time",
        "path": "slurm.time",
        "line": 3,
        "column": 9,
        "message": "'4h' is not a Slurm time limit",
        "hint": "use one of ...",
    }
    fields.update(overrides)
    return Diagnostic(**fields)  # type: ignore[arg-type]


def test_an_origin_is_its_file_or_its_argument_and_option_cleaned() -> None:
    profile = Origin("profile", "/etc/p.yaml", "eos")
    assert profile.as_dict() == {"kind": "profile", "file": "/etc/p.yaml", "profile": "eos"}
    assert profile.label == "/etc/p.yaml"
    given = Origin("set", "a.b=\x1b[31mx")
    assert given.where == "a.b=\\x1b[31mx"  # the control character shown escaped
    assert given.as_dict() == {"kind": "set", "argument": "a.b=\\x1b[31mx"}
    swept = Origin("set", "a.b=1", option="--sweep")
    assert (swept.label, swept.as_dict()) == (
        "--sweep a.b=1",
        {"kind": "set", "argument": "a.b=1", "option": "--sweep"},
    )
    assert diagnostic(origin=swept).as_dict()["origin"] == swept.as_dict()
    assert "origin" not in diagnostic().as_dict()


def test_a_collector_keeps_the_option_of_an_argument_s_origin() -> None:
    swept = Origin("set", "a=x", option="--sweep")
    sink = Collector(where=lambda loc, at_key: (swept, 0, 0), hide=lambda t: t.replace("x", "*"))
    sink.add("invalid-time", ("a",), "m")
    (found,) = sink.items
    assert found.origin == Origin("set", "a=*", option="--sweep")


def test_as_dict_is_the_json_contract() -> None:
    assert diagnostic().as_dict() == {
        "severity": "error",
        "code": "invalid-time",
        "path": "slurm.time",
        "line": 3,
        "column": 9,
        "message": "'4h' is not a Slurm time limit",
        "hint": "use one of ...",
    }
    assert diagnostic(hint=None).as_dict()["hint"] is None


def test_is_error() -> None:
    assert diagnostic().is_error
    assert not diagnostic(severity=Severity.WARNING).is_error


def test_diagnostics_are_frozen() -> None:
    with pytest.raises(AttributeError):
        diagnostic().line = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    ("loc", "text"),
    [
        ((), ""),
        (("slurm",), "slurm"),
        (("slurm", "time"), "slurm.time"),
        (("slurm", "extra_mounts", 0, "source"), "slurm.extra_mounts[0].source"),
        (("slurm", "env_vars", "HF_TOKEN"), "slurm.env_vars.HF_TOKEN"),
        ((0,), "[0]"),
    ],
)
def test_dotted(loc: tuple[str | int, ...], text: str) -> None:
    assert dotted(loc) == text


def test_sort_key_orders_by_line_column_code() -> None:
    items = [
        diagnostic(line=2, column=1, code="b"),
        diagnostic(line=1, column=5, code="a"),
        diagnostic(line=2, column=1, code="a"),
    ]
    assert [(d.line, d.column, d.code) for d in sorted(items, key=sort_key)] == [
        (1, 5, "a"),
        (2, 1, "a"),
        (2, 1, "b"),
    ]


# ------------------------------------------------------------------ Collector positions
def collector() -> Collector:
    return Collector(
        keys={("slurm",): (1, 1), ("slurm", "time"): (2, 3)},
        values={("slurm",): (2, 3), ("slurm", "time"): (2, 9)},
    )


def test_position_of_a_value_and_of_a_key() -> None:
    sink = collector()
    assert sink.position(("slurm", "time")) == (2, 9)
    assert sink.position(("slurm", "time"), at_key=True) == (2, 3)


def test_position_falls_back_to_the_closest_ancestor() -> None:
    sink = collector()
    assert sink.position(("slurm", "nodes")) == (2, 3)
    assert sink.position(("slurm", "nodes"), at_key=True) == (1, 1)
    assert sink.position(("nowhere",)) == (1, 1)
    assert sink.position(()) == (1, 1)


def test_add_uses_the_catalogue_severity() -> None:
    sink = collector()
    sink.add("ambiguous-time", ("slurm", "time"), "m", "h")
    sink.add("invalid-time", ("slurm", "time"), "m")
    sink.add("invalid-time", ("slurm", "time"), "m", severity=Severity.WARNING)
    assert [(d.severity, d.path, d.line, d.column) for d in sink.items] == [
        (Severity.WARNING, "slurm.time", 2, 9),
        (Severity.ERROR, "slurm.time", 2, 9),
        (Severity.WARNING, "slurm.time", 2, 9),
    ]


def test_extend() -> None:
    sink = Collector()
    sink.extend([diagnostic(), diagnostic(line=1)])
    assert len(sink.items) == 2


# ------------------------------------------------------------------ pydantic errors
def _hint(loc: tuple[str | int, ...], key: str) -> str:
    return f"hint for {key} at {dotted(loc)}"


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            {"type": "extra_forbidden", "loc": ("foo",), "msg": "x"},
            ("unknown-key", "slurm.foo", "unknown key 'foo' in slurm", "hint for foo at slurm"),
        ),
        (
            {"type": "missing", "loc": ("cloud",), "msg": "x"},
            ("missing-field", "slurm.cloud", "slurm needs 'cloud'", "add cloud: <value>"),
        ),
        (
            {"type": "int_type", "loc": ("nodes",), "msg": "x", "input": "2"},
            ("wrong-type", "slurm.nodes", "expected a whole number, got '2'", None),
        ),
        (
            {"type": "bool_type", "loc": ("a",), "msg": "x", "input": None},
            ("wrong-type", "slurm.a", "expected true or false, got null", None),
        ),
        (
            {"type": "list_type", "loc": ("a",), "msg": "x", "input": {"k": 1}},
            ("wrong-type", "slurm.a", "expected a list, got a mapping", None),
        ),
        (
            {"type": "string_type", "loc": ("a",), "msg": "x", "input": "y" * 60},
            ("wrong-type", "slurm.a", "expected text, got '" + "y" * 36 + "...", None),
        ),
        (
            {"type": "greater_than_equal", "loc": ("nodes",), "msg": "x", "ctx": {"ge": 1}},
            ("out-of-range", "slurm.nodes", "must be at least 1", None),
        ),
        (
            {"type": "greater_than", "loc": ("n",), "msg": "x", "ctx": {"gt": 0}},
            ("out-of-range", "slurm.n", "must be more than 0", None),
        ),
        (
            {"type": "less_than_equal", "loc": ("n",), "msg": "x", "ctx": {"le": 8}},
            ("out-of-range", "slurm.n", "must be at most 8", None),
        ),
        (
            {"type": "less_than", "loc": ("n",), "msg": "x", "ctx": {"lt": 5}},
            ("out-of-range", "slurm.n", "must be less than 5", None),
        ),
        (
            {"type": "literal_error", "loc": ("s",), "msg": "x", "ctx": {"expected": "'A' or 'B'"}},
            ("invalid-choice", "slurm.s", "must be one of 'A' or 'B'", None),
        ),
        (
            {"type": "enum", "loc": ("s",), "msg": "x", "ctx": {"expected": "'gcp' or 'aws'"}},
            ("invalid-choice", "slurm.s", "must be one of 'gcp' or 'aws'", None),
        ),
        (
            {"type": "invalid-time", "loc": ("time",), "msg": "pydantic's own text"},
            ("invalid-time", "slurm.time", "pydantic's own text", None),
        ),
        (
            {"type": "string_pattern_mismatch", "loc": ("s",), "msg": "String should match"},
            ("invalid-value", "slurm.s", "String should match", None),
        ),
        (
            {
                "type": "invalid-time",
                "loc": ("time",),
                "msg": "x",
                "ctx": {"message": "bad time", "hint": "fix it"},
            },
            ("invalid-time", "slurm.time", "bad time", "fix it"),
        ),
    ],
)
def test_from_pydantic(
    error: dict[str, object], expected: tuple[str, str, str, str | None]
) -> None:
    sink = Collector()
    from_pydantic([error], ("slurm",), sink, _hint)
    (d,) = sink.items
    assert (d.code, d.path, d.message, d.hint) == expected


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            {"type": "missing", "loc": ("slurm",), "msg": "x"},
            ("missing-field", "slurm", "the top level needs 'slurm'", "add slurm: <value>"),
        ),
        (
            {"type": "extra_forbidden", "loc": ("slurmm",), "msg": "x"},
            (
                "unknown-key",
                "slurmm",
                "unknown key 'slurmm' in the top level",
                "hint for slurmm at ",
            ),
        ),
        (
            {"type": "missing", "loc": (), "msg": "x"},
            ("missing-field", "", "the top level needs ''", "add : <value>"),
        ),
        (
            {"type": "value_error", "loc": (), "msg": "Value error, both launchers"},
            ("invalid-value", "", "Value error, both launchers", None),
        ),
    ],
)
def test_from_pydantic_at_the_top_level(
    error: dict[str, object], expected: tuple[str, str, str, str | None]
) -> None:
    sink = Collector()
    from_pydantic([error], (), sink, _hint)
    (d,) = sink.items
    assert (d.code, d.path, d.message, d.hint) == expected


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ([1, 2], "a list"),
        ({"k": 1}, "a mapping"),
        ([], "a list"),
        (True, "true/false"),
        (None, "null"),
        (3, "3"),
        (2.5, "2.5"),
        (datetime.date(2024, 1, 2), "2024-01-02"),
        ("x", "'x'"),
        ("y" * 38, "'" + "y" * 38 + "'"),
        ("y" * 39, "'" + "y" * 36 + "..."),
    ],
)
def test_wrong_type_shows_the_value_got(value: object, shown: str) -> None:
    sink = Collector()
    from_pydantic(
        [{"type": "dict_type", "loc": ("a",), "msg": "x", "input": value}], (), sink, _hint
    )
    assert [d.message for d in sink.items] == [f"expected a mapping of keys, got {shown}"]


def test_from_pydantic_drops_internal_loc_parts() -> None:
    sink = Collector()
    error = {
        "type": "invalid-env-name",
        "loc": ("env_vars", "1X", "[key]"),
        "msg": "x",
        "ctx": {"message": "m", "hint": None},
    }
    mount = {
        "type": "int_type",
        "loc": ("extra_mounts", 0, "function-before[_from_text()]"),
        "msg": "x",
        "input": 1,
    }
    from_pydantic([error, mount], ("slurm",), sink, _hint)
    assert [d.path for d in sink.items] == ["slurm.env_vars.1X", "slurm.extra_mounts[0]"]


# ------------------------------------------------------------------ the catalogue
def test_every_code_has_a_severity_and_summary() -> None:
    for code, (severity, summary) in CODES.items():
        assert code == code.lower() and " " not in code
        assert isinstance(severity, Severity)
        assert summary and not summary.endswith(".")


def _written(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module as written: under mutation testing, without the mutated
    copies of its functions (``x_name__mutmut_12``) that mutmut adds beside them."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef) and re.search(r"__mutmut_\d+$", node.name):
            continue
        yield node
        yield from _written(node)


def _codes_used_in_the_package() -> set[str]:
    """String literals passed as the first argument of add()/fail()/_diagnostic_at()."""
    used: set[str] = set()
    for path in (ROOT / "automodel_launch").rglob("*.py"):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        for node in _written(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (
                name in {"add", "fail", "_diagnostic_at"}
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                used.add(first.value)
    return used


def test_every_code_the_package_emits_is_catalogued() -> None:
    used = _codes_used_in_the_package()
    assert used, "the scan found no codes"
    assert sorted(used - set(CODES)) == []
