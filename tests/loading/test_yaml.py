"""automodel_launch/loading/yaml.py: YAML with positions; bad input of any kind is a diagnostic.

Every failure has an exact code and position. The property tests feed random text,
random bytes and random YAML documents through ``load_text``/``load_bytes`` and
``validate_loaded``: they must return diagnostics, never raise.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from automodel_launch.diagnostics import Diagnostic
from automodel_launch.loading import LoadResult, load_bytes, load_file, load_text
from automodel_launch.loading.yaml import MAX_BYTES, MAX_EXPANDED_NODES
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_loaded, validate_path
from tests.conftest import RECIPE, brief, offline_settings, run_cli


def codes(result: LoadResult) -> list[str]:
    assert result.loaded is None, "a failed load returns no data"
    return brief(result.diagnostics)


def only(result: LoadResult) -> Diagnostic:
    assert len(result.diagnostics) == 1
    return result.diagnostics[0]


# ------------------------------------------------------------------ data and positions
def test_data_and_positions() -> None:
    text = "slurm:\n  time: '04:00:00'\n  nodes: 2\n  extra_mounts:\n    - /a:/b\n"
    result = load_text(text, "recipe.yaml")
    assert result.diagnostics == []
    loaded = result.loaded
    assert loaded is not None
    assert loaded.path == "recipe.yaml"
    assert loaded.data == {"slurm": {"time": "04:00:00", "nodes": 2, "extra_mounts": ["/a:/b"]}}
    assert loaded.keys[("slurm",)] == (1, 1)
    assert loaded.keys[("slurm", "nodes")] == (3, 3)
    assert loaded.values[("slurm", "time")] == (2, 9)
    assert loaded.values[("slurm", "nodes")] == (3, 10)
    assert loaded.values[("slurm", "extra_mounts", 0)] == (5, 7)
    # Only unquoted scalars are kept for the YAML 1.1 comparison.
    assert ("slurm", "time") not in loaded.plain
    assert loaded.plain[("slurm", "nodes")] == "2"


def test_scalars_are_read_with_yaml_1_2_rules() -> None:
    text = """\
ints: [0x10, 0o17, 017, -5, +3]
floats: [1.5, .inf, -.inf, 1.0e+3]
bools: [true, True, TRUE, false]
words: [yes, no, on, off, y, n]
nulls: [null, ~, Null, '']
sexagesimal:
  - 1:00:00
  - 10:00:00
"""
    loaded = load_text(text).loaded
    assert loaded is not None
    data = loaded.data
    assert data["ints"] == [16, 15, 17, -5, 3]
    assert data["floats"] == [1.5, math.inf, -math.inf, 1000.0]
    assert data["bools"] == [True, True, True, False]
    assert data["words"] == ["yes", "no", "on", "off", "y", "n"]
    assert data["nulls"] == [None, None, None, ""]
    assert data["sexagesimal"] == ["1:00:00", "10:00:00"]


def test_nan_is_a_float() -> None:
    loaded = load_text("x: .nan\n").loaded
    assert loaded is not None
    assert math.isnan(loaded.data["x"])


def test_tags_other_than_yaml_core_stay_text() -> None:
    loaded = load_text("a: !custom 5\nb: !!str 5\n").loaded
    assert loaded is not None
    assert loaded.data == {"a": "5", "b": "5"}


def test_merge_keys() -> None:
    text = "base: &b\n  nodes: 2\n  time: '1'\nslurm:\n  time: '2'\n  <<: *b\n"
    result = load_text(text)
    assert result.diagnostics == []
    assert result.loaded is not None
    assert result.loaded.data["slurm"] == {"nodes": 2, "time": "2"}


def test_a_key_after_a_merge_overrides_it() -> None:
    text = "base: &b\n  nodes: 2\n  time: '1'\nslurm:\n  <<: *b\n  time: '2'\n"
    result = load_text(text)
    assert result.diagnostics == []
    assert result.loaded is not None
    assert result.loaded.data["slurm"] == {"nodes": 2, "time": "2"}


def test_a_merge_list_takes_the_first_source_for_each_key() -> None:
    text = "a: &a {nodes: 1, time: '1'}\nb: &b {nodes: 2, account: x}\nslurm:\n  <<: [*a, *b]\n"
    result = load_text(text)
    assert result.diagnostics == []
    assert result.loaded is not None
    assert result.loaded.data["slurm"] == {"nodes": 1, "time": "1", "account": "x"}
    # a merged value sits where the anchor wrote it
    assert result.loaded.values[("slurm", "account")] == (2, 27)


def test_merges_of_merges_are_flattened() -> None:
    text = "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc:\n  <<: *b\n  y: 3\n"
    loaded = load_text(text).loaded
    assert loaded is not None
    assert loaded.data["c"] == {"y": 3, "x": 1}


@pytest.mark.parametrize(
    ("merge", "kind", "column"),
    [("5", "a single value", 7), ("[1, 2]", "a single value", 8), ("[[1]]", "a list", 8)],
)
def test_a_merge_of_something_else_than_mappings(merge: str, kind: str, column: int) -> None:
    result = load_text(f"a:\n  <<: {merge}\n  b: 1\n")
    assert brief(result.diagnostics)[0] == f"2:{column} error[invalid-merge] a.<<"
    assert result.diagnostics[0].message == (
        f"a merge key (<<) takes a mapping or a list of mappings, not {kind}"
    )
    assert result.loaded is not None
    assert result.loaded.data == {"a": {"b": 1}}


def test_a_few_aliases_are_fine() -> None:
    text = "a: &x [1, 2, 3]\nb: *x\nc: *x\n"
    loaded = load_text(text).loaded
    assert loaded is not None
    assert loaded.data == {"a": [1, 2, 3], "b": [1, 2, 3], "c": [1, 2, 3]}


def test_a_utf8_bom_is_accepted() -> None:
    result = load_bytes("\ufeffslurm:\n  nodes: 2\n".encode())
    assert result.diagnostics == []
    assert result.loaded is not None and result.loaded.data == {"slurm": {"nodes": 2}}


def test_a_leading_document_marker_is_one_document() -> None:
    loaded = load_text("---\na: 1\n").loaded
    assert loaded is not None and loaded.data == {"a": 1}


def test_a_non_text_key_is_named_not_crashed() -> None:
    loaded = load_text("? [a, b]\n: 1\n").loaded
    assert loaded is not None and loaded.data == {"<sequence key>": 1}


def test_tab_inside_a_value_line_is_fine() -> None:
    loaded = load_text("slurm:\n  nodes:\t1\n").loaded
    assert loaded is not None and loaded.data == {"slurm": {"nodes": 1}}


# ------------------------------------------------------------------ syntax
@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("slurm:\n  time: [1, 2\n", "3:1 error[yaml-syntax] ", "did not find expected ',' or ']'"),
        ("slurm:\n  nodes: 1\n bad: 2\n", "3:2 error[yaml-syntax] ", "did not find expected key"),
        ("a: 'unterminated\n", "2:1 error[yaml-syntax] ", "found unexpected end of stream"),
        ("a: *nope\n", "1:4 error[yaml-syntax] ", "found undefined alias"),
        ("a: b: c\n", "1:5 error[yaml-syntax] ", "mapping values are not allowed in this context"),
        ("a: @x\n", "1:4 error[yaml-syntax] ", "found character that cannot start any token"),
    ],
)
def test_syntax_errors(text: str, where: str, message: str) -> None:
    result = load_text(text)
    assert codes(result) == [where]
    assert only(result).message == message
    assert only(result).hint is None


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("slurm:\n\tnodes: 1\n", "2:1 error[yaml-syntax] "),
        ("a:\n  b: 1\n\t\n\tc: 2\n", "3:1 error[yaml-syntax] "),
    ],
)
def test_a_tab_indent_has_a_hint(text: str, where: str) -> None:
    result = load_text(text)
    assert codes(result) == [where]
    assert only(result).hint == "YAML indents with spaces: replace the tab"


# ------------------------------------------------------------------ duplicate keys
@pytest.mark.parametrize(
    ("text", "where", "key", "first"),
    [
        ("model: {}\nmodel: {}\n", "2:1 error[duplicate-key] model", "model", 1),
        (
            "slurm:\n  nodes: 1\n  time: '1'\n  nodes: 2\n",
            "4:3 error[duplicate-key] slurm.nodes",
            "nodes",
            2,
        ),
        (
            "step_scheduler:\n  ckpt_every_steps: 1\n  ckpt_every_steps: 2\n",
            "3:3 error[duplicate-key] step_scheduler.ckpt_every_steps",
            "ckpt_every_steps",
            2,
        ),
        (
            "model:\n  config:\n    hidden: 1\n    hidden: 2\n",
            "4:5 error[duplicate-key] model.config.hidden",
            "hidden",
            3,
        ),
        ("a: [{x: 1, x: 2}]\n", "1:12 error[duplicate-key] a[0].x", "x", 1),
        (
            "slurm:\n  env_vars: {A: 1, A: 2}\n",
            "2:20 error[duplicate-key] slurm.env_vars.A",
            "A",
            2,
        ),
    ],
)
def test_duplicate_keys(text: str, where: str, key: str, first: int) -> None:
    result = load_text(text)
    assert brief(result.diagnostics) == [where]
    assert only(result).message == (
        f"key '{key}' appears twice in this mapping (first on line {first}); "
        "AutoModel silently keeps the last one"
    )
    assert only(result).hint == "delete or rename one of them"


def test_a_duplicate_key_keeps_the_first_value_and_validation_goes_on() -> None:
    result = load_text("slurm:\n  nodes: 0\n  nodes: 2\n" + RECIPE)
    assert result.loaded is not None
    assert result.loaded.data["slurm"] == {"nodes": 0}
    report = validate_loaded(result.loaded, offline_settings())
    assert brief(result.diagnostics + report.diagnostics) == [
        "3:3 error[duplicate-key] slurm.nodes",
        "2:10 error[out-of-range] slurm.nodes",
    ]


# ------------------------------------------------------------------ empty, roots, documents
@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "# a\n\n# b\n", "   \n"])
def test_empty_and_comment_only(text: str) -> None:
    result = load_text(text)
    assert codes(result) == ["1:1 error[empty-file] "]
    assert only(result).message == "the file holds no YAML document"
    assert only(result).hint == "a recipe is a mapping"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("- a\n- b\n", "a list"),
        ("[1, 2]\n", "a list"),
        ("hello\n", "a single value"),
        ("42\n", "a single value"),
        ("null\n", "a single value"),
        ("'quoted'\n", "a single value"),
    ],
)
def test_the_root_must_be_a_mapping(text: str, kind: str) -> None:
    result = load_text(text)
    assert codes(result) == ["1:1 error[root-not-mapping] "]
    assert only(result).message == f"the top level is {kind}, not a mapping of sections"
    assert only(result).hint == "a recipe starts with keys such as 'model:' or 'slurm:'"


@pytest.mark.parametrize(
    ("text", "where", "count"),
    [
        ("a: 1\n---\nb: 2\n", "3:1 error[multiple-documents] ", 2),
        ("a: 1\n---\nb: 2\n---\nc: 3\n", "3:1 error[multiple-documents] ", 3),
        ("---\na: 1\n---\n- x\n", "4:1 error[multiple-documents] ", 2),
        ("a: 1\n--- b\n", "2:5 error[multiple-documents] ", 2),
    ],
)
def test_multiple_documents(text: str, where: str, count: int) -> None:
    result = load_text(text)
    assert codes(result) == [where]
    assert only(result).message == f"the file holds {count} YAML documents; a recipe is one"
    assert only(result).hint == "remove the '---' separators and keep a single document"


# ------------------------------------------------------------------ anchors and aliases
def billion_laughs(levels: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb() -> None:
    result = load_text(billion_laughs())
    assert codes(result) == ["1:1 error[alias-bomb] "]
    assert only(result).message == (
        f"anchors and aliases expand past {MAX_EXPANDED_NODES:,} nodes (or refer to themselves)"
    )
    assert only(result).hint == "write the values out instead of nesting aliases"


def test_just_under_the_bomb_limit_loads() -> None:
    # 10**4 leaves: far below the limit, but more than any recipe.
    result = load_text(billion_laughs(levels=3))
    assert result.diagnostics == []


@pytest.mark.parametrize("text", ["a: &x\n  b: *x\n", "a: &x [1, *x]\n", "&r {a: *r}\n"])
def test_a_recursive_alias(text: str) -> None:
    assert codes(load_text(text)) == ["1:1 error[alias-bomb] "]


def test_a_recursive_list_root_is_reported_as_not_a_mapping() -> None:
    assert codes(load_text("&r [*r]\n")) == ["1:1 error[root-not-mapping] "]


def nested(depth: int) -> str:
    return "a: " + "{b: " * depth + "1" + "}" * depth + "\n"


def test_reasonable_nesting_loads() -> None:
    result = load_text(nested(100))
    assert result.diagnostics == []


@pytest.mark.parametrize("depth", [600, 900, 2000])
def test_deep_nesting_is_a_clear_diagnostic_not_an_exception(depth: int) -> None:
    result = load_text(nested(depth))  # must not raise
    if result.loaded is None:
        assert result.diagnostics
        assert [d.code for d in result.diagnostics] != ["alias-bomb"], "there is no alias"


# ------------------------------------------------------------------ bytes
@pytest.mark.parametrize(
    "raw", [b"slurm:\x00\n", b"\x00", b"\x89PNG\r\n\x1a\n\x00\x00", "a: 1\n".encode("utf-16")]
)
def test_nul_bytes_are_binary(raw: bytes) -> None:
    result = load_bytes(raw, "f.yaml")
    assert codes(result) == ["1:1 error[not-text] "]
    assert only(result).message == "the file contains NUL bytes: it is binary, not YAML"


@pytest.mark.parametrize(
    ("raw", "byte"),
    [("slurm:\n  job_name: caf\xe9\n".encode("latin-1"), 22), (b"\xff\xfe", 0), (b"a: \xc3\n", 3)],
)
def test_non_utf8(raw: bytes, byte: int) -> None:
    result = load_bytes(raw, "f.yaml")
    assert codes(result) == ["1:1 error[not-text] "]
    assert only(result).message == f"the file is not UTF-8 (byte {byte}): it is not YAML text"


# ------------------------------------------------------------------ files
def test_a_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    result = load_file(path)
    assert codes(result) == ["1:1 error[file-not-found] "]
    assert only(result).message == f"no such file: {path}"
    assert only(result).hint == "check the path"


def test_a_directory(tmp_path: Path) -> None:
    result = load_file(tmp_path)
    assert codes(result) == ["1:1 error[file-unreadable] "]
    assert only(result).message == f"cannot read {tmp_path}: Is a directory"


def test_an_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("slurm: {}\n")
    path.chmod(0)
    try:
        done = run_cli("validate", "--no-check-paths", "secret.yaml", cwd=tmp_path, user=True)
    finally:
        path.chmod(0o600)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        "secret.yaml:1:1: error[file-unreadable] cannot read secret.yaml: Permission denied"
    )


@pytest.mark.parametrize(("path", "kind"), [("/dev/zero", "a device"), ("/dev/null", "a device")])
def test_a_device_is_not_read(path: str, kind: str) -> None:
    result = load_file(path)
    assert codes(result) == ["1:1 error[file-unreadable] "]
    assert only(result).message == f"cannot read {path}: it is {kind}, not a regular file"


def test_a_fifo_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = load_file(fifo)  # no writer: opening it for a blocking read would wait forever
    assert only(result).message == f"cannot read {fifo}: it is a named pipe, not a regular file"


def test_a_file_that_grows_past_its_stat_size_is_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.yaml"
    path.write_bytes(b"#" * (MAX_BYTES + 10))
    real_fstat = os.fstat

    def small(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        return os.stat_result((info.st_mode, *info[1:6], 10, *info[7:]))

    monkeypatch.setattr(os, "fstat", small)
    assert codes(load_file(path)) == ["1:1 error[file-too-large] "]


def test_a_50_mb_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    line = b"# " + b"x" * 1021 + b"\n"
    with path.open("wb") as out:
        out.write(b"slurm: {}\n")
        out.write(line * (50 * 1024))
    result = load_file(path)
    assert codes(result) == ["1:1 error[file-too-large] "]
    size = path.stat().st_size
    assert only(result).message == (
        f"{size / 1e6:.1f} MB is far larger than any recipe (limit {MAX_BYTES // 10**6} MB)"
    )
    assert only(result).hint == "check that this is the config you meant"


def test_just_under_the_size_limit_loads(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"slurm: {}\n" + b"#" * (MAX_BYTES - 20) + b"\n")
    result = load_file(path)
    assert result.diagnostics == []


def test_bytes_read_already_are_bounded_as_the_file_is() -> None:
    at_limit = b"slurm: {}\n" + b"#" * (MAX_BYTES - 11) + b"\n"
    assert len(at_limit) == MAX_BYTES
    assert load_bytes(at_limit, "launch.yaml").diagnostics == []
    over = load_bytes(at_limit + b"#", "launch.yaml")
    assert codes(over) == ["1:1 error[file-too-large] "]
    assert only(over).message == (
        f"{(MAX_BYTES + 1) / 1e6:.1f} MB is far larger than any recipe (limit "
        f"{MAX_BYTES // 10**6} MB)"
    )


def test_load_file_reads_bytes(tmp_path: Path) -> None:
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"a: 1\n\x00")
    assert codes(load_file(path)) == ["1:1 error[not-text] "]


def test_validate_path_sorts_and_keeps_the_path(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("slurm:\n  time: 4h\n  nodes: 0\n  nodes: 1\n" + RECIPE)
    report = validate_path(path, offline_settings())
    assert report.path == str(path)
    assert brief(report.diagnostics) == [
        "2:9 error[invalid-time] slurm.time",
        "3:10 error[out-of-range] slurm.nodes",
        "4:3 error[duplicate-key] slurm.nodes",
    ]
    assert not report.ok


# ------------------------------------------------------------------ property tests
SETTINGS = [offline_settings(), Settings(check_paths=True, check_env=True)]


def never_raises(result: LoadResult) -> None:
    assert all(isinstance(d, Diagnostic) for d in result.diagnostics)
    if result.loaded is None:
        assert any(d.is_error for d in result.diagnostics)
        return
    for option in SETTINGS:
        report = validate_loaded(result.loaded, option)
        assert all(isinstance(d, Diagnostic) for d in report.diagnostics)
        assert all(d.line >= 1 and d.column >= 1 for d in report.diagnostics)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_random_text_never_raises(text: str) -> None:
    never_raises(load_text(text))


@settings(max_examples=300, deadline=None)
@given(st.binary())
def test_random_bytes_never_raise(raw: bytes) -> None:
    never_raises(load_bytes(raw))


YAML_PIECES = st.sampled_from(
    [
        *":-{}[],&*!|>'\"%@`#? \n\t$",
        "slurm",
        "skypilot",
        "time",
        "  ",
        "a",
        "1",
        "yes",
        "~",
        "<<",
        "---",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(YAML_PIECES, max_size=40).map("".join))
def test_yaml_looking_noise_never_raises(text: str) -> None:
    never_raises(load_text(text))


KEYS = st.sampled_from(
    [
        "slurm", "skypilot", "fault_tolerance", "step_scheduler", "checkpoint", "restore_from",
        "k8s", "time", "nodes", "ntasks_per_node", "gpus_per_node", "master_port", "job_name",
        "account", "env_vars", "extra_mounts", "nemo_mount", "source", "dest", "flags", "cloud",
        "use_spot", "accelerators", "region", "zone", "job_recovery", "strategy", "hf_token",
        "ckpt_every_steps", "checkpoint_interval", "enabled", "checkpoint_dir", "path", "HF_TOKEN",
    ]
) | st.text(max_size=8)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(
        ["1:00:00", "30:00", "yes", "on", "${X}", "$Y", "$(z)", "${", "/a:/b:ro", "aws",
         "H100:8", "UNLIMITED", "hf_" + "a" * 34, "~/x", "auto"]
    )
)  # fmt: skip
TREES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=30,
)


def dump(data: Any) -> str:
    out = io.StringIO()
    YAML(typ="safe", pure=False).dump(data, out)  # libyaml's emitter, as the loader parses
    return out.getvalue()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, TREES, max_size=6))
def test_random_yaml_documents_never_raise(data: dict[str, Any]) -> None:
    never_raises(load_text(dump(data)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["slurm", "skypilot"]), st.dictionaries(KEYS, TREES, max_size=8))
def test_random_launcher_sections_never_raise(launcher: str, section: dict[str, Any]) -> None:
    data: dict[str, Any] = {launcher: section}
    if launcher == "skypilot":
        section.setdefault("cloud", "aws")
    never_raises(load_text(dump(data)))


@settings(max_examples=200, deadline=None)
@given(TREES)
def test_any_yaml_value_round_trips_through_the_loader(value: Any) -> None:
    text = dump({"x": value})
    result = load_text(text)
    # libyaml writes keys such as NO: unquoted (text in YAML 1.2); AutoModel's PyYAML
    # reads them as bools, numbers or null, and its config fails on them: an error
    assert [d for d in result.diagnostics if d.code != "key-not-text"] == []
    assert len(result.diagnostics) == _keys_pyyaml_reads_as_no_text(yaml.safe_load(text))
    assert result.loaded is not None
    loaded = result.loaded.data["x"]
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(loaded, float) and math.isnan(loaded)
    elif not _has_nan(value):
        assert loaded == value


def _keys_pyyaml_reads_as_no_text(value: Any) -> int:
    if isinstance(value, dict):
        own = sum(not isinstance(k, str) for k in value)
        return own + sum(_keys_pyyaml_reads_as_no_text(v) for v in value.values())
    if isinstance(value, list):
        return sum(_keys_pyyaml_reads_as_no_text(v) for v in value)
    return 0


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
@example("llama")
@example("no")
@example("~")
@example(".inf")
@example("0o17")
@example("=")
@example("<<")
@example("+1")
@example("")
def test_the_early_answer_for_plain_text_is_the_resolvers(value: str) -> None:
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import Resolver

    from automodel_launch.loading.yaml import _Loader

    loader = _Loader("a: 1")
    try:
        ours = str(loader.resolve(ScalarNode, value, (True, False)))
    finally:
        loader.dispose()
    assert ours == str(Resolver().resolve(ScalarNode, value, (True, False)))
