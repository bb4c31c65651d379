"""automodel_launch/rules/skypilot_results.py: where a SkyPilot job's checkpoints go, and
whether its nodes have AutoModel."""

from __future__ import annotations

import pytest

from tests.conftest import Validate, brief

RECIPE = (
    "recipe:\n"
    "  _target_: nemo_automodel.recipes.llm.train_ft.TrainFinetuneRecipeForNextTokenPrediction\n"
)
INSTALLED = "  setup: pip install nemo-automodel\n"
BUCKET_HINT = (
    "mount a bucket on every node, skypilot.file_mounts: {/checkpoints: {source: "
    "s3://BUCKET/run1, mode: MOUNT}}, and set checkpoint.checkpoint_dir: /checkpoints"
)
KEEP = "; or keep the cluster (down: false) and copy them off before you take it down"


def job(checkpoint: str = "", sky: str = "") -> str:
    """A recipe with AutoModel installed on the nodes; ``checkpoint`` and ``sky`` are the
    checkpoint: section's and the skypilot: section's extra lines."""
    section = f"checkpoint:\n{checkpoint}" if checkpoint else ""
    return RECIPE + section + "skypilot:\n  cloud: aws\n" + INSTALLED + sky


def codes(diags: list) -> list[str]:  # type: ignore[type-arg]
    return [d.code for d in diags]


# ------------------------------------------------------------------ the cluster's fate
def test_the_default_task_deletes_the_default_checkpoint_dir(validate: Validate) -> None:
    diags = validate(job())
    assert brief(diags) == ["3:1 warning[checkpoint-on-vm-disk] skypilot"]
    assert diags[0].message == (
        "checkpoints and the consolidated model go to 'checkpoints/', on each node's own disk, "
        "which is deleted when the cluster is torn down after 10 idle minutes (down: true)"
    )
    assert diags[0].hint == BUCKET_HINT + KEEP


def test_torn_down_at_the_end_of_the_job(validate: Validate) -> None:
    diags = validate(job("  checkpoint_dir: /ckpt\n", "  autostop: null\n"))
    assert brief(diags) == ["4:19 warning[checkpoint-on-vm-disk] checkpoint.checkpoint_dir"]
    assert diags[0].message == (
        "checkpoints and the consolidated model go to '/ckpt', on each node's own disk, which "
        "is deleted when the cluster is torn down at the end of the job (down: true)"
    )


@pytest.mark.parametrize("autostop", ["null", "30"])
def test_a_kept_single_node_cluster_keeps_its_disk(validate: Validate, autostop: str) -> None:
    assert validate(job(sky=f"  down: false\n  autostop: {autostop}\n")) == []


def test_a_kept_cluster_of_several_nodes_splits_the_shards(validate: Validate) -> None:
    diags = validate(job(sky="  down: false\n  num_nodes: 2\n"))
    assert brief(diags) == ["3:1 warning[checkpoint-on-vm-disk] skypilot"]
    assert diags[0].message == (
        "checkpoints and the consolidated model go to 'checkpoints/', on each node's own disk, "
        "each of the 2 nodes keeps only its own ranks' shards: no disk holds a whole checkpoint "
        "to resume from"
    )
    assert diags[0].hint == BUCKET_HINT  # keeping the cluster does not help


def test_torn_down_and_split(validate: Validate) -> None:
    diags = validate(job(sky="  num_nodes: 4\n"))
    assert diags[0].message.endswith(
        "which is deleted when the cluster is torn down after 10 idle minutes (down: true) and "
        "each of the 4 nodes keeps only its own ranks' shards"
    )
    assert diags[0].hint == BUCKET_HINT


# ------------------------------------------------------------------ mounts
@pytest.mark.parametrize(
    ("directory", "mounts"),
    [
        ("/ckpt/run1", "    /ckpt: {source: s3://b/ckpt}\n"),
        ("/ckpt", "    /ckpt/: {source: s3://b/ckpt, mode: MOUNT}\n"),
        ("/ckpt/run1", "    /ckpt: {source: gs://b/ckpt, mode: mount_cached}\n"),
        ("/ckpt", "    /ckpt: {name: my-ckpt, store: s3}\n"),
        ("/ckpt", "    /ckpt: {source: s3://b/ckpt, persistent: false}\n"),
        ("ckpt/run1", "    ckpt: {source: s3://b/ckpt}\n"),
        ("./ckpt", "    ~/sky_workdir/ckpt: {source: s3://b/ckpt}\n"),
        ("~/ckpt/x", "    ~/ckpt: {source: s3://b/ckpt}\n"),
        ("/ckpt/b/run", "    /ckpt: s3://copied\n    /ckpt/b: {source: s3://b/ckpt}\n"),
    ],
)
def test_a_checkpoint_dir_in_a_mounted_bucket_is_kept(
    validate: Validate, directory: str, mounts: str
) -> None:
    text = job(f"  checkpoint_dir: {directory}\n", "  file_mounts:\n" + mounts)
    assert validate(text) == []


@pytest.mark.parametrize(
    ("mounts", "where"),
    [
        ("    /ckpt: s3://b/ckpt\n", "under file_mounts /ckpt, copied onto each node's own disk "
         "(writes stay there)"),
        ("    /ckpt: {source: s3://b/ckpt, mode: COPY}\n", "under file_mounts /ckpt, copied onto "
         "each node's own disk (writes stay there)"),
        ("    /ckpt: {name: scratch, persistent: false}\n", "in a bucket mounted at /ckpt that "
         "goes with the cluster (persistent: false)"),
        ("    /ckpt/b: {source: s3://b}\n    /ckpt: ./local\n", "under file_mounts /ckpt, "
         "copied onto each node's own disk (writes stay there)"),
        ("    /ckpt2: {source: s3://b}\n", "on each node's own disk"),
    ],
)  # fmt: skip
def test_a_mount_that_does_not_keep_writes(validate: Validate, mounts: str, where: str) -> None:
    text = job("  checkpoint_dir: /ckpt/run1\n", "  file_mounts:\n" + mounts)
    diags = validate(text)
    assert codes(diags) == ["checkpoint-on-vm-disk"]
    assert diags[0].message == (
        f"checkpoints and the consolidated model go to '/ckpt/run1', {where}, which is deleted "
        "when the cluster is torn down after 10 idle minutes (down: true)"
    )


def test_a_bucket_url_is_a_local_directory_to_automodel(validate: Validate) -> None:
    diags = validate(job("  checkpoint_dir: s3://bucket/ckpt\n"))
    assert diags[0].message.startswith(
        "checkpoints and the consolidated model go to 's3://bucket/ckpt', a path AutoModel "
        "0.7.0 writes as a directory on each node's own disk, "
    )
    assert diags[0].hint == (
        "mount a bucket on every node, skypilot.file_mounts: {/checkpoints: {source: "
        "s3://bucket/ckpt, mode: MOUNT}}, and set checkpoint.checkpoint_dir: /checkpoints" + KEEP
    )


def test_msc_paths_reach_object_storage_from_0_6(validate: Validate) -> None:
    text = job("  checkpoint_dir: msc://profile/ckpt\n  save_consolidated: false\n")
    assert validate(text) == []
    assert validate(text, automodel_version="main") == []
    assert validate(text, automodel_version="0.6.0") == []
    diags = validate(text, automodel_version="0.5.0")
    assert diags[0].message.startswith(
        "checkpoints go to 'msc://profile/ckpt', a path AutoModel 0.5.0 writes as a directory"
    )


def test_a_reference_is_not_guessed_at(validate: Validate) -> None:
    assert validate(job("  checkpoint_dir: ${CKPT_DIR}/run\n")) == []


@pytest.mark.parametrize(
    "setting", ["  save_consolidated: false\n", "  model_save_format: torch_save\n"]
)
def test_without_a_consolidated_model_only_checkpoints_are_named(
    validate: Validate, setting: str
) -> None:
    diags = validate(job("  checkpoint_dir: ckpt\n" + setting))
    assert diags[0].message.startswith("checkpoints go to 'ckpt', on each node's own disk")


def test_nothing_is_written_with_checkpointing_off(validate: Validate) -> None:
    assert validate(job("  enabled: false\n")) == []


# ------------------------------------------------------------------ one finding, where it belongs
def test_a_spot_job_keeps_its_code_and_gets_one_finding(validate: Validate) -> None:
    text = "step_scheduler:\n  ckpt_every_steps: 100\n" + job(sky="  use_spot: true\n")
    diags = validate(text)
    assert brief(diags) == ["8:13 warning[spot-relative-checkpoint-dir] skypilot.use_spot"]
    assert diags[0].message == (
        "checkpoints and the consolidated model go to 'checkpoints/', on each node's own disk, "
        "which a preemption discards (and the managed job's cleanup deletes)"
    )
    assert diags[0].hint == BUCKET_HINT  # a spot cluster cannot be kept


def test_a_launcher_snippet_is_judged_by_the_spot_rules_alone(validate: Validate) -> None:
    assert validate("skypilot:\n  cloud: aws\n") == []
    spot = validate("skypilot:\n  cloud: aws\n  use_spot: true\n")
    assert codes(spot) == ["spot-no-checkpoint-interval", "spot-relative-checkpoint-dir"]


@pytest.mark.parametrize(
    ("sky", "code"),
    [
        ("  file_mounts: {/ckpt: {mode: MOUNT}}\n", "invalid-file-mount"),
        ("  num_nodes: 0\n", "out-of-range"),
        ("  autostop: -1\n", "out-of-range"),
        ("  down: maybe\n", "wrong-type"),
    ],
)
def test_a_failed_field_is_not_judged_on_its_default(
    validate: Validate, sky: str, code: str
) -> None:
    assert codes(validate(job(sky=sky))) == [code]


def test_a_failed_checkpoint_dir_is_not_judged(validate: Validate) -> None:
    assert codes(validate(job("  checkpoint_dir: [a]\n"))) == ["wrong-type"]


# ------------------------------------------------------------------ AutoModel on the nodes
INSTALL_HINT = (
    'add setup: "pip install nemo-automodel==0.7.0" (AutoModel 0.7.0, the release this file '
    "is checked against), or image_id: docker:nvcr.io/nvidia/nemo-automodel:TAG, an image "
    "with AutoModel"
)


def test_a_task_with_nothing_that_installs_automodel(validate: Validate) -> None:
    text = RECIPE + "skypilot:\n  cloud: aws\n  down: false\n"
    diags = validate(text)
    assert brief(diags) == ["3:1 warning[no-automodel-on-nodes] skypilot"]
    assert diags[0].message == (
        "the task has neither setup nor image_id: the nodes start from SkyPilot's default "
        "image, which has no AutoModel, and the job cannot import nemo_automodel"
    )
    assert diags[0].hint == INSTALL_HINT


def test_the_install_names_the_release_checked_against(validate: Validate) -> None:
    text = RECIPE + "skypilot:\n  cloud: aws\n  down: false\n"
    assert 'setup: "pip install nemo-automodel==0.5.0" (AutoModel 0.5.0' in str(
        validate(text, automodel_version="0.5.0")[0].hint
    )
    assert 'setup: "pip install git+https://github.com/NVIDIA-NeMo/Automodel.git" ' in str(
        validate(text, automodel_version="main")[0].hint
    )


@pytest.mark.parametrize(
    "line", ["  setup: pip install nemo-automodel\n", "  image_id: docker:my/own-image:1\n"]
)
def test_setup_or_an_image_is_taken_at_its_word(validate: Validate, line: str) -> None:
    assert validate(RECIPE + "skypilot:\n  cloud: aws\n  down: false\n" + line) == []


def test_a_launcher_snippet_is_not_told_to_install(validate: Validate) -> None:
    assert validate("skypilot:\n  cloud: aws\n  down: false\n") == []
