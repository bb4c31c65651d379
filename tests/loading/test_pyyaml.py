"""A file loads here exactly when AutoModel's loader (PyYAML) loads it and AutoModel can
use it: PyYAML itself is the oracle (tabs, keys YAML 1.1 reads as non-text, ':' inside
flow scalars, U+2028)."""

from __future__ import annotations

import pytest
import yaml

from automodel_launch.loading import load_text
from tests.conftest import brief

TAB_REFUSED = [
    ("raw: a\tb\n", "1:7"),
    ("raw: b\t\n", "1:7"),
    ("raw:\tb\n", "1:5"),
    ("raw: b\t# a comment\n", "1:7"),
    ("raw: 'x'\t\n", "1:9"),
    ("model:\n  name: [a, b\t]\n", "2:14"),
    ("raw: a \tb\n", "1:8"),
]


@pytest.mark.parametrize(("text", "where"), TAB_REFUSED)
def test_a_tab_pyyaml_stops_on_is_an_error_at_the_tab(text: str, where: str) -> None:
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)
    result = load_text(text, "t.yaml")
    assert [f"{d.line}:{d.column} {d.code}" for d in result.diagnostics] == [
        f"{where} tab-not-space"
    ]
    assert result.diagnostics[0].hint is not None and "spaces" in result.diagnostics[0].hint


@pytest.mark.parametrize(
    "text",
    [
        'raw: "a\tb"\n',
        "raw: 'a\tb'\n",
        "raw: |\n  a\tb\n",
        "raw: >\n  a\tb\n",
        "raw: a  # a\tcomment\n",
        "# \tcomment\nraw: a\n",
        'raw: ["a\tb", c]\n',
    ],
)
def test_tabs_pyyaml_reads_pass(text: str) -> None:
    expected = yaml.safe_load(text)
    result = load_text(text, "t.yaml")
    assert result.diagnostics == []
    assert result.loaded is not None and result.loaded.data == expected


@pytest.mark.parametrize(
    ("text", "where", "read_as"),
    [
        ("yes: 1\n", "1:1 key-not-text", "True"),
        ("model:\n  1: 2\n", "2:3 key-not-text", "1"),
        ("~: 1\n", "1:1 key-not-text", "null"),
        ("2024-01-05: x\n", "1:1 key-not-text", "datetime.date(2024, 1, 5)"),
        ("model:\n  on: x\n", "2:3 key-not-text", "True"),
        ("model: {1.5: x}\n", "1:9 key-not-text", "1.5"),
    ],
)
def test_a_key_pyyaml_reads_as_no_text_is_an_error(text: str, where: str, read_as: str) -> None:
    key = next(iter(_flatten_keys(yaml.safe_load(text))))
    assert not isinstance(key, str)
    result = load_text(text, "k.yaml")
    assert [f"{d.line}:{d.column} {d.code}" for d in result.diagnostics] == [where]
    assert f"as {read_as}, not text" in result.diagnostics[0].message


def _flatten_keys(data: dict[object, object]) -> list[object]:
    """Every key PyYAML read as something other than text, depth first."""
    found: list[object] = []
    for key, value in data.items():
        if not isinstance(key, str):
            found.append(key)
        if isinstance(value, dict):
            found.extend(_flatten_keys(value))
    return found


@pytest.mark.parametrize("text", ['"yes": 1\n', "'1': 2\n", "yes_no: 1\n", "v1: x\n", "on_x: 1\n"])
def test_quoted_and_wordy_keys_are_text(text: str) -> None:
    assert all(isinstance(k, str) for k in yaml.safe_load(text))
    assert load_text(text, "k.yaml").diagnostics == []


@pytest.mark.parametrize(
    "text",
    [
        "extra: {timeout: 1:00:00}\n",
        "extra: {t: 1:00}\n",
        "extra: [1:00, 2]\n",
        "extra: {a: b:c}\n",
        "extra: {url: http://x/y}\n",
        "extra: [x\u2028y]\n",
        "extra: {k: x\u2028y}\n",
        "extra: x\u2028 y\n",
    ],
)
def test_files_pyyaml_loads_are_not_refused(text: str) -> None:
    yaml.safe_load(text)
    result = load_text(text, "f.yaml")
    assert result.loaded is not None, result.diagnostics
    assert [d.code for d in result.diagnostics] == []


def test_a_flow_colon_keeps_positions_and_the_yaml11_reading() -> None:
    text = "model:\n  name: x\nextra: {timeout: 1:00:00, retries: 3}\n"
    result = load_text(text, "f.yaml")
    assert result.loaded is not None
    assert result.loaded.data["extra"] == {"timeout": "1:00:00", "retries": 3}
    assert result.loaded.plain[("extra", "timeout")] == "1:00:00"
    assert result.loaded.values[("extra", "retries")] == (3, 36)


def test_real_syntax_errors_stay_errors() -> None:
    result = load_text("extra: {a: [1, 2}\n", "f.yaml")
    assert result.loaded is None
    assert brief(result.diagnostics)[0].endswith("error[yaml-syntax] ")
