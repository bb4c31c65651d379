"""``explain FIELD`` for every field of the schema, from the schema's own metadata."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest

from automodel_launch.diagnostics import CODES
from automodel_launch.explain import UnknownField, explain, field_paths
from automodel_launch.explain.rules import BY_CODE, FILE_LEVEL, GENERIC
from automodel_launch.fieldref import field_doc
from automodel_launch.schema import build_schema
from tests.conftest import ROOT, run_cli

SCHEMA = build_schema()
PATHS = field_paths()


def _schema_paths(node: dict[str, object], prefix: str = "") -> set[str]:
    """Every property path the JSON Schema itself states (list items seen through)."""
    found: set[str] = set()
    defs = SCHEMA["$defs"]

    def walk(node: object, prefix: str) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            walk(defs[str(node["$ref"]).rsplit("/", 1)[-1]], prefix)
        for key in ("anyOf", "oneOf"):
            for branch in node.get(key, []):
                walk(branch, prefix)
        if "items" in node:
            walk(node["items"], prefix)
        if isinstance(node.get("additionalProperties"), dict):  # a mapping's values
            walk(node["additionalProperties"], prefix)
        for name, sub in node.get("properties", {}).items():
            path = f"{prefix}{name}"
            if path not in found:
                found.add(path)
                walk(sub, path + ".")

    walk(node, prefix)
    return found


def test_explain_knows_exactly_the_schemas_fields() -> None:
    assert set(PATHS) == _schema_paths(SCHEMA)
    assert len(PATHS) > 70


@pytest.mark.parametrize("path", PATHS)
def test_every_field_is_explained(path: str) -> None:
    text = explain(path)
    doc = field_doc(tuple(path.split(".")), SCHEMA)
    assert doc is not None
    lines = text.splitlines()
    assert lines[0].startswith(f"{path}  (")
    assert lines[2] == f"  {doc.description}"
    assert f"  default:  {doc.default.replace('`', '')}" in lines
    assert any(line.startswith("  type:     ") for line in lines)
    assert lines[-1].startswith("  reference: docs/fields.md#")
    anchor = lines[-1].rsplit("#", 1)[1]
    page = (ROOT / "docs" / "fields.md").read_text()
    assert anchor == "top-level" or f'<a id="{anchor}"></a>' in page


def test_slurm_time_in_full() -> None:
    text = explain("slurm.time")
    assert '  default:  "04:00:00"' in text
    assert "  forms:    Slurm time: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED" in text
    assert '  examples: time: "04:00:00", time: "2-00:00:00", time: "30"' in text
    rules = text.split("  rules:\n")[1].split("\n\n")[0].splitlines()
    codes = [line.split()[0] for line in rules]
    assert codes == [
        "invalid-time", "ambiguous-time", "time-leaves-no-checkpoint-margin",
        "signal-exceeds-time", "time-over-partition-limit", "wrong-type", "out-of-range",
        "yaml11-trap", "yaml-tag",
    ]  # fmt: skip
    assert "invalid-time                      error    not a Slurm time limit" in rules[0]


def test_list_items_are_seen_through() -> None:
    assert explain("slurm.extra_mounts[0].source") == explain("slurm.extra_mounts.source")


def test_a_wrong_field_gets_did_you_mean() -> None:
    with pytest.raises(UnknownField, match=r"no field 'slurm.tme'; did you mean slurm.time"):
        explain("slurm.tme")
    with pytest.raises(UnknownField, match="fields start with one of: slurm, skypilot"):
        explain("zzzz")
    done = run_cli("explain", "skypilot.acelerators", cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.startswith(
        "error: no field 'skypilot.acelerators'; did you mean skypilot.accelerators"
    )


def test_the_rule_table_names_real_codes_and_fields() -> None:
    assert set(CODES) >= set(BY_CODE) | GENERIC | FILE_LEVEL
    # every code is explained somewhere: a field's own rule, a generic one, or the file's
    assert set(CODES) == set(BY_CODE) | GENERIC | FILE_LEVEL
    for code, patterns in BY_CODE.items():
        for pattern in patterns:
            assert any(fnmatchcase(p, pattern) for p in PATHS), (code, pattern)
