"""automodel_launch/config/skypilot.py: the skypilot: section and its cross-field rules."""

from __future__ import annotations

from typing import Any

import pytest

from automodel_launch.config.skypilot import CLOUDS, SkyPilotConfig
from tests.conftest import Validate, brief

ACCEL_HINT = 'e.g. "H100:8" or "A100-80GB:4" (COUNT is a whole number >= 1)'


def sky(**fields: Any) -> SkyPilotConfig:
    return SkyPilotConfig.model_validate({"cloud": "aws", **fields})


def test_a_minimal_section(validate: Validate) -> None:
    assert validate("skypilot:\n  cloud: aws\n") == []
    cfg = sky()
    assert (cfg.num_nodes, cfg.use_spot, cfg.accelerators, cfg.job_recovery) == (
        1,
        False,
        None,
        None,
    )
    assert cfg.ranks_per_node == 1


def test_every_field(validate: Validate) -> None:
    text = """\
        skypilot:
          cloud: gcp
          accelerators: "A100-80GB:4"
          num_nodes: 2
          use_spot: false
          disk_size: 500
          region: us-central1
          zone: us-central1-a
          instance_type: a2-ultragpu-4g
          setup: pip install nemo-automodel
          env_vars:
            NCCL_DEBUG: INFO
          job_name: llm-finetune.v2
          hf_home: /mnt/hf
          hf_token: ${HF_TOKEN}
          wandb_key: ${WANDB_API_KEY}
          job_dir: /mnt/jobs
          gpus_per_node: 4
          job_recovery:
            strategy: FAILOVER
            max_restarts_on_errors: 2
    """
    assert validate(text) == []


# ------------------------------------------------------------------ cloud
def test_cloud_is_required(validate: Validate) -> None:
    diags = validate('skypilot:\n  accelerators: "H100:8"\n')
    assert brief(diags) == ["2:3 error[missing-field] skypilot.cloud"]
    assert diags[0].message == "skypilot needs 'cloud'"
    assert diags[0].hint == "add cloud: <value>"


@pytest.mark.parametrize("cloud", [*CLOUDS, "AWS", "Gcp", "AZURE", "Lambda", "KUBERNETES"])
def test_cloud_is_case_insensitive(validate: Validate, cloud: str) -> None:
    assert validate(f"skypilot:\n  cloud: {cloud}\n") == []
    assert SkyPilotConfig.model_validate({"cloud": cloud}).cloud == cloud.lower()


@pytest.mark.parametrize(
    ("cloud", "hint"),
    [
        ("awz", "did you mean 'aws'?"),
        ("gpc", "did you mean 'gcp'?"),
        ("Azur", "did you mean 'azure'?"),
        ("kubernets", "did you mean 'kubernetes'?"),
        ("lamda", "did you mean 'lambda'?"),
        ("oracle", "use one of aws, gcp, azure, lambda, kubernetes"),
    ],
)
def test_unknown_cloud_with_did_you_mean(validate: Validate, cloud: str, hint: str) -> None:
    diags = validate(f"skypilot:\n  cloud: {cloud}\n")
    assert brief(diags) == ["2:10 error[invalid-choice] skypilot.cloud"]
    assert diags[0].message == f"cloud '{cloud}' is not one of aws, gcp, azure, lambda, kubernetes"
    assert diags[0].hint == hint


@pytest.mark.parametrize("value", ["5", "null", "[aws]"])
def test_a_cloud_that_is_not_text(validate: Validate, value: str) -> None:
    diags = validate(f"skypilot:\n  cloud: {value}\n")
    assert brief(diags) == ["2:10 error[invalid-choice] skypilot.cloud"]
    assert diags[0].message == "must be one of 'aws', 'gcp', 'azure', 'lambda' or 'kubernetes'"


# ------------------------------------------------------------------ accelerators
@pytest.mark.parametrize(
    ("value", "normalized"),
    [
        ('"H100:8"', "H100:8"),
        ("H100:8", "H100:8"),
        ('"A100-80GB:4"', "A100-80GB:4"),
        ('"H100"', "H100:1"),
        ('"L4:1"', "L4:1"),
        ('"a100-80gb:4"', "a100-80gb:4"),
        ('"H100:08"', "H100:8"),
        ('"tpu-v5e:16"', "tpu-v5e:16"),
    ],
)
def test_valid_accelerators(validate: Validate, value: str, normalized: str) -> None:
    assert validate(f"skypilot:\n  cloud: gcp\n  accelerators: {value}\n") == []
    assert (
        SkyPilotConfig.model_validate(
            {"cloud": "gcp", "accelerators": value.strip('"')}
        ).accelerators
        == normalized
    )


@pytest.mark.parametrize(
    "value", ["H100:x", "H100:0", "H100:-1", "H100:", "H100:8:2", ":8", "H 100:8", "H100:1.5"]
)
def test_invalid_accelerators(validate: Validate, value: str) -> None:
    diags = validate(f'skypilot:\n  cloud: gcp\n  accelerators: "{value}"\n')
    assert brief(diags) == ["3:17 error[invalid-accelerators] skypilot.accelerators"]
    assert diags[0].message == f"accelerators '{value}' is not NAME:COUNT"
    assert diags[0].hint == ACCEL_HINT


@pytest.mark.parametrize(("value", "got"), [("8", "8"), ("{H100: 8}", "a mapping")])
def test_accelerators_must_be_text(validate: Validate, value: str, got: str) -> None:
    diags = validate(f"skypilot:\n  cloud: gcp\n  accelerators: {value}\n")
    assert brief(diags) == ["3:17 error[wrong-type] skypilot.accelerators"]
    assert diags[0].message == f"expected text, got {got}"


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("H10", "did you mean 'H100'?"),
        ("A1000", "did you mean 'A100'?"),
        ("FOO", "check `sky show-gpus`"),
    ],
)
def test_an_accelerator_skypilot_does_not_know(validate: Validate, name: str, hint: str) -> None:
    diags = validate(f'skypilot:\n  cloud: gcp\n  accelerators: "{name}:8"\n')
    assert brief(diags) == ["3:17 warning[unknown-accelerator] skypilot.accelerators"]
    assert diags[0].message == f"SkyPilot is unlikely to know the accelerator '{name}'"
    assert diags[0].hint == hint


def test_gpus_per_node_defaults_to_the_accelerator_count() -> None:
    assert sky(accelerators="H100:8").ranks_per_node == 8
    assert sky(accelerators="H100:8", gpus_per_node=4).ranks_per_node == 4


def test_more_gpus_than_accelerators(validate: Validate) -> None:
    text = 'skypilot:\n  cloud: aws\n  accelerators: "A100:8"\n  gpus_per_node: 16\n'
    diags = validate(text)
    assert brief(diags) == ["4:18 error[gpus-exceed-accelerators] skypilot.gpus_per_node"]
    assert diags[0].message == "gpus_per_node 16 is more than the 8 accelerators per node"
    assert diags[0].hint == "set gpus_per_node: 8 or request more accelerators"
    assert brief(validate("skypilot:\n  cloud: aws\n  gpus_per_node: 0\n")) == [
        "3:18 error[out-of-range] skypilot.gpus_per_node"
    ]


# ------------------------------------------------------------------ spot support per cloud
@pytest.mark.parametrize("cloud", ["kubernetes", "lambda", "Kubernetes"])
def test_clouds_without_spot_instances(validate: Validate, cloud: str) -> None:
    text = f"""\
        step_scheduler:
          ckpt_every_steps: 100
        checkpoint:
          checkpoint_dir: /ckpt
          restore_from: null
        skypilot:
          cloud: {cloud}
          use_spot: true
          setup: pip install nemo-automodel
          file_mounts:
            /ckpt: {{source: s3://bucket/ckpt}}
    """
    diags = validate(text)
    assert brief(diags) == ["8:13 error[spot-unsupported] skypilot.use_spot"]
    assert diags[0].message == f"{cloud.lower()} has no spot instances"
    assert diags[0].hint == "set use_spot: false or pick another cloud"


@pytest.mark.parametrize("cloud", ["kubernetes", "lambda"])
def test_no_spot_no_problem_on_those_clouds(validate: Validate, cloud: str) -> None:
    assert validate(f"skypilot:\n  cloud: {cloud}\n  use_spot: false\n") == []


def test_use_spot_is_a_real_boolean(validate: Validate) -> None:
    diags = validate('skypilot:\n  cloud: aws\n  use_spot: "true"\n')
    assert brief(diags) == ["3:13 error[wrong-type] skypilot.use_spot"]
    assert diags[0].message == "expected true or false, got 'true'"


# ------------------------------------------------------------------ numbers, names, regions
@pytest.mark.parametrize("field", ["num_nodes", "disk_size"])
def test_counts_at_least_one(validate: Validate, field: str) -> None:
    diags = validate(f"skypilot:\n  cloud: aws\n  {field}: 0\n")
    assert brief(diags) == [f"3:{len(field) + 5} error[out-of-range] skypilot.{field}"]
    assert diags[0].message == "must be at least 1"


@pytest.mark.parametrize("name", ["1job", "job-", "-job", "my job", "job_", "a" + "!" * 2])
def test_job_name_must_be_a_cluster_name(validate: Validate, name: str) -> None:
    diags = validate(f'skypilot:\n  cloud: aws\n  job_name: "{name}"\n')
    assert brief(diags) == ["3:13 error[invalid-cluster-name] skypilot.job_name"]
    assert diags[0].message == f"'{name}' is not a SkyPilot cluster name"
    assert diags[0].hint == "start with a letter; use letters, digits, '-', '_', '.'"


@pytest.mark.parametrize("name", ["a", "llm-finetune", "llm_finetune.v2", "Job1"])
def test_valid_cluster_names(validate: Validate, name: str) -> None:
    assert validate(f"skypilot:\n  cloud: aws\n  job_name: {name}\n") == []


@pytest.mark.parametrize(
    ("cloud", "region", "zone"),
    [
        ("aws", "us-east-1", "us-east-1a"),
        ("aws", "us-gov-west-1", None),
        ("gcp", "us-central1", "us-central1-a"),
        ("azure", "eastus", None),
        ("lambda", "anything-goes", None),
        ("kubernetes", "whatever", None),
    ],
)
def test_regions_that_look_right(
    validate: Validate, cloud: str, region: str, zone: str | None
) -> None:
    text = f"skypilot:\n  cloud: {cloud}\n  region: {region}\n"
    if zone:
        text += f"  zone: {zone}\n"
    assert validate(text) == []


def test_a_region_that_does_not_look_like_the_clouds(validate: Validate) -> None:
    diags = validate("skypilot:\n  cloud: aws\n  region: mars-1\n")
    assert brief(diags) == ["3:11 warning[unknown-region] skypilot.region"]
    assert diags[0].message == "'mars-1' does not look like a region of aws"
    assert diags[0].hint == "check `sky show-gpus --cloud aws` for region names"
    assert brief(validate("skypilot:\n  cloud: azure\n  region: East-US\n")) == [
        "3:11 warning[unknown-region] skypilot.region"
    ]


def test_a_zone_outside_its_region(validate: Validate) -> None:
    diags = validate("skypilot:\n  cloud: aws\n  region: us-east-1\n  zone: us-west-2a\n")
    assert brief(diags) == ["4:9 warning[unknown-region] skypilot.zone"]
    assert diags[0].message == "zone 'us-west-2a' is not in region 'us-east-1'"


# ------------------------------------------------------------------ job_recovery
def test_job_recovery(validate: Validate) -> None:
    text = """\
        skypilot:
          cloud: aws
          job_recovery:
            strategy: BOGUS
            max_restarts: 2
    """
    diags = validate(text)
    assert brief(diags) == [
        "4:15 error[invalid-choice] skypilot.job_recovery.strategy",
        "5:5 error[unknown-key] skypilot.job_recovery.max_restarts",
    ]
    assert diags[0].message == "must be one of 'EAGER_NEXT_REGION' or 'FAILOVER'"
    assert diags[1].hint == "did you mean 'max_restarts_on_errors'?"


# ------------------------------------------------------------------ unknown keys
@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("clouds", "did you mean 'cloud'?"),
        ("num_node", "did you mean 'num_nodes'?"),
        ("accelerator", "did you mean 'accelerators'?"),
        ("setups", "did you mean 'setup'?"),
        ("nodes", "'nodes' is a slurm: field; skypilot: does not have it"),
        ("ntasks_per_node", "'ntasks_per_node' is a slurm: field; skypilot: does not have it"),
        ("partition", "'partition' is a slurm: field; skypilot: does not have it"),
        ("container_image", "'container_image' is a slurm: field; skypilot: does not have it"),
    ],
)
def test_unknown_keys_with_hints(validate: Validate, key: str, hint: str) -> None:
    diags = validate(f"skypilot:\n  cloud: aws\n  {key}: 1\n")
    assert brief(diags) == [f"3:3 error[unknown-key] skypilot.{key}"]
    assert diags[0].message == f"unknown key '{key}' in skypilot"
    assert diags[0].hint == hint


@pytest.mark.parametrize("value", ["[]", '"aws"', "1"])
def test_the_section_must_be_a_mapping(validate: Validate, value: str) -> None:
    assert brief(validate(f"skypilot: {value}\n")) == ["1:11 error[wrong-type] skypilot"]


@pytest.mark.parametrize("count", ["²", "\u0663", "\u00b9\u2070"])
def test_a_count_in_other_digits_is_not_a_count(validate: Validate, count: str) -> None:
    # str.isdigit() takes these but int() does not (or reads another script): ASCII only
    value = f"H100:{count}"
    diags = validate(f'skypilot:\n  cloud: gcp\n  accelerators: "{value}"\n')
    assert brief(diags) == ["3:17 error[invalid-accelerators] skypilot.accelerators"]
    assert diags[0].message == f"accelerators '{value}' is not NAME:COUNT"


@pytest.mark.parametrize(("field", "col"), [("job_name", 13), ("accelerators", 17)])
def test_a_trailing_newline_is_not_part_of_a_name(validate: Validate, field: str, col: int) -> None:
    value = "H100:8" if field == "accelerators" else "llm"
    diags = validate(f'skypilot:\n  cloud: aws\n  {field}: "{value}\\n"\n')
    code = "invalid-accelerators" if field == "accelerators" else "invalid-cluster-name"
    assert brief(diags) == [f"3:{col} error[{code}] skypilot.{field}"]


def test_a_trailing_newline_in_a_region_does_not_look_right(validate: Validate) -> None:
    diags = validate('skypilot:\n  cloud: aws\n  region: "us-east-1\\n"\n')
    assert brief(diags) == ["3:11 warning[unknown-region] skypilot.region"]


def test_a_trailing_newline_in_an_env_name(validate: Validate) -> None:
    diags = validate('skypilot:\n  cloud: aws\n  env_vars:\n    "A\\n": x\n')
    assert [d.code for d in diags] == ["invalid-env-name"]


def test_a_job_dir_with_a_space(validate: Validate) -> None:
    diags = validate('skypilot:\n  cloud: aws\n  job_dir: "my jobs"\n')
    assert brief(diags) == ["3:12 error[invalid-job-dir] skypilot.job_dir"]
