"""The manifest as a model: a bound on every field, and the largest manifest the writer
can produce still within the reader's limit."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs.lookup import since_epoch
from automodel_launch.jobs.manifest import (
    MANIFEST,
    MAX_ARG_CHARS,
    MAX_ARGS,
    MAX_ARTIFACTS,
    MAX_BYTES,
    MAX_DETAIL_CHARS,
    MAX_DETAILS,
    MAX_PATH_CHARS,
    MAX_POINTS,
    MAX_VALUE_KEY_CHARS,
    MAX_VALUES,
    Manifest,
    ManifestError,
    capped_command_line,
    manifest_from_json,
    new_manifest,
    read_manifest,
    update_manifest,
)
from automodel_launch.jobs.origins import (
    MAX_ORIGINS,
    MAX_OVERRIDES,
    MAX_TEXT,
    OverrideRecord,
    ProfileRecord,
)
from automodel_launch.launchers import LAUNCHERS
from automodel_launch.snapshot.record import MAX_NAMES, CodeRecord

ASTRAL = "\U0001f600"  # 4 bytes of UTF-8: the most a character a name allows can cost
CONTROL = "\x01"  # written "\u0001": the most any character can cost


def valid(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "0123456789ab", "name": "train", "launcher": "slurm", "job_dir": "/j",
        "submitted_at": "2026-11-30T16:49:19Z", "config_path": "/c.yaml",
        "config_sha256": "0" * 64, "command_line": ["automodel-launch"], "artifacts": [],
        "scheduler_id": "42", "details": {"time": "01:00:00", "nodes": 2},
    }  # fmt: skip
    data.update(changes)
    return data


def problem(**changes: Any) -> str:
    with pytest.raises(ManifestError) as raised:
        manifest_from_json(json.dumps(valid(**changes)), "M")
    return str(raised.value)


def test_a_valid_manifest_round_trips() -> None:
    made = manifest_from_json(json.dumps(valid(future_field=1)), "M")
    assert made.details == {"time": "01:00:00", "nodes": 2}
    assert manifest_from_json(made.to_json(), "M") == made
    assert made.submitted_epoch == 1796057359.0


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"id": ["x"]}, "id: Input should be a valid string"),
     ({"id": "ABCDEF"}, "id: String should match pattern '^[0-9a-f]{6,32}$'"),
     ({"id": "abc12"}, "id: String should match pattern"),
     ({"name": "a/b"}, "name: String should match pattern"),
     ({"name": ".."}, "name: is not a file name"),
     ({"name": "x" * 256}, "name: String should match pattern"),
     ({"launcher": "k8s"}, "launcher: Input should be 'slurm', 'skypilot' or 'interactive'"),
     ({"job_dir": "relative"}, "job_dir: String should match pattern"),
     ({"job_dir": "/" + "x" * MAX_PATH_CHARS}, "job_dir: String should have at most 4096"),
     ({"config_path": "/a\x00b"}, "config_path: String should match pattern"),
     ({"config_sha256": "0" * 63}, "config_sha256: String should match pattern"),
     ({"submitted_at": "2026-02-30T00:00:00Z"}, "submitted_at: is not a real date and time"),
     ({"submitted_at": "\u0662026-01-01T00:00:00Z"}, "submitted_at: String should match"),
     ({"command_line": ["x"] * (MAX_ARGS + 1)}, "command_line: Tuple should have at most 64"),
     ({"command_line": ["x" * (MAX_ARG_CHARS + 1)]}, "command_line.0: String should have at"),
     ({"artifacts": ["a/b"]}, "artifacts.0: String should match pattern"),
     ({"artifacts": ["a"] * (MAX_ARTIFACTS + 1)}, "artifacts: Tuple should have at most 64"),
     ({"scheduler_id": "--me"}, "scheduler_id is not a slurm job id"),
     ({"scheduler_id": "0"}, "scheduler_id is not a slurm job id"),
     ({"scheduler_id": 42}, "scheduler_id: Input should be a valid string"),
     ({"launcher": "skypilot", "scheduler_id": "1_2"}, "scheduler_id is not a skypilot job id"),
     ({"cluster": "c" * 256}, "cluster: String should have at most 255 characters"),
     ({"tool_version": "v" * 65}, "tool_version: String should have at most 64 characters"),
     ({"details": {"Pid": 1}}, "details.Pid.[key]: String should match pattern"),
     ({"details": {"a": [1]}}, "details.a: should be a boolean, an integer, a number or a text"),
     ({"details": {"a": 2**64}}, "details.a: should be a boolean"),
     ({"details": {"a": "x" * (MAX_DETAIL_CHARS + 1)}}, "details.a: should be a boolean"),
     ({"details": {f"k{n}": 1 for n in range(MAX_DETAILS + 1)}}, "details: Dictionary should"),
     ({"format": 2}, "format: Input should be 1"),
     ({"launcher": "interactive", "scheduler_id": "7", "details": {"pid": 8}},
      "details.pid is not the run's process group"),
     ({"launcher": "interactive", "scheduler_id": "1", "details": {"pid": 1}},
      "details.pid is not the run's process group"),
     ({"launcher": "interactive", "scheduler_id": "7", "details": {"pid": True}},
      "details.pid is not the run's process group")],
)  # fmt: skip
def test_every_field_is_bounded(changes: dict[str, Any], message: str) -> None:
    assert problem(**changes).startswith(f"M is not a job manifest ({message}")


def test_the_launchers_are_the_known_ones() -> None:
    for name in LAUNCHERS:
        made = manifest_from_json(json.dumps(valid(launcher=name, scheduler_id=None)), "M")
        assert made.launcher == name
    assert problem(launcher="local") == (
        "M is not a job manifest (launcher: Input should be 'slurm', 'skypilot' or 'interactive')"
    )


def test_a_local_run_with_its_process_group() -> None:
    made = manifest_from_json(
        json.dumps(valid(launcher="interactive", scheduler_id="77", details={"pid": 77})), "M"
    )
    assert made.details == {"pid": 77}


def test_the_largest_manifest_the_writer_makes_fits_the_reader(tmp_path: Path) -> None:
    long_path = "/" + CONTROL * (MAX_PATH_CHARS - 1)
    worst = Manifest(
        id="f" * 32, name=ASTRAL * 255, launcher="slurm", job_dir=long_path,
        submitted_at="2026-11-30T16:49:19Z", config_path=long_path, config_sha256="0" * 64,
        command_line=(CONTROL * MAX_ARG_CHARS,) * MAX_ARGS,
        artifacts=(ASTRAL * 255,) * MAX_ARTIFACTS, tool_version=CONTROL * 64,
        scheduler_id="1234567890_1234567890+1234", cluster=CONTROL * 255,
        details={f"k{n:02d}" + "x" * 29: CONTROL * MAX_DETAIL_CHARS for n in range(MAX_DETAILS)},
        sweep="f" * 32, point=MAX_POINTS - 1,
        values={f"{n:02d}" + CONTROL * 0 + "\u2028" * (MAX_VALUE_KEY_CHARS - 2):
                CONTROL * MAX_DETAIL_CHARS for n in range(MAX_VALUES)},
        code=CodeRecord(
            root=long_path, snapshot=long_path, branch=CONTROL * 255, diff=long_path,
            untracked=tuple(f"{n:03d}" + ASTRAL * 200 for n in range(MAX_NAMES)),
            skipped=tuple(f"{n:03d}" + ASTRAL * 200 for n in range(MAX_NAMES)),
        ),
        profile=ProfileRecord(name=CONTROL * 255, file=CONTROL * MAX_TEXT),
        overrides=(OverrideRecord(option="--sweep", argument=CONTROL * MAX_TEXT),) * MAX_OVERRIDES,
        more_overrides=2**31, more_origins=2**31, image=CONTROL * MAX_TEXT,
        origins={f"{n:02d}" + "\u2028" * 98: CONTROL * MAX_TEXT for n in range(MAX_ORIGINS)},
    )  # fmt: skip
    assert len(worst.origins) == MAX_ORIGINS and len(worst.code.skipped) == MAX_NAMES  # type: ignore[union-attr]
    assert len(worst.values) == MAX_VALUES
    assert len(worst.details) == MAX_DETAILS
    size = len(worst.to_json().encode())
    assert size <= MAX_BYTES, size
    assert size > 900_000  # the worst case was built: every field at its bound


def test_the_command_line_is_capped_when_written(tmp_path: Path) -> None:
    argv = ["automodel-launch", "submit", "--set", "x=" + "v" * 5_000_000, *["a"] * 100]
    capped = capped_command_line(argv)
    assert len(capped) == MAX_ARGS
    assert capped[:3] == ("automodel-launch", "submit", "--set")
    assert len(capped[3]) <= MAX_ARG_CHARS
    assert capped[3] == "x=" + "v" * (MAX_ARG_CHARS - 26) + "...(+4999514 chars)"
    assert capped[-1] == "...(+41 arguments)"
    assert capped_command_line(["a" * MAX_ARG_CHARS]) == ("a" * MAX_ARG_CHARS,)
    assert capped_command_line(["a"] * MAX_ARGS) == ("a",) * MAX_ARGS
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    (tmp_path / "job").mkdir()
    made = new_manifest(
        name="big", launcher="slurm", job_dir=tmp_path / "job", config=config, argv=argv,
        artifacts=["job.sbatch"], environ={},
    ).with_scheduler("9")  # fmt: skip
    update_manifest(made)
    assert (tmp_path / "job" / MANIFEST).stat().st_size < MAX_BYTES
    assert read_manifest(tmp_path / "job") == made  # never dropped for its size


def test_bad_values_at_submit_are_one_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    with pytest.raises(ManifestError) as raised:
        new_manifest(
            name="a/b", launcher="slurm", job_dir=tmp_path, config=config, argv=[],
            artifacts=[], environ={},
        )  # fmt: skip
    assert str(raised.value) == (
        "cannot record the job's manifest: name: String should match pattern "
        "'^[^/\\x00-\\x1f\\x7f]{1,255}$'"
    )
    made = new_manifest(
        name="ok", launcher="slurm", job_dir=tmp_path, config=config, argv=[], artifacts=[],
        environ={},
    )  # fmt: skip
    with pytest.raises(ManifestError, match="scheduler_id is not a slurm job id"):
        made.with_scheduler("--me")


def test_a_manifest_is_read_for_the_directory_it_is_in(tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / MANIFEST).write_text(json.dumps(valid(job_dir="/etc")))
    assert read_manifest(moved).job_dir == str(moved)
    assert read_manifest(moved).id == "0123456789ab"
    with pytest.raises(ManifestError) as raised:
        read_manifest(tmp_path)
    assert str(raised.value) == f"{tmp_path} has no {MANIFEST}: it is not a submitted job"


@pytest.mark.parametrize(
    ("text", "ago"),
    [("90s", 90), ("2m", 120), ("1h", 3600), ("2d", 172800), ("1w", 604800), (" 0s ", 0),
     ("007s", 7)],
)  # fmt: skip
def test_since(text: str, ago: int) -> None:
    assert abs(since_epoch(text) - (time.time() - ago)) < 5


@pytest.mark.parametrize(
    "text", ["9999999999999999999w", "9" * 5000 + "s", "999999999999999d", "3000w"]
)  # fmt: skip
def test_since_longer_ago_than_1970_is_refused(text: str) -> None:
    """Not "every job" (leaving --since out is that): a typo, said as one."""
    with pytest.raises(ValueError) as raised:
        since_epoch(text)
    assert str(raised.value) == (
        f"{text!r} reaches back before 1970, older than any job: give a time span like 2d, "
        "12h, 30m, 1w (leave the option out for every job)"
    )


def test_since_reaches_back_to_1970_and_no_further(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", lambda: 7200.0)  # 02:00 on 1970-01-01
    assert (since_epoch("2h"), since_epoch("119m"), since_epoch("7200s")) == (0.0, 60.0, 0.0)
    for text in ("7201s", "121m", "1d"):
        with pytest.raises(ValueError, match="reaches back before 1970"):
            since_epoch(text)


@pytest.mark.parametrize("text", ["2 days", "\u0663d", "-1d", "1y", ""])
def test_since_refuses_what_is_no_span(text: str) -> None:
    with pytest.raises(ValueError, match="is not a time span like 2d, 12h, 30m, 1w"):
        since_epoch(text)
