"""automodel_launch/config/document.py: which launcher, and the document as a whole."""

from __future__ import annotations

import textwrap

import pytest

from automodel_launch.config.document import (
    LaunchDocument,
    allowed_keys,
    job_config,
    unknown_key_hint,
)
from automodel_launch.loading import load_text
from automodel_launch.validation import validate_loaded
from tests.conftest import Validate, brief, offline_settings


def document(text: str) -> LaunchDocument | None:
    loaded = load_text(textwrap.dedent(text)).loaded
    assert loaded is not None
    return validate_loaded(loaded, offline_settings()).document


# ------------------------------------------------------------------ which launcher
@pytest.mark.parametrize(
    ("text", "launcher"),
    [
        ("slurm: {}\n", "slurm"),
        ("skypilot:\n  cloud: aws\n", "skypilot"),
        ("model:\n  name: x\n", "interactive"),
        ("slurm:\nmodel: {}\n", "interactive"),
    ],
)
def test_the_launcher(text: str, launcher: str) -> None:
    doc = document(text)
    assert doc is not None
    assert doc.launcher == launcher


def test_no_document_when_there_is_an_error() -> None:
    assert document("slurm:\n  nodes: 0\n") is None


def test_warnings_still_give_a_document() -> None:
    assert document("slurm:\n  nsys_enabled: true\n") is not None


def test_both_launchers(validate: Validate) -> None:
    text = """\
        slurm:
          nodes: 2
        skypilot:
          cloud: aws
    """
    diags = validate(text)
    assert brief(diags) == ["3:1 error[multiple-launchers] skypilot"]
    assert diags[0].message == "both slurm: and skypilot: are present; a recipe has one launcher"
    assert diags[0].hint == "keep one of them (or none, to run torchrun on this node)"


def test_both_launchers_still_validates_each(validate: Validate) -> None:
    text = """\
        skypilot:
          cloud: awz
        slurm:
          nodes: 0
    """
    assert brief(validate(text)) == [
        "1:1 error[multiple-launchers] skypilot",
        "4:10 error[out-of-range] slurm.nodes",
        "2:10 error[invalid-choice] skypilot.cloud",
    ]


def test_an_empty_launcher_key_is_no_launcher(validate: Validate) -> None:
    assert validate("slurm:\nskypilot:\n  cloud: aws\n") == []


# ------------------------------------------------------------------ launchers
@pytest.mark.parametrize("value", ["{}", "null", "3", "\n  namespace: default"])
def test_kubernetes_is_no_launcher_of_automodel(validate: Validate, value: str) -> None:
    diags = validate(f"model: {{}}\nkubernetes: {value}\n")
    assert brief(diags) == ["2:1 error[unsupported-launcher] kubernetes"]
    assert diags[0].message == "kubernetes: is not launched by automodel-launch"
    assert diags[0].hint == (
        "no AutoModel release launches Kubernetes (nor its k8s: form): use skypilot: with "
        "cloud: kubernetes"
    )


@pytest.mark.parametrize("key", ["k8s", "nemo_run"])
def test_automodel_launchers_are_valid_sections(validate: Validate, key: str) -> None:
    said = ["k8s-not-launched"] if key == "k8s" else []  # a warning: no release launches it
    assert [d.code for d in validate(f"model: {{}}\n{key}: {{}}\n")] == said
    assert validate(f"model: {{}}\n{key}:\n") == []


def test_two_launchers_of_any_kind_are_one_too_many(validate: Validate) -> None:
    diags = validate("k8s: {}\nkubernetes:\n  x: 1\nnemo_run: {}\n")
    assert brief(diags) == [
        "4:1 error[multiple-launchers] nemo_run",
        "2:1 error[unsupported-launcher] kubernetes",
        "1:1 warning[k8s-not-launched] k8s",
    ]
    assert diags[0].message == "both k8s: and nemo_run: are present; a recipe has one launcher"


# ------------------------------------------------------------------ fault_tolerance placement
def test_fault_tolerance_next_to_slurm(validate: Validate) -> None:
    assert validate("slurm: {}\nfault_tolerance:\n  enabled: true\n  max_restarts: 2\n") == []
    doc = document("slurm: {}\nfault_tolerance:\n  max_restarts: 2\n")
    assert doc is not None and doc.fault_tolerance is not None
    assert doc.fault_tolerance.max_restarts == 2


def test_fault_tolerance_next_to_skypilot(validate: Validate) -> None:
    diags = validate("skypilot:\n  cloud: aws\nfault_tolerance:\n  enabled: true\n")
    assert brief(diags) == ["3:1 error[fault-tolerance-needs-slurm] fault_tolerance"]
    assert diags[0].message == "fault_tolerance works only with Slurm, not next to skypilot:"
    assert diags[0].hint == "SkyPilot recovers with skypilot.job_recovery (managed jobs)"


@pytest.mark.parametrize("value", ["{}", "\n  enabled: true"])
def test_fault_tolerance_without_a_launcher(validate: Validate, value: str) -> None:
    diags = validate(f"model: {{}}\nfault_tolerance: {value}\n")
    assert brief(diags) == ["2:1 error[fault-tolerance-needs-slurm] fault_tolerance"]
    assert diags[0].message == "fault_tolerance works only with Slurm, not without a launcher"
    assert diags[0].hint == "add a slurm: section, or remove it"


def test_a_null_fault_tolerance_is_absent(validate: Validate) -> None:
    assert validate("model: {}\nfault_tolerance:\n") == []


# ------------------------------------------------------------------ recipe pass-through
def test_recipe_sections_are_never_checked_or_rewritten(validate: Validate) -> None:
    text = """\
        recipe:
          _target_: nemo_automodel.recipes.llm.train_ft.TrainFinetuneRecipeForNextTokenPrediction
        model:
          _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
          pretrained_model_name_or_path: meta-llama/Llama-3.2-1B
          whatever: [1, {a: b}]
        dataset: {split: train}
        optimizer:
          lr: 1.0e-5
        unknown_top_level: yes
        slurm:
          nodes: 1
    """
    assert validate(text) == []
    loaded = load_text(textwrap.dedent(text)).loaded
    assert loaded is not None
    config = job_config(loaded.data)
    assert "slurm" not in config
    assert config["model"]["whatever"] == [1, {"a": "b"}]
    assert config["unknown_top_level"] == "yes"


def test_job_config_drops_only_launcher_sections() -> None:
    data = {"slurm": {}, "skypilot": {}, "fault_tolerance": {}, "model": 1, "checkpoint": {}}
    assert job_config(data) == {"model": 1, "checkpoint": {}}


# ------------------------------------------------------------------ did-you-mean machinery
def test_allowed_keys() -> None:
    assert "ntasks_per_node" in allowed_keys(("slurm",))
    assert "cloud" in allowed_keys(("skypilot",))
    assert allowed_keys(("slurm", "extra_mounts", 0)) == ["source", "dest", "flags"]
    assert allowed_keys(("skypilot", "job_recovery")) == ["strategy", "max_restarts_on_errors"]
    assert allowed_keys(("fault_tolerance",)) == ["enabled", "max_restarts", "requeue"]
    assert allowed_keys(("nope",)) == []
    assert allowed_keys(("slurm", "time")) == []


@pytest.mark.parametrize(
    ("loc", "key", "hint"),
    [
        (("slurm",), "ntask_per_node", "did you mean 'ntasks_per_node'?"),
        (("slurm",), "use_spot", "'use_spot' is a skypilot: field; slurm: does not have it"),
        (("skypilot",), "partition", "'partition' is a slurm: field; skypilot: does not have it"),
        (("skypilot",), "num_node", "did you mean 'num_nodes'?"),
        (("slurm", "extra_mounts", 0), "src", "did you mean 'source'?"),
        (("slurm", "extra_mounts", 0), "mode", "valid keys: source, dest, flags"),
        (("fault_tolerance",), "requeu", "did you mean 'requeue'?"),
    ],
)
def test_unknown_key_hint(loc: tuple[str | int, ...], key: str, hint: str) -> None:
    assert unknown_key_hint(loc, key) == hint


def test_a_shared_key_is_not_a_cross_launcher_hint() -> None:
    # job_name exists in both sections: the typo hint wins.
    assert unknown_key_hint(("skypilot",), "job_nam") == "did you mean 'job_name'?"
