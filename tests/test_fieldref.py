"""docs/fields.md is generated from the models and must not drift from them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from automodel_launch import fieldref
from automodel_launch.config.document import LaunchDocument
from automodel_launch.config.k8s import K8sConfig, PvcMount
from automodel_launch.config.mounts import Mount
from automodel_launch.config.nemo_run import NemoRunConfig
from automodel_launch.config.notify import NotifyConfig
from automodel_launch.config.recipe import Checkpoint, FaultTolerance, RestoreFrom, StepScheduler
from automodel_launch.config.sky_storage import StorageMount
from automodel_launch.config.skypilot import CLOUDS, JobRecovery, SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.schema import build_schema
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "fields.md"


@pytest.fixture(scope="module")
def page() -> str:
    return fieldref.render()


def section_rows(page: str, heading: str) -> list[str]:
    """The table rows under ``## heading`` (up to the next heading)."""
    body = page.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("| `")]


def test_committed_page_is_current(page: str) -> None:
    committed = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    assert committed == page, (
        "docs/fields.md is out of date with the models: run `nox -s schema` "
        f"(or `{fieldref.REGENERATE}`) and commit the result"
    )


def test_sections_and_their_paths() -> None:
    found = [(s.model, s.paths) for s in fieldref.sections()]
    assert found == [
        (SlurmConfig, ["slurm"]),
        (NotifyConfig, ["slurm.notify"]),
        (Mount, ["slurm.nemo_mount", "slurm.extra_mounts[]"]),
        (SkyPilotConfig, ["skypilot"]),
        (StorageMount, ["skypilot.file_mounts"]),
        (JobRecovery, ["skypilot.job_recovery"]),
        (FaultTolerance, ["fault_tolerance"]),
        (StepScheduler, ["step_scheduler"]),
        (Checkpoint, ["checkpoint"]),
        (RestoreFrom, ["restore_from"]),
        (K8sConfig, ["k8s"]),
        (PvcMount, ["k8s.pvc_mounts[]"]),
        (NemoRunConfig, ["nemo_run"]),
    ]


@pytest.mark.parametrize(
    ("heading", "model"),
    [
        ("Top level", LaunchDocument),
        ("`slurm`", SlurmConfig),
        ("`slurm.nemo_mount`, `slurm.extra_mounts[]`", Mount),
        ("`skypilot`", SkyPilotConfig),
        ("`skypilot.job_recovery`", JobRecovery),
        ("`fault_tolerance`", FaultTolerance),
        ("`step_scheduler`", StepScheduler),
        ("`checkpoint`", Checkpoint),
        ("`restore_from`", RestoreFrom),
    ],
)
def test_every_field_has_a_row_in_model_order(
    page: str, heading: str, model: type[BaseModel]
) -> None:
    rows = section_rows(page, heading)
    assert [row.split("`")[1] for row in rows] == list(model.model_fields)
    for row, (name, info) in zip(rows, model.model_fields.items(), strict=True):
        if info.description:
            text = " ".join(info.description.split()).replace("|", "\\|")
            assert row.endswith(f" | {text} |"), name


def test_rows_state_type_default_and_description(page: str) -> None:
    slurm = section_rows(page, "`slurm`")
    described = SlurmConfig.model_fields["master_port"].description
    assert (
        f'| `master_port` | integer 1024..65535 or string or `"auto"` | `13742` | {described} |'
        in slurm
    )
    assert slurm[-1].startswith("| `script` |")
    assert "| `nodes` | integer 1..100000 | `1` | Number of nodes to allocate. |" in slurm
    assert any(
        r.startswith("| `extra_mounts` | list of [Mount](#mount) or string | `[]` |") for r in slurm
    )
    assert any(r.startswith('| `time` | string or integer ≥ -1 | `"04:00:00"` |') for r in slurm)
    sky = section_rows(page, "`skypilot`")
    clouds = ", ".join(f'`"{c}"`' for c in CLOUDS)
    assert any(r.startswith(f"| `cloud` | one of {clouds} | required |") for r in sky)
    mount = section_rows(page, "`slurm.nemo_mount`, `slurm.extra_mounts[]`")
    assert mount[0] == "| `source` | string | required | Absolute path on the cluster nodes. |"
    top = section_rows(page, "Top level")
    assert top[0].startswith("| `slurm` | [SlurmConfig](#slurmconfig) or null | `null` |")


def test_every_link_has_a_target(page: str) -> None:
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', page))
    links = set(re.findall(r"\]\(#([^)]+)\)", page))
    assert links and links <= anchors


def test_module_entry_point_writes_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fields.md"
    assert fieldref.main(["-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == fieldref.render()
    assert not (tmp_path / "fields.md.tmp").exists()
    assert fieldref.main([]) == 0
    assert capsys.readouterr().out == fieldref.render()


INTERNAL_WORDS = re.compile(r"\bseed('s)?\b", re.IGNORECASE)


def test_descriptions_use_the_users_words(page: str) -> None:
    # field descriptions reach docs/fields.md, the schema and editors' hover text
    assert INTERNAL_WORDS.findall(page) == []
    assert INTERNAL_WORDS.findall(json.dumps(build_schema())) == []
    assert "older name of ckpt_every_steps" in page
