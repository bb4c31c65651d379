"""automodel_launch/checks.py: what only this host can tell (paths exist, variables are set)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from automodel_launch import checks
from automodel_launch.diagnostics import Diagnostic, sort_key
from automodel_launch.loading import load_text
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_loaded
from tests.conftest import RECIPE, brief, offline_settings


def host(
    text: str, environ: dict[str, str], *, paths: bool = True, env: bool = True
) -> list[Diagnostic]:
    loaded = load_text(textwrap.dedent(text), "c.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    assert report.document is not None, brief(report.diagnostics)
    sink = loaded.collector()
    checks.check_host(report.document, sink, Settings(check_paths=paths, check_env=env), environ)
    return sink.items


# ------------------------------------------------------------------ paths
def test_missing_mount_sources_and_images(tmp_path: Path) -> None:
    text = f"""\
        slurm:
          container_image: {tmp_path}/img.sqsh
          nemo_mount: {tmp_path}/src:/opt/Automodel
          extra_mounts:
            - {tmp_path}:/here
            - {tmp_path}/data:/data
            - source: {tmp_path}/models
              dest: /models
    """
    diags = host(text, {}, env=False)
    assert brief(diags) == [
        "6:7 error[path-missing] slurm.extra_mounts[1].source",
        "7:15 error[path-missing] slurm.extra_mounts[2].source",
        "3:15 error[path-missing] slurm.nemo_mount.source",
        "2:20 error[path-missing] slurm.container_image",
    ]
    assert diags[0].message == f"{tmp_path}/data does not exist on this host"
    assert diags[0].hint == (
        "create it, fix the path, or pass --no-check-paths when this host is not a cluster node"
    )


def test_existing_paths_pass(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "img.sqsh").write_bytes(b"")
    text = f"""\
        slurm:
          container_image: {tmp_path}/img.sqsh
          extra_mounts:
            - {tmp_path}/data:/data
    """
    assert host(text, {}) == []


def test_a_registry_image_is_not_a_path() -> None:
    assert host("slurm:\n  container_image: nvcr.io/nvidia/nemo:dev\n", {}) == []


def test_a_relative_sqsh_is_looked_up_from_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = "slurm:\n  container_image: ./nemo.sqsh\n"
    assert brief(host(text, {})) == ["2:20 error[path-missing] slurm.container_image"]
    (tmp_path / "nemo.sqsh").write_bytes(b"")
    assert host(text, {}) == []


def test_references_in_paths_are_expanded(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    text = "slurm:\n  extra_mounts:\n    - ${ROOT}/data:/data\n    - ${ROOT}/nope:/nope\n"
    diags = host(text, {"ROOT": str(tmp_path)}, env=False)
    assert brief(diags) == ["4:7 error[path-missing] slurm.extra_mounts[1].source"]
    assert diags[0].message == f"{tmp_path}/nope does not exist on this host"


def test_an_unset_reference_in_a_path_is_an_env_warning_not_a_path_error() -> None:
    diags = host("slurm:\n  extra_mounts:\n    - ${DATA}:/data\n", {})
    assert brief(diags) == ["3:7 warning[env-unset] slurm.extra_mounts[0].source"]


def test_path_checks_can_be_skipped(tmp_path: Path) -> None:
    text = f"slurm:\n  extra_mounts:\n    - {tmp_path}/nope:/x\n"
    assert host(text, {}, paths=False) == []


def test_no_path_checks_for_skypilot() -> None:
    assert host("skypilot:\n  cloud: aws\n  job_dir: /nope/jobs\n", {}) == []


# ------------------------------------------------------------------ unset variables
def test_unset_references_warn_where_they_will_be_resolved() -> None:
    text = """\
        slurm:
          hf_token: ${HF_TOKEN}
          env_vars:
            A: ${UNSET_VAR}
            B: ${WITH_DEFAULT,fallback}
            C: ${SLURM_JOB_ID}
            D: ${MASTER_ADDR}:${MASTER_PORT}
            E: ${HOME}
    """
    diags = host(text, {"HOME": "/root"}, paths=False)
    assert brief(diags) == [
        "4:8 warning[env-unset] slurm.env_vars.A",
        "2:13 warning[env-unset] slurm.hf_token",
    ]
    assert diags[0].message == "${UNSET_VAR} is not set here"
    assert diags[0].hint == "export UNSET_VAR before the job starts"


def test_skypilot_resolves_at_submit_time() -> None:
    text = """\
        skypilot:
          cloud: aws
          setup: echo ${NOT_CHECKED}
          env_vars:
            A: ${UNSET_VAR}
            B: ${SKYPILOT_NODE_RANK}
    """
    diags = host(text, {})
    assert brief(diags) == ["5:8 warning[env-unset] skypilot.env_vars.A"]
    assert diags[0].hint == "export UNSET_VAR before you submit"


def test_set_variables_do_not_warn() -> None:
    assert host("slurm:\n  env_vars:\n    A: ${X}\n", {"X": ""}) == []


def test_env_checks_can_be_skipped() -> None:
    assert host("slurm:\n  env_vars:\n    A: ${X}\n", {}, env=False) == []


def test_nothing_to_check_without_a_launcher() -> None:
    assert host("model:\n  path: ${NOPE}\n", {}) == []


def test_the_process_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOMODEL_TEST_SET", "1")
    monkeypatch.delenv("AUTOMODEL_TEST_UNSET", raising=False)
    text = "slurm:\n  env_vars:\n    A: ${AUTOMODEL_TEST_SET}\n    B: ${AUTOMODEL_TEST_UNSET}\n"
    loaded = load_text(text + RECIPE).loaded
    assert loaded is not None
    report = validate_loaded(loaded, Settings(check_paths=False, check_env=True))
    assert brief(report.diagnostics) == ["4:8 warning[env-unset] slurm.env_vars.B"]


# ------------------------------------------------------------------ next to other errors
def test_host_checks_run_next_to_other_errors(tmp_path: Path) -> None:
    # every problem in one run: a bad time does not hide a missing mount source
    text = f"""\
        slurm:
          time: "4h"
          nodes: 0
          extra_mounts:
            - {tmp_path}/nope:/data
          env_vars:
            A: ${{AUTOMODEL_TEST_UNSET}}
    """
    loaded = load_text(textwrap.dedent(text) + RECIPE, "c.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, Settings())
    assert brief(sorted(report.diagnostics, key=sort_key)) == [
        "2:9 error[invalid-time] slurm.time",
        "3:10 error[out-of-range] slurm.nodes",
        "5:7 error[path-missing] slurm.extra_mounts[0].source",
        "7:8 warning[env-unset] slurm.env_vars.A",
    ]
    assert report.document is None  # a file with errors is never rendered


def test_host_checks_skip_fields_that_failed(tmp_path: Path) -> None:
    text = f"""\
        slurm:
          extra_mounts:
            - {tmp_path}/nope:/data
            - "not a mount"
    """
    loaded = load_text(textwrap.dedent(text) + RECIPE, "c.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, Settings(check_env=False))
    assert {d.code for d in report.diagnostics} == {"invalid-mount"}


def test_a_missing_path_never_shows_a_secret_variable(tmp_path: Path) -> None:
    text = "slurm:\n  extra_mounts:\n    - ${ROOT}/${DB_PASSWORD}:/data\n"
    diags = host(text, {"ROOT": str(tmp_path), "DB_PASSWORD": "hunter22"}, env=False)
    assert [d.message for d in diags] == [
        f"{tmp_path}/${{DB_PASSWORD}} does not exist on this host"
    ]
