"""automodel_launch/config/recipe.py: the recipe keys launching reads, and the spot rules.

Both spellings are covered: the seed's ``step_scheduler.checkpoint_interval`` and
``restore_from.path``, and AutoModel's ``step_scheduler.ckpt_every_steps`` and
``checkpoint.restore_from``.
"""

from __future__ import annotations

import textwrap

import pytest

from automodel_launch.config.recipe import (
    Checkpoint,
    FaultTolerance,
    StepScheduler,
    checkpointing_enabled,
)
from automodel_launch.diagnostics import Diagnostic
from tests.conftest import Validate, brief

SPOT = "skypilot:\n  cloud: aws\n  use_spot: true\n"
MOUNTED = "  setup: pip install nemo-automodel\n  file_mounts:\n    /ckpt: {source: s3://b/ckpt}\n"
"""AutoModel installed, and /ckpt a bucket on every node: only the spot rules speak."""
SPOT_JOB = SPOT + MOUNTED


@pytest.fixture
def validate(validate: Validate) -> Validate:
    """The spot rules on both spellings. AutoModel's StepScheduler never took the seed's
    ``checkpoint_interval``: that error (tests/rules/test_recipe_calls.py and
    examples/invalid/skypilot_spot_seed_names.yaml) is left out here."""

    def run(text: str, **settings: object) -> list[Diagnostic]:
        return [d for d in validate(text, **settings) if not _seed_key_refused(d)]

    return run


def _seed_key_refused(diagnostic: Diagnostic) -> bool:
    return (diagnostic.code, diagnostic.path) == (
        "unknown-argument",
        "step_scheduler.checkpoint_interval",
    )


AUTOMODEL_NAMES = """\
step_scheduler:
  ckpt_every_steps: {interval}
checkpoint:
  checkpoint_dir: {directory}
  restore_from: null
"""
SEED_NAMES = """\
step_scheduler:
  checkpoint_interval: {interval}
restore_from:
  path: /ckpt/latest
checkpoint:
  checkpoint_dir: {directory}
"""
SPELLINGS = pytest.mark.parametrize(
    ("recipe", "key"),
    [(AUTOMODEL_NAMES, "ckpt_every_steps"), (SEED_NAMES, "checkpoint_interval")],
    ids=["automodel", "seed"],
)


# ------------------------------------------------------------------ a recoverable spot job
@SPELLINGS
def test_a_spot_job_that_survives_preemption(validate: Validate, recipe: str, key: str) -> None:
    assert validate(recipe.format(interval=100, directory="/ckpt") + SPOT_JOB) == []


@pytest.mark.parametrize("directory", ["/ckpt", "/ckpt/run1/", "${CKPT_DIR}", "msc://b/ckpt"])
def test_durable_checkpoint_dirs(validate: Validate, directory: str) -> None:
    assert validate(AUTOMODEL_NAMES.format(interval=100, directory=directory) + SPOT_JOB) == []


@pytest.mark.parametrize(
    ("directory", "where"),
    [
        ("/lustre/ckpt", "on each node's own disk"),
        ("/ckptx", "on each node's own disk"),
        (
            "s3://bucket/ckpt",
            "a path AutoModel 0.7.0 writes as a directory on each node's own disk",
        ),
        ("gs://b/c", "a path AutoModel 0.7.0 writes as a directory on each node's own disk"),
        ("az://c/d", "a path AutoModel 0.7.0 writes as a directory on each node's own disk"),
    ],
)
def test_checkpoint_dirs_on_the_nodes_disk(validate: Validate, directory: str, where: str) -> None:
    """A path under no bucket mount is the node's disk; AutoModel has no s3/gs/az writer:
    such a URL is a directory (``s3:/bucket/ckpt``) under the working directory."""
    diags = validate(AUTOMODEL_NAMES.format(interval=100, directory=directory) + SPOT_JOB)
    assert brief(diags) == ["4:19 warning[spot-relative-checkpoint-dir] checkpoint.checkpoint_dir"]
    assert diags[0].message == (
        f"checkpoints and the consolidated model go to '{directory}', {where}, which a "
        "preemption discards (and the managed job's cleanup deletes)"
    )


def test_nothing_is_required_without_spot(validate: Validate) -> None:
    assert validate("skypilot:\n  cloud: aws\n  use_spot: false\n") == []
    assert validate("skypilot:\n  cloud: aws\n") == []


# ------------------------------------------------------------------ missing interval
def test_a_bare_spot_job(validate: Validate) -> None:
    diags = validate(SPOT)
    assert brief(diags) == [
        "3:13 error[spot-no-checkpoint-interval] skypilot.use_spot",
        "3:13 warning[spot-relative-checkpoint-dir] skypilot.use_spot",
    ]
    assert diags[0].message == (
        "a spot instance can be preempted at any time, but no checkpoint interval is set"
    )
    assert diags[0].hint == "add step_scheduler.ckpt_every_steps (e.g. 100)"
    assert diags[1].message == (
        "checkpoints and the consolidated model go to 'checkpoints/', on each node's own disk, "
        "which a preemption discards (and the managed job's cleanup deletes)"
    )
    assert diags[1].hint == (
        "mount a bucket on every node, skypilot.file_mounts: {/checkpoints: {source: "
        "s3://BUCKET/run1, mode: MOUNT}}, and set checkpoint.checkpoint_dir: /checkpoints"
    )


def test_missing_interval_with_everything_else_set(validate: Validate) -> None:
    text = """\
        step_scheduler:
          global_batch_size: 64
        checkpoint:
          checkpoint_dir: /ckpt
          restore_from: null
        skypilot:
          cloud: gcp
          use_spot: true
    """
    assert brief(validate(textwrap.dedent(text) + MOUNTED)) == [
        "8:13 error[spot-no-checkpoint-interval] skypilot.use_spot"
    ]


def test_a_null_interval_is_missing(validate: Validate) -> None:
    text = AUTOMODEL_NAMES.format(interval="null", directory="/ckpt") + SPOT_JOB
    assert brief(validate(text)) == ["8:13 error[spot-no-checkpoint-interval] skypilot.use_spot"]


@SPELLINGS
def test_the_interval_must_be_positive(validate: Validate, recipe: str, key: str) -> None:
    diags = validate(recipe.format(interval=0, directory="/ckpt") + SPOT_JOB)
    assert brief(diags)[0] == f"2:{len(key) + 5} error[out-of-range] step_scheduler.{key}"


# ------------------------------------------------------------------ long interval
@SPELLINGS
def test_a_long_interval_warns(validate: Validate, recipe: str, key: str) -> None:
    diags = validate(recipe.format(interval=1000, directory="/ckpt") + SPOT_JOB)
    assert brief(diags) == [
        f"2:{len(key) + 5} warning[spot-long-checkpoint-interval] step_scheduler.{key}"
    ]
    assert diags[0].message == (
        f"{key}: 1000 on a spot instance can lose up to 1000 steps per preemption"
    )
    assert diags[0].hint == (
        "use a shorter interval (at most 500, AUTOMODEL_LAUNCH_SPOT_CHECKPOINT_INTERVAL_WARN "
        "changes the limit)"
    )


@SPELLINGS
def test_the_threshold_is_inclusive(validate: Validate, recipe: str, key: str) -> None:
    assert validate(recipe.format(interval=500, directory="/ckpt") + SPOT_JOB) == []
    assert len(validate(recipe.format(interval=501, directory="/ckpt") + SPOT_JOB)) == 1


@SPELLINGS
def test_the_threshold_is_configurable(validate: Validate, recipe: str, key: str) -> None:
    text = recipe.format(interval=100, directory="/ckpt") + SPOT_JOB
    assert validate(text) == []
    diags = validate(text, spot_checkpoint_interval_warn=50)
    assert brief(diags) == [
        f"2:{len(key) + 5} warning[spot-long-checkpoint-interval] step_scheduler.{key}"
    ]
    assert "at most 50," in (diags[0].hint or "")
    long = recipe.format(interval=5000, directory="/ckpt") + SPOT_JOB
    assert validate(long, spot_checkpoint_interval_warn=10000) == []


def test_automodels_name_wins_when_both_are_set(validate: Validate) -> None:
    text = """\
        step_scheduler:
          ckpt_every_steps: 1000
          checkpoint_interval: 50
        checkpoint:
          checkpoint_dir: /ckpt
          restore_from: null
    """
    assert brief(validate(textwrap.dedent(text) + SPOT_JOB)) == [
        "2:21 warning[spot-long-checkpoint-interval] step_scheduler.ckpt_every_steps"
    ]
    assert StepScheduler(ckpt_every_steps=1000, checkpoint_interval=50).interval == (
        "ckpt_every_steps",
        1000,
    )
    assert StepScheduler(checkpoint_interval=50).interval == ("checkpoint_interval", 50)
    assert StepScheduler().interval is None


# ------------------------------------------------------------------ checkpointing off
def test_checkpointing_disabled_on_spot(validate: Validate) -> None:
    text = """\
        step_scheduler:
          ckpt_every_steps: 100
        checkpoint:
          enabled: false
          checkpoint_dir: /ckpt
          restore_from: null
    """
    diags = validate(textwrap.dedent(text) + SPOT_JOB)
    assert brief(diags) == ["4:12 error[spot-checkpoint-disabled] checkpoint.enabled"]
    assert diags[0].message == (
        "checkpointing is off on a spot instance: a preemption loses the whole run"
    )
    assert diags[0].hint == "set checkpoint.enabled: true"


def test_checkpointing_enabled() -> None:
    assert checkpointing_enabled(None) is True
    assert checkpointing_enabled(Checkpoint()) is True
    assert checkpointing_enabled(Checkpoint(enabled=True)) is True
    assert checkpointing_enabled(Checkpoint(enabled=False)) is False


# ------------------------------------------------------------------ restore
def test_no_restore_from_resumes_from_the_latest_checkpoint(validate: Validate) -> None:
    """AutoModel resumes from the latest checkpoint in checkpoint_dir without restore_from,
    exactly as with restore_from: null: nothing to warn about."""
    text = "step_scheduler:\n  ckpt_every_steps: 100\ncheckpoint:\n  checkpoint_dir: /ckpt\n"
    assert validate(text + SPOT_JOB) == []


@pytest.mark.parametrize(
    "restore",
    [
        "checkpoint:\n  checkpoint_dir: /ckpt\n  restore_from: null\n",
        "checkpoint:\n  checkpoint_dir: /ckpt\n  restore_from: LATEST\n",
        "checkpoint:\n  checkpoint_dir: /ckpt\n  restore_from: /ckpt/step_100\n",
        "checkpoint:\n  checkpoint_dir: /ckpt\nrestore_from:\n  path: /ckpt/step_100\n",
    ],
)
def test_each_restore_spelling_counts(validate: Validate, restore: str) -> None:
    assert validate("step_scheduler:\n  ckpt_every_steps: 100\n" + restore + SPOT_JOB) == []


@pytest.mark.parametrize("path", ['""', "null"])
def test_an_empty_seed_restore_path_is_the_latest_checkpoint(validate: Validate, path: str) -> None:
    text = (
        "step_scheduler:\n  ckpt_every_steps: 100\ncheckpoint:\n  checkpoint_dir: /ckpt\n"
        f"restore_from:\n  path: {path}\n"
    )
    assert validate(text + SPOT_JOB) == []


# ------------------------------------------------------------------ where checkpoints land
@pytest.mark.parametrize("directory", ["checkpoints/", "./ckpt", "ckpt", "~/ckpt"])
def test_a_relative_checkpoint_dir_warns(validate: Validate, directory: str) -> None:
    diags = validate(AUTOMODEL_NAMES.format(interval=100, directory=directory) + SPOT_JOB)
    assert brief(diags) == ["4:19 warning[spot-relative-checkpoint-dir] checkpoint.checkpoint_dir"]
    assert diags[0].message == (
        f"checkpoints and the consolidated model go to '{directory}', on each node's own disk, "
        "which a preemption discards (and the managed job's cleanup deletes)"
    )


def test_no_checkpoint_dir_means_the_default_relative_one(validate: Validate) -> None:
    text = "step_scheduler:\n  ckpt_every_steps: 100\ncheckpoint:\n  restore_from: null\n"
    assert brief(validate(text + SPOT_JOB)) == [
        "7:13 warning[spot-relative-checkpoint-dir] skypilot.use_spot"
    ]


def test_spot_rules_only_for_skypilot(validate: Validate) -> None:
    assert validate("checkpoint:\n  checkpoint_dir: rel\nslurm:\n  time: '04:00:00'\n") == []


def test_every_spot_rule_at_once(validate: Validate) -> None:
    text = """\
        step_scheduler:
          checkpoint_interval: 2000
        checkpoint:
          enabled: false
          checkpoint_dir: ckpt
        skypilot:
          cloud: aws
          use_spot: true
    """
    assert brief(validate(text)) == [
        "2:24 warning[spot-long-checkpoint-interval] step_scheduler.checkpoint_interval",
        "4:12 error[spot-checkpoint-disabled] checkpoint.enabled",
        "6:1 warning[no-automodel-on-nodes] skypilot",
    ]  # with checkpointing off nothing is written: where it would go is not the matter


# ------------------------------------------------------------------ recipe sections stay open
def test_recipe_sections_pass_through(validate: Validate) -> None:
    text = """\
        step_scheduler:
          global_batch_size: 64
          local_batch_size: 8
          max_steps: 100
          val_every_steps: 10
        checkpoint:
          model_save_format: safetensors
          save_consolidated: true
        restore_from:
          anything: goes
    """
    assert validate(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "step_scheduler:\n  ckpt_every_steps: ten\n",
            "2:21 error[wrong-type] step_scheduler.ckpt_every_steps",
        ),
        (
            "step_scheduler:\n  checkpoint_interval: 1.5\n",
            "2:24 error[wrong-type] step_scheduler.checkpoint_interval",
        ),
        ("checkpoint:\n  enabled: maybe\n", "2:12 error[wrong-type] checkpoint.enabled"),
        ("checkpoint:\n  checkpoint_dir: 5\n", "2:19 error[wrong-type] checkpoint.checkpoint_dir"),
        ("restore_from:\n  path: [a]\n", "2:9 error[wrong-type] restore_from.path"),
        ("step_scheduler: 5\n", "1:17 error[wrong-type] step_scheduler"),
    ],
)
def test_the_keys_launching_reads_are_typed(validate: Validate, text: str, expected: str) -> None:
    assert brief(validate(text)) == [expected]


def test_recipe_booleans_read_like_automodels_yaml_1_1_loader(validate: Validate) -> None:
    # Recipe sections are lax (not launcher sections): yes/off mean what PyYAML reads.
    assert validate("checkpoint:\n  enabled: yes\n") == []
    text = "step_scheduler:\n  ckpt_every_steps: 100\ncheckpoint:\n  enabled: off\n"
    text += "  checkpoint_dir: /c\n  restore_from: null\n"
    assert brief(validate(text + SPOT_JOB)) == [
        "4:12 error[spot-checkpoint-disabled] checkpoint.enabled"
    ]


# ------------------------------------------------------------------ fault tolerance model
def test_fault_tolerance_defaults() -> None:
    ft = FaultTolerance()
    assert (ft.enabled, ft.max_restarts, ft.requeue) == (True, 3, True)


def test_fault_tolerance_is_strict(validate: Validate) -> None:
    diags = validate("slurm: {}\nfault_tolerance:\n  max_restart: 3\n  max_restarts: -1\n")
    assert brief(diags) == [
        "4:17 error[out-of-range] fault_tolerance.max_restarts",
        "3:3 error[unknown-key] fault_tolerance.max_restart",
    ]
    assert diags[1].hint == "did you mean 'max_restarts'?"
