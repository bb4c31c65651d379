"""``automodel-launch schema``: the JSON Schema editors use, and the committed copy."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from automodel_launch.editors import installed_schema
from automodel_launch.loading import load_file, load_text
from automodel_launch.schema import build_schema, schema_text
from automodel_launch.validation import validate_path
from tests.conftest import ROOT, offline_settings

COMMITTED = ROOT / "schemas" / "automodel-launch.schema.json"
VALID_FILES = [
    *sorted((ROOT / "tests" / "examples" / "valid").glob("*.yaml")),
    ROOT / "examples" / "llm_finetune_slurm.yaml",
    ROOT / "examples" / "llm_finetune_skypilot_spot.yaml",
]


def run_schema(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "schema", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "300"},
        timeout=60,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return build_schema()


@pytest.fixture(scope="module")
def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema)


def data_of(text: str) -> dict[str, Any]:
    loaded = load_text(text).loaded
    assert loaded is not None
    return loaded.data


def errors(validator: jsonschema.Draft202012Validator, data: Any) -> list[str]:
    return [e.message for e in validator.iter_errors(data)]


# ------------------------------------------------------------------ the command
def test_schema_prints_json_draft_2020_12() -> None:
    result = run_schema()
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert result.stdout == schema_text()


def test_schema_writes_a_file(tmp_path: Path) -> None:
    target = tmp_path / "out.schema.json"
    result = run_schema("-o", str(target))
    assert result.returncode == 0
    assert result.stdout == ""
    assert target.read_text(encoding="utf-8") == schema_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.schema.json"]
    assert run_schema("--output", str(target)).returncode == 0


def test_schema_o_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = run_schema("-o", str(tmp_path))
    assert result.returncode == 2
    assert f"{tmp_path} is a directory; name a file" in result.stderr
    assert sorted(tmp_path.parent.glob(f"{tmp_path.name}*")) == [tmp_path]
    assert list(tmp_path.iterdir()) == []


def test_schema_o_in_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = run_schema("-o", str(tmp_path / "missing" / "x.json"))
    assert result.returncode == 2
    assert f"no such directory: {tmp_path / 'missing'}" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_schema_o_follows_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o640)
    (tmp_path / "link.json").symlink_to("real.json")
    assert run_schema("-o", str(tmp_path / "link.json")).returncode == 0
    assert (tmp_path / "link.json").is_symlink()
    assert real.read_text(encoding="utf-8") == schema_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640, "the file keeps its mode"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_schema_o_writes_into_a_device() -> None:
    result = run_schema("-o", "/dev/null")
    assert result.returncode == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("copy", [COMMITTED, installed_schema()], ids=["schemas", "package"])
def test_the_committed_schema_is_up_to_date(copy: Path) -> None:
    """Both copies: the repository's, and the one installed with the package (where a
    modeline printed outside a checkout points)."""
    committed = copy.read_text(encoding="utf-8")
    assert committed == schema_text(), (
        f"{copy.relative_to(ROOT)} is out of date with the models: "
        "run `nox -s schema` and commit the result"
    )


# ------------------------------------------------------------------ what editors need
def test_the_schema_is_a_valid_draft_2020_12_schema(schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith("automodel-launch.schema.json")
    assert schema["title"] and schema["description"]


def test_editor_keywords(schema: dict[str, Any]) -> None:
    slurm = schema["$defs"]["SlurmConfig"]
    sky = schema["$defs"]["SkyPilotConfig"]
    time = slurm["properties"]["time"]
    assert time["title"] == "Time"
    assert time["description"] == time["markdownDescription"]
    assert time["default"] == "04:00:00"
    assert time["examples"] == ["04:00:00", "2-00:00:00", "30"]
    assert time["patternErrorMessage"].startswith("Slurm time: M, M:S, H:M:S")
    assert _enum(sky["properties"]["cloud"]) == ["aws", "gcp", "azure", "lambda", "kubernetes"]
    assert "cloud" in sky["required"]
    assert slurm["additionalProperties"] is False
    assert sky["additionalProperties"] is False
    assert schema["additionalProperties"] is True
    assert slurm["defaultSnippets"][0]["label"] == "slurm: multi-node job"
    assert "deprecationMessage" in schema["properties"]["kubernetes"]
    assert "deprecationMessage" not in schema["properties"]["k8s"]  # AutoModel's own launcher
    assert schema["$defs"]["K8sConfig"]["additionalProperties"] is False


def _enum(node: dict[str, Any]) -> list[str] | None:
    """The enum of a property, directly or in one of its anyOf branches (for completion)."""
    if "enum" in node:
        return list(node["enum"])
    for branch in node.get("anyOf", []):
        if "enum" in branch:
            return list(branch["enum"])
    return None


def test_every_property_description_has_a_markdown_twin(schema: dict[str, Any]) -> None:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("description"), str):
                assert node.get("markdownDescription") == node["description"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schema["$defs"])
    walk(schema["properties"])


def test_the_top_level_markdown_matches_the_description(schema: dict[str, Any]) -> None:
    assert schema["markdownDescription"] == schema["description"]


# ------------------------------------------------------------------ cross-check with jsonschema
@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_the_schema_accepts_the_valid_examples(
    validator: jsonschema.Draft202012Validator, path: Path
) -> None:
    loaded = load_file(path).loaded
    assert loaded is not None
    assert errors(validator, loaded.data) == []


@pytest.mark.parametrize(
    "text",
    [
        "slurm:\n  master_port: 99999\n",
        "slurm:\n  master_port: 80\n",
        "slurm:\n  ntask_per_node: 8\n",
        'slurm:\n  time: "4h"\n',
        'slurm:\n  time: "1:2:3:4"\n',
        'slurm:\n  job_name: "llm finetune"\n',
        "slurm:\n  nodes: 0\n",
        'slurm:\n  account: "my account"\n',
        "slurm:\n  hf_token: hf_" + "abcdefghijklmnopqrstuvwxyz0123456789\n",
        "slurm:\n  extra_mounts:\n    - ~/data:/data\n",
        "slurm:\n  extra_mounts:\n    - {source: /a}\n",
        "slurm:\n  env_vars:\n    1BAD: x\n",
        "skypilot:\n  accelerators: H100:8\n",
        "skypilot:\n  cloud: oracle\n",
        'skypilot:\n  cloud: aws\n  accelerators: "H100:0"\n',
        "skypilot:\n  cloud: aws\n  num_nodes: 0\n",
        "skypilot:\n  cloud: aws\n  job_recovery:\n    strategy: BOGUS\n",
        "fault_tolerance:\n  max_restart: 3\n",
    ],
)
def test_the_schema_rejects_what_the_cli_rejects(
    validator: jsonschema.Draft202012Validator, text: str
) -> None:
    assert errors(validator, data_of(text)) != []
    report = validate_path_text(text)
    assert not report.ok


def validate_path_text(text: str) -> Any:
    loaded = load_text(text).loaded
    assert loaded is not None
    from automodel_launch.validation import validate_loaded

    return validate_loaded(loaded, offline_settings())


@pytest.mark.parametrize(
    "text",
    [
        'slurm:\n  time: "2-"\n',
        "slurm:\n  time: UNLIMITED\n",
        "slurm:\n  time: 30\n",
        "slurm:\n  master_port: auto\n",
        "slurm:\n  extra_mounts:\n    - /a:/b:ro\n    - {source: /c, dest: /d}\n    - /e\n",
        "slurm:\n  env_vars:\n    A: 1\n    B: true\n    C: ${X}\n",
        "skypilot:\n  cloud: aws\n  accelerators: A100-80GB:4\n",
        "model:\n  anything: [1, 2]\nk8s: {}\n",
    ],
)
def test_the_schema_accepts_what_the_cli_accepts(
    validator: jsonschema.Draft202012Validator, text: str
) -> None:
    assert errors(validator, data_of(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("skypilot:\n  cloud: AWS\n", id="cloud-upper-case"),
        pytest.param("skypilot:\n  cloud: Kubernetes\n", id="cloud-title-case"),
        pytest.param("slurm:\n  time: -1\n", id="time-minus-one"),
        pytest.param(
            "slurm:\n  extra_mounts:\n    - /a::ro\n",
            id="mount-empty-dest",
        ),
    ],
)
def test_the_schema_is_not_stricter_than_the_models(
    validator: jsonschema.Draft202012Validator, text: str
) -> None:
    assert validate_path_text(text).ok
    assert errors(validator, data_of(text)) == []


def test_check_jsonschema_accepts_the_bundled_example(tmp_path: Path) -> None:
    tool = Path(sys.executable).parent / "check-jsonschema"
    if not tool.exists():
        pytest.skip("check-jsonschema is not installed next to this Python")
    result = subprocess.run(
        [
            str(tool),
            "--schemafile",
            str(COMMITTED),
            str(ROOT / "examples" / "llm_finetune_slurm.yaml"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    bad = validate_path(ROOT / "examples" / "broken.yaml", offline_settings())
    assert not bad.ok
    result = subprocess.run(
        [str(tool), "--schemafile", str(COMMITTED), str(ROOT / "examples" / "broken.yaml")],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=120,
        check=False,
    )
    assert result.returncode == 1


@pytest.mark.parametrize("section", ["SlurmConfig", "SkyPilotConfig"])
def test_every_editor_snippet_expands_to_a_valid_section(section: str) -> None:
    """Each snippet, every placeholder at its default (a choice at its first option)."""
    import re

    key = {"SlurmConfig": "slurm", "SkyPilotConfig": "skypilot"}[section]
    for snippet in build_schema()["$defs"][section].get("defaultSnippets", []):
        body = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", snippet["bodyText"])
        body = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", body)
        text = f"{key}:\n" + "".join(f"  {line}\n" for line in body.splitlines())
        loaded = load_text(text, "snippet.yaml").loaded
        assert loaded is not None, text
        from automodel_launch.validation import validate_loaded

        report = validate_loaded(loaded, offline_settings())
        assert [d.code for d in report.diagnostics if d.is_error] == [], (snippet["label"], text)
