"""A sweep's point in its manifest: the sweep's id, the point's index and its swept values,
each bounded; a manifest written before sweeps existed reads as a single job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs.manifest import (
    MANIFEST,
    MAX_VALUES,
    ManifestError,
    manifest_from_json,
    new_manifest,
    read_manifest,
)
from tests.hostile.tokens import make
from tests.jobs.test_manifest_model import problem, valid

GITHUB_PAT = make("github-ghp", 18).value
POINT = {"sweep": "00112233aabb", "point": 3, "values": {"optimizer.lr": 2e-05, "peft.dim": 8}}


def test_an_old_manifest_is_a_single_job() -> None:
    made = manifest_from_json(json.dumps(valid()), "M")
    assert (made.sweep, made.point, made.values) == (None, None, {})
    assert json.loads(made.to_json())["sweep"] is None


def test_a_point_round_trips_with_its_values() -> None:
    made = manifest_from_json(json.dumps(valid(**POINT)), "M")
    assert (made.sweep, made.point) == ("00112233aabb", 3)
    assert made.values == {"optimizer.lr": 2e-05, "peft.dim": 8}
    assert manifest_from_json(made.to_json(), "M") == made
    gpus = manifest_from_json(json.dumps(valid(details={"nodes": 2, "gpus_per_node": 8})), "M")
    assert gpus.details == {"nodes": 2, "gpus_per_node": 8}


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"point": 0}, "point and sweep go together: a sweep's point has both, a job neither"),
     ({"sweep": "00112233aabb"}, "point and sweep go together"),
     ({"values": {"a": 1}}, "values are a sweep point's: a job outside a sweep has none"),
     ({**POINT, "sweep": "XYZ"}, "sweep: String should match pattern '^[0-9a-f]{6,32}$'"),
     ({**POINT, "point": -1}, "point: Input should be greater than or equal to 0"),
     ({**POINT, "point": 100_000}, "point: Input should be less than 100000"),
     ({**POINT, "point": "3"}, "point: Input should be a valid integer"),
     ({**POINT, "values": {f"k{n}": n for n in range(MAX_VALUES + 1)}},
      "values: Dictionary should have at most 32 items after validation, not more"),
     ({**POINT, "values": {"k": "x" * 257}},
      "values.k: should be a boolean, an integer, a number or a text of at most 256"),
     ({**POINT, "values": {"k": [1, 2]}}, "values.k: should be a boolean, an integer"),
     ({**POINT, "values": {"k": {"a": 1}}}, "values.k: should be a boolean, an integer"),
     ({**POINT, "values": {"k": 2**64}}, "values.k: should be a boolean, an integer"),
     ({**POINT, "values": {"a\x1bb": 1}}, "values.a\x1bb.[key]: String should match pattern"),
     ({**POINT, "values": {"a\nb": 1}}, "values.a\nb.[key]: String should match pattern"),
     ({**POINT, "values": {"": 1}}, "values..[key]: String should match pattern"),
     ({**POINT, "values": {"k" * 201: 1}}, "values.kkkk"),
     ],
)  # fmt: skip
def test_every_sweep_field_is_bounded(changes: dict[str, Any], message: str) -> None:
    assert problem(**changes).startswith(f"M is not a job manifest ({message}")


def test_a_hostile_point_on_disk_names_the_file_and_the_field(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(json.dumps(valid(point=7)))
    with pytest.raises(ManifestError) as raised:
        read_manifest(tmp_path)
    assert str(raised.value) == (
        f"cannot read {tmp_path / MANIFEST}: it is not a job manifest (point and sweep go "
        "together: a sweep's point has both, a job neither); submit writes this file: restore "
        "it, or move the job directory away if it holds no job"
    )
    (tmp_path / MANIFEST).write_text(json.dumps(valid(**{**POINT, "values": {"x": float("nan")}})))
    with pytest.raises(ManifestError, match=r"manifest \(values.x: should be a boolean"):
        read_manifest(tmp_path)


def test_the_writer_records_a_point_and_redacts_its_values(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    made = new_manifest(
        name="lr", launcher="slurm", job_dir=tmp_path, config=config, argv=[], artifacts=[],
        environ={"WANDB_API_KEY": "s3cr3t-value-1234"}, sweep="abcdef012345", point=1,
        values={"optimizer.lr": 0.001, "logger.key": "s3cr3t-value-1234",
                f"env.{GITHUB_PAT}": GITHUB_PAT, "peft.dim": 8, "flag": True, "none": None},
    )  # fmt: skip
    assert (made.sweep, made.point) == ("abcdef012345", 1)
    text = made.to_json()
    assert "s3cr3t-value-1234" not in text and GITHUB_PAT not in text
    assert made.values["optimizer.lr"] == 0.001 and made.values["peft.dim"] == 8
    assert made.values["flag"] is True and made.values["none"] is None
    assert len(made.values) == 6
    with pytest.raises(ManifestError) as raised:
        new_manifest(
            name="lr", launcher="slurm", job_dir=tmp_path, config=config, argv=[],
            artifacts=[], environ={}, sweep="abcdef012345", values={"a": 1},
        )  # fmt: skip
    assert str(raised.value) == (
        "cannot record the job's manifest: point and sweep go together: a sweep's point has "
        "both, a job neither"
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [({**POINT, "values": {f"k{n}": n for n in range(MAX_VALUES + 1)}}, "values: Dictionary"),
     ({**POINT, "values": {"k": "v" * 5000}}, "values.k: should be a boolean"),
     ({**POINT, "values": {"a\x1b[2Jb": 1}}, "values.a\\x1b[2Jb.[key]: String should match"),
     ({"point": 7}, "point and sweep go together")],
)  # fmt: skip
def test_a_hostile_point_through_the_cli_is_one_clear_line(
    tmp_path: Path, changes: dict[str, Any], field: str
) -> None:
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    (tmp_path / MANIFEST).write_text(json.dumps(valid(**changes)))
    for command in ("status", "logs", "cancel"):
        done = subprocess.run(
            [sys.executable, "-m", "automodel_launch", command, str(tmp_path)],
            capture_output=True, text=True, timeout=60, check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(tmp_path / "none")},
        )  # fmt: skip
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr.startswith(
            f"error: cannot read {tmp_path / MANIFEST}: it is not a job manifest ({field}"
        )
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
