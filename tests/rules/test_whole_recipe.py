"""Mistakes only the whole recipe shows: paths a container job writes and keeps
nowhere, and placeholders copied from documentation."""

from __future__ import annotations

import pytest

from tests.conftest import Validate, brief

BOXED = """\
slurm:
  container_image: nvcr.io#nvidia/nemo:dev
  extra_mounts: [/lustre]
  job_dir: /scratch/jobs
recipe: TrainFinetuneRecipeForNextTokenPrediction
"""


def test_a_checkpoint_dir_under_no_mount_says_what_to_mount(validate: Validate) -> None:
    diags = validate("checkpoint:\n  checkpoint_dir: /ckpt/run1\n" + BOXED)
    assert brief(diags) == ["2:19 warning[path-not-mounted] checkpoint.checkpoint_dir"]
    assert diags[0].message == (
        "/ckpt/run1 is under no container mount: the job writes it into the container's own "
        "filesystem, which is lost when the job ends"
    )
    assert diags[0].hint == (
        "mount it: add /ckpt to slurm.extra_mounts (or write the path under a directory that "
        "is mounted)"
    )


@pytest.mark.parametrize(
    "recipe",
    [
        "checkpoint:\n  checkpoint_dir: /lustre/ckpt\n",  # under extra_mounts
        "checkpoint:\n  checkpoint_dir: /lustre\n",  # the mount itself
        "checkpoint:\n  checkpoint_dir: /scratch/jobs/ckpt\n",  # the job directory is mounted
        "checkpoint:\n  checkpoint_dir: ${CKPT_ROOT}/run\n",  # resolved at run time: unknown
        "checkpoint:\n  checkpoint_dir: checkpoints/\n",  # relative: the working directory
        "dataset:\n  cache_dir: s3://bucket/cache\n",  # not a path in the container
        "model:\n  pretrained_model_name_or_path: /models/llama\n",  # read, not written
    ],
)
def test_paths_kept_or_not_written_pass(validate: Validate, recipe: str) -> None:
    assert validate(recipe + BOXED) == []


def test_every_written_kind_of_path_is_checked(validate: Validate) -> None:
    text = """\
        model:
          cache_dir: /hub
        dataset:
          - index_mapping_dir: /idx
        logging:
          output_dir: /out
        slurm:
          container_image: nvcr.io#nvidia/nemo:dev
          env_vars:
            HF_DATASETS_CACHE: /ds_cache
            CUDA_HOME: /usr/local/cuda
        recipe: TrainFinetuneRecipeForNextTokenPrediction
    """
    assert brief(validate(text)) == [
        "2:14 warning[path-not-mounted] model.cache_dir",
        "4:24 warning[path-not-mounted] dataset[0].index_mapping_dir",
        "6:15 warning[path-not-mounted] logging.output_dir",
        "10:24 warning[path-not-mounted] slurm.env_vars.HF_DATASETS_CACHE",
    ]


def test_without_a_container_everything_is_on_the_host(validate: Validate) -> None:
    text = "checkpoint:\n  checkpoint_dir: /ckpt\nslurm:\n  container_image: null\n  hf_home: hf\n"
    assert validate(text) == []


def test_hf_home_under_home_is_mounted_on_every_node(validate: Validate) -> None:
    """Multi-node, container, ~/ cache: mounted at the same path, so it is kept."""
    text = "slurm:\n  nodes: 4\n  container_image: nvcr.io#nvidia/nemo:dev\n  hf_home: ~/hf\n"
    assert validate(text) == []


def test_a_relative_hf_home_in_a_container_is_lost(validate: Validate) -> None:
    diags = validate(
        "slurm:\n  nodes: 2\n  container_image: nvcr.io#nvidia/nemo:dev\n  hf_home: hf\n"
    )
    assert brief(diags) == ["4:12 warning[path-not-mounted] slurm.hf_home"]
    assert "each node downloads into a cache inside its container" in diags[0].message


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("your_account", "slurm.account"),
        ("my_partition", "slurm.partition"),
        ("/path/to/your/hf_home", "slurm.hf_home"),
        ("PATH_TO_YOUR_CKPT_DIR", "slurm.job_dir"),
        ("/lustre/<team>/jobs", "slurm.job_dir"),
        ("'{{ account }}'", "slurm.account"),
    ],
)
def test_placeholders_are_warnings_naming_the_field(
    validate: Validate, value: str, field: str
) -> None:
    key = field.split(".")[1]
    diags = [d for d in validate(f"slurm:\n  {key}: {value}\n") if d.code == "placeholder-value"]
    assert brief(diags) == [f"2:{len(key) + 5} warning[placeholder-value] {field}"]
    assert diags[0].hint == f"replace it with the real value for {field}"


@pytest.mark.parametrize(
    "entry",
    [
        "pad_token: '<pad>'",
        "bos_token: <s>",
        "eos_token: '<|endoftext|>'",
        "chat_template: '{% for m in messages %}{{ m.content }}{% endfor %}'",
        "name: my_model",
        "path: /data/paths/to/x",
        "project: yourself",
    ],
)
def test_recipe_text_that_is_no_placeholder(validate: Validate, entry: str) -> None:
    assert validate(f"model:\n  {entry}\n") == []


# ------------------------------------------------------------------ AutoModel's launchers
def test_a_k8s_resources_without_a_gpu_limit_leaves_ranks_without_gpus(
    validate: Validate,
) -> None:
    text = "k8s:\n  gpus_per_node: 4\n  resources:\n    limits:\n      memory: 64Gi\n"
    diags = validate(text)
    assert brief(diags) == [
        "1:1 warning[k8s-not-launched] k8s",
        "3:3 warning[ranks-without-gpus] k8s.resources",
    ]
    assert diags[1].hint == 'add limits: {nvidia.com/gpu: "4"}'


@pytest.mark.parametrize("limit", ['"8"', '"16"'])
def test_a_k8s_gpu_limit_of_at_least_the_ranks_passes(validate: Validate, limit: str) -> None:
    text = f"k8s:\n  gpus_per_node: 8\n  resources:\n    limits:\n      nvidia.com/gpu: {limit}\n"
    assert [d.code for d in validate(text)] == ["k8s-not-launched"]


@pytest.mark.parametrize(
    "fields",
    [
        "  executor: local\n  ntasks_per_node: 8\n  nodes: 1\n",
        "  executor: team_h100\n  nodes: 2\n  gpus_per_node: 4\n  job_dir: /j\n",
        "  executor: slurm\n  account: a\n  partition: b\n  exclusive: true\n",
        "  executor: k8s\n  container_image: nvcr.io/nvidia/nemo-automodel:latest\n",
    ],
)
def test_the_executors_fields_pass(validate: Validate, fields: str) -> None:
    assert validate("nemo_run:\n" + fields) == []
