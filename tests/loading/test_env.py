"""automodel_launch/loading/env.py: ${VAR} references, bare $VAR, command substitution."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from automodel_launch.loading import env
from automodel_launch.loading.env import Reference


# ------------------------------------------------------------------ scan
@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("${HF_TOKEN}", [("HF_TOKEN", None)]),
        ("${X,default}", [("X", "default")]),
        ("${X,}", [("X", "")]),
        ("${oc.env:X,fallback}", [("X", "fallback")]),
        ("${oc.env:X}", [("X", None)]),
        ("run-${SLURM_JOB_ID}-${USER}", [("SLURM_JOB_ID", None), ("USER", None)]),
        ("${X,a b c}", [("X", "a b c")]),
        ("plain", []),
        ("", []),
    ],
)
def test_references(text: str, refs: list[tuple[str, str | None]]) -> None:
    found = env.scan(text)
    assert [(r.name, r.default) for r in found.references] == refs
    assert found.malformed == [] and found.bare == [] and not found.command_substitution


def test_reference_spans() -> None:
    (ref,) = env.scan("pre-${X}-post").references
    assert ref == Reference("X", None, 4, 8)


@pytest.mark.parametrize(
    ("text", "malformed"),
    [
        ("${", ["${"]),
        ("${X", ["${X"]),
        ("a ${X b", ["${X b"]),
        ("${}", ["${}"]),
        ("${1X}", ["${1X}"]),
        ("${X:-d}", ["${X:-d}"]),
        ("${X,${Y}}", ["${X,${Y}"]),
        ("${A} ${", ["${"]),
        ("${X,$Y}", ["${X,$Y}"]),
        ("${X,a}b}", []),
    ],
)
def test_malformed(text: str, malformed: list[str]) -> None:
    assert env.scan(text).malformed == malformed


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("$HOME", ["HOME"]),
        ("$HOME/x:$PATH", ["HOME", "PATH"]),
        ("x$Y", ["Y"]),
        ("$$", []),
        ("$$HOME", []),
        ("\\$HOME", []),
        ("$1", []),
        ("100$", []),
        ("${HOME}", []),
    ],
)
def test_bare(text: str, bare: list[str]) -> None:
    assert env.scan(text).bare == bare


@pytest.mark.parametrize(
    ("text", "found"),
    [("$(date)", True), ("`date`", True), ("a $(b) c", True), ("$ (x)", False), ("(x)", False)],
)
def test_command_substitution(text: str, found: bool) -> None:
    assert env.scan(text).command_substitution is found


# ------------------------------------------------------------------ predicates
@pytest.mark.parametrize(
    ("text", "pure"),
    [
        ("${HF_TOKEN}", True),
        (" ${HF_TOKEN} ", True),
        ("${oc.env:HF_TOKEN}", True),
        ("${HF_TOKEN,default}", False),
        ("${HF_TOKEN}x", False),
        ("$HF_TOKEN", False),
        ("", False),
    ],
)
def test_is_pure_reference(text: str, pure: bool) -> None:
    assert env.is_pure_reference(text) is pure


@pytest.mark.parametrize(
    ("text", "only"),
    [("", True), ("  ", True), ("${X}", True), ("$X", True), ("${X,d}", False), ("x", False)],
)
def test_is_reference_only(text: str, only: bool) -> None:
    assert env.is_reference_only(text) is only


@pytest.mark.parametrize(
    "name",
    ["SLURM_JOB_ID", "SLURM_NODEID", "SKYPILOT_NODE_RANK", "MASTER_ADDR", "MASTER_PORT",
     "WORLD_SIZE", "RANK", "LOCAL_RANK", "PET_NNODES", "TORCHELASTIC_RUN_ID", "JOB_DIR"],
)  # fmt: skip
def test_runtime_variables(name: str) -> None:
    assert env.is_runtime_variable(name)


@pytest.mark.parametrize("name", ["HF_TOKEN", "HOME", "SLURM", "MASTER", "USER"])
def test_not_runtime_variables(name: str) -> None:
    assert not env.is_runtime_variable(name)


# ------------------------------------------------------------------ split and expand
def test_split() -> None:
    parts = env.split("a-${X}-${Y,d}")
    assert [p if isinstance(p, str) else p.name for p in parts] == ["a-", "X", "-", "Y"]
    assert env.split("") == []
    assert env.split("${X}") == [Reference("X", None, 0, 4)]


@pytest.mark.parametrize(
    ("text", "environ", "expanded", "missing"),
    [
        ("${X}", {"X": "1"}, "1", []),
        ("${X}", {}, "", ["X"]),
        ("${X,d}", {}, "d", []),
        ("${X,d}", {"X": "v"}, "v", []),
        ("${oc.env:X,d}", {}, "d", []),
        ("a/${X}/${Y}", {"X": "1"}, "a/1/", ["Y"]),
        ("$X stays", {"X": "1"}, "$X stays", []),
        ("$(cmd) `cmd`", {}, "$(cmd) `cmd`", []),
    ],
)
def test_expand(text: str, environ: dict[str, str], expanded: str, missing: list[str]) -> None:
    assert env.expand(text, environ) == (expanded, missing)


def test_expand_never_runs_commands(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"$(touch {marker}) `touch {marker}` ${{X}}"
    assert env.expand(text, {"X": "1"}) == (f"$(touch {marker}) `touch {marker}` 1", [])
    assert not marker.exists()


@given(st.text())
def test_split_reassembles_the_text(text: str) -> None:
    rebuilt = "".join(p if isinstance(p, str) else text[p.start : p.end] for p in env.split(text))
    assert rebuilt == text


@given(st.text())
def test_scan_never_raises(text: str) -> None:
    found = env.scan(text)
    for ref in found.references:
        assert env.NAME_RE.match(ref.name)
