"""``nemo_run:`` as each AutoModel release reads it: AutoModel's seven keys, the rest set
on the NeMo-Run executor; a key no executor has is ignored (0.4.0-0.6.0, main) or refused
(0.7.0); releases before 0.4.0 never read the section."""

from __future__ import annotations

import pytest

from automodel_launch.automodel.versions import KNOWN
from automodel_launch.config.nemo_run import (
    OWN_KEYS,
    REPLACED,
    executor_fields,
    launches_nemo_run,
)
from automodel_launch.diagnostics import Diagnostic
from automodel_launch.loading import load_text
from automodel_launch.rules import Context
from automodel_launch.rules.nemo_run import nemo_run_rules
from tests.conftest import Validate, brief, offline_settings

BEFORE = ("0.1.0", "0.1.2", "0.2.0", "0.3.0")
SILENT = ("0.4.0", "0.5.0", "0.6.0", "main")
"""Releases that set an unknown key on the executor, where nothing reads it."""


def nemo_run(validate: Validate, body: str, version: str = "0.7.0") -> list[Diagnostic]:
    found = validate(
        "recipe: TrainFinetuneRecipeForNextTokenPrediction\nnemo_run:\n" + body,
        automodel_version=version,
    )
    return [d for d in found if d.code.startswith("nemo-run-")]


def rule_only(section: dict[str, object], version: str) -> list[Diagnostic]:
    """The rule alone on raw data, no section model (values need not be valid)."""
    loaded = load_text(
        "recipe: TrainFinetuneRecipeForNextTokenPrediction\nnemo_run: {}\n", "config.yaml"
    ).loaded
    assert loaded is not None
    ctx = Context({"nemo_run": section}, loaded.collector(), offline_settings(
        automodel_version=version))  # fmt: skip
    nemo_run_rules(ctx)
    return ctx.sink.items


def test_the_release_split() -> None:
    assert [v for v in KNOWN if not launches_nemo_run(v)] == list(BEFORE)
    assert OWN_KEYS == (
        "executor", "job_name", "detach", "tail_logs", "executors_file", "job_dir", "overrides",
    )  # fmt: skip


@pytest.mark.parametrize("version", [*SILENT, "0.7.0"])
@pytest.mark.parametrize("executor", ["local", "team_h100"])
def test_ntasks_per_node_is_an_executor_field_in_every_release(
    validate: Validate, version: str, executor: str
) -> None:
    body = f"  executor: {executor}\n  ntasks_per_node: 8\n  nodes: 2\n  env_vars: {{A: b}}\n"
    assert (
        validate(
            "recipe: TrainFinetuneRecipeForNextTokenPrediction\nnemo_run:\n" + body,
            automodel_version=version,
        )
        == []
    )


@pytest.mark.parametrize("version", SILENT)
def test_before_070_an_unknown_key_is_ignored_a_warning(validate: Validate, version: str) -> None:
    (found,) = nemo_run(validate, "  devices: 8\n", version)
    assert brief([found]) == ["3:3 warning[nemo-run-unknown-field] nemo_run.devices"]
    assert found.message == (
        "'devices' is no field of NeMo-Run's LocalExecutor (executor: local): AutoModel "
        f"{version} sets it on the executor, where nothing reads it: ignored"
    )
    assert found.hint is not None and found.hint.startswith(
        "GPUs per node are the executor's ntasks_per_node (LocalExecutor; "
    )
    assert found.hint.endswith("('devices' was never in a released AutoModel)")


def test_070_refuses_what_a_local_executor_lacks(validate: Validate) -> None:
    (found,) = nemo_run(validate, "  devices: 8\n")
    assert brief([found]) == ["3:3 error[nemo-run-unknown-field] nemo_run.devices"]
    assert found.message == (
        "'devices' is no field of NeMo-Run's LocalExecutor (executor: local): AutoModel 0.7.0 "
        "refuses it when it builds the executor (ValueError)"
    )


def test_070_refuses_what_a_named_executor_lacks_too(validate: Validate) -> None:
    (found,) = nemo_run(validate, "  executor: team_h100\n  devices: 8\n")
    assert brief([found]) == ["4:3 error[nemo-run-unknown-field] nemo_run.devices"]
    assert found.message == (
        "'devices' is no field of NeMo-Run's SlurmExecutor or LocalExecutor: AutoModel 0.7.0 "
        "refuses it when it builds the executor (ValueError) unless 'team_h100' in "
        "EXECUTOR_MAP is another kind that has it"
    )


def test_a_named_executor_in_a_silent_release(validate: Validate) -> None:
    (found,) = nemo_run(validate, "  executor: team\n  mounts: [/a:/a]\n", "0.5.0")
    assert found.severity.value == "warning"
    assert found.message == (
        "'mounts' is no field of NeMo-Run's SlurmExecutor or LocalExecutor: AutoModel 0.5.0 "
        "sets it on the executor, where nothing reads it: ignored, unless 'team' in "
        "EXECUTOR_MAP is another kind of executor that has it"
    )
    assert found.hint == (
        "SlurmExecutor's field is container_mounts (added to the executor's own) ('mounts' "
        "was never in a released AutoModel)"
    )


def test_a_slurm_field_on_the_local_executor(validate: Validate) -> None:
    (found,) = nemo_run(validate, "  partition: batch\n", "0.6.0")
    assert found.hint == (
        "partition is a SlurmExecutor field: name a Slurm executor of EXECUTOR_MAP in "
        "executor:, or remove partition"
    )
    assert nemo_run(validate, "  executor: cluster\n  partition: batch\n", "0.6.0") == []


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("gpus_per_nodes", "did you mean 'gpus_per_node'?"),
        ("tail_log", "did you mean 'tail_logs'?"),
        ("num_nodes", "the executor's field is nodes ('num_nodes' was never in a released "
         "AutoModel)"),
        ("executor_kwargs", "write the executor's fields directly under nemo_run: (AutoModel "
         "sets each one on the executor) ('executor_kwargs' was never in a released AutoModel)"),
        ("colour", "remove colour, or write a field of the executor (nodes, ntasks_per_node, "
         "time, ...)"),
    ],
)  # fmt: skip
def test_the_fix_of_an_unknown_key(validate: Validate, key: str, hint: str) -> None:
    (found,) = nemo_run(validate, f"  executor: team\n  {key}: 1\n")
    assert (found.path, found.hint) == (f"nemo_run.{key}", hint)


def test_keys_under_overrides_reach_the_executor_too(validate: Validate) -> None:
    body = "  overrides:\n    ntasks_per_node: 4\n    devices: 4\n    job_dir: /x\n"
    (found,) = nemo_run(validate, body)
    assert brief([found]) == ["5:5 error[nemo-run-unknown-field] nemo_run.overrides.devices"]


@pytest.mark.parametrize("key", sorted(REPLACED))
def test_a_field_set_after_the_section_never_counts(validate: Validate, key: str) -> None:
    (found,) = nemo_run(validate, f"  executor: team\n  {key}: x\n")
    assert brief([found]) == [f"4:3 warning[nemo-run-field-replaced] nemo_run.{key}"]
    assert found.message == (
        f"{key} is set on the executor after nemo_run: is applied ({REPLACED[key]}): this "
        "value never counts"
    )
    assert found.hint == f"remove {key}"


@pytest.mark.parametrize("version", BEFORE)
def test_before_040_the_section_is_never_read(validate: Validate, version: str) -> None:
    (found,) = nemo_run(validate, "  devices: 8\n  ntasks_per_node: 8\n", version)
    assert brief([found]) == ["2:1 warning[nemo-run-not-in-release] nemo_run"]
    assert found.message == (
        f"AutoModel {version} has no NeMo-Run launcher: `automodel` never reads nemo_run: and "
        "runs the recipe as if the section were not there"
    )
    assert found.hint == (
        "nemo_run: is read by AutoModel 0.4.0 and later: set automodel_version to the release "
        "that runs the job, or launch with slurm: or skypilot: here"
    )


@pytest.mark.parametrize("cls", ["SlurmExecutor", "LocalExecutor"])
def test_every_field_of_the_executor_is_taken(cls: str) -> None:
    fields = executor_fields()[cls] - set(REPLACED) - set(OWN_KEYS)
    executor = "local" if cls == "LocalExecutor" else "team"
    assert rule_only({"executor": executor, **dict.fromkeys(fields)}, "0.7.0") == []
    assert {"ntasks_per_node", "nodes", "env_vars"} <= fields


def test_the_fields_come_from_nemo_run() -> None:
    fields = executor_fields()
    assert set(fields) == {"Executor", "LocalExecutor", "SlurmExecutor"}
    assert fields["Executor"] < fields["LocalExecutor"]
    assert fields["Executor"] < fields["SlurmExecutor"]
    assert {"account", "partition", "gpus_per_node", "container_mounts"} <= fields["SlurmExecutor"]
    assert not {"devices", "num_nodes", "mounts", "_launcher_setup"} & fields["SlurmExecutor"]
    assert "partition" not in fields["LocalExecutor"]


def test_a_section_that_is_no_mapping_is_left_to_the_section_model(validate: Validate) -> None:
    assert nemo_run(validate, "  - devices\n") == []
