"""automodel_launch/config/slurm.py (and the field types it uses from config/types.py).

Every rule is checked through the whole pipeline (YAML text -> diagnostics) with the
exact code, line and column, and the valid spellings produce nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from automodel_launch.config.slurm import SlurmConfig
from tests.conftest import Validate, brief

TIME_HINT = (
    'use one of M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED (e.g. "04:00:00", "2-00:00:00")'
)
PORT_HINT = "pick a free port in 1024..65535, or 'auto' to derive one from the job id"


def slurm(**fields: Any) -> SlurmConfig:
    return SlurmConfig.model_validate(fields)


# ------------------------------------------------------------------ defaults
def test_an_empty_section_takes_the_seed_defaults(validate: Validate) -> None:
    assert validate("slurm: {}\n") == []
    cfg = slurm()
    assert (cfg.nodes, cfg.ntasks_per_node, cfg.time, cfg.master_port) == (1, 8, "04:00:00", 13742)
    assert cfg.container_image == "nvcr.io/nvidia/nemo:dev"
    assert cfg.hf_home == "~/.cache/huggingface"
    assert cfg.job_name is None and cfg.account is None and cfg.partition is None
    assert cfg.gpus_per_node is None and cfg.nsys_enabled is False
    assert cfg.extra_mounts == [] and cfg.env_vars == {}


def test_a_null_section_is_no_launcher(validate: Validate) -> None:
    assert validate("slurm:\n") == []


def test_world_size() -> None:
    assert slurm(nodes=4, ntasks_per_node=8).world_size == 32


# ------------------------------------------------------------------ time
@pytest.mark.parametrize(
    ("value", "normalized"),
    [
        ('"30"', "00:30:00"),
        ('"04:00:00"', "04:00:00"),
        ('"1:00:00"', "01:00:00"),
        ('"0:90:00"', "01:30:00"),
        ('"2-4"', "2-04:00:00"),
        ('"2-4:30"', "2-04:30:00"),
        ('"2-04:30:15"', "2-04:31:00"),
        ('"2-"', "2-00:00:00"),
        ("UNLIMITED", "UNLIMITED"),
        ("unlimited", "UNLIMITED"),
        ("Infinite", "UNLIMITED"),
        ('"-1"', "UNLIMITED"),
        ('"0"', "UNLIMITED"),
        ("00:30:00", "00:30:00"),  # unquoted but not a YAML 1.1 trap (leading 0)
        ("2-04:00:00", "2-04:00:00"),
    ],
)
def test_valid_times_produce_nothing_and_are_normalised(
    validate: Validate, value: str, normalized: str
) -> None:
    assert validate(f"slurm:\n  time: {value}\n") == []
    from automodel_launch.loading import load_text

    loaded = load_text(f"slurm:\n  time: {value}\n").loaded
    assert loaded is not None
    assert SlurmConfig.model_validate(loaded.data["slurm"]).time == normalized


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"4h"', "'4h' is not a Slurm time limit"),
        ('"1:2:3:4"', "'1:2:3:4' is not a Slurm time limit"),
        ('"1:00-00"', "'1:00-00' is not a Slurm time limit"),
        ('"1-2-3"', "'1-2-3' is not a Slurm time limit"),
        ('""', "'' is not a Slurm time limit"),
        ('"-5"', "'-5' is not a Slurm time limit"),
        ('"99999999999"', "'99999999999' is longer than Slurm can store"),
        ("4.5", 'time must be text such as "04:00:00", not a number'),
        ("true", 'time must be text such as "04:00:00", not true/false'),
        ("null", 'time must be text such as "04:00:00", not null'),
        ("[1, 2]", 'time must be text such as "04:00:00", not a list'),
        ("{h: 1}", 'time must be text such as "04:00:00", not a mapping'),
    ],
)
def test_invalid_times(validate: Validate, value: str, message: str) -> None:
    diags = validate(f"slurm:\n  time: {value}\n")
    assert brief(diags) == ["2:9 error[invalid-time] slurm.time"]
    assert diags[0].message == message
    assert diags[0].hint == TIME_HINT


def test_thirty_colon_zero_zero_is_thirty_minutes_and_says_so(validate: Validate) -> None:
    diags = validate('slurm:\n  time: "30:00"\n')
    assert brief(diags) == ["2:9 warning[ambiguous-time] slurm.time"]
    assert diags[0].message == 'Slurm reads "30:00" as minutes:seconds (00:30:00)'
    assert diags[0].hint == 'for hours write "30:00:00"; to keep minutes write "00:30:00"'


ASYNC = "checkpoint:\n  is_async: true\n"
"""Only an asynchronous checkpoint can still be writing when the limit comes."""


def test_a_short_minutes_seconds_time_also_hits_the_margin(validate: Validate) -> None:
    assert brief(validate(ASYNC + 'slurm:\n  time: "4:00"\n')) == [
        "4:9 warning[ambiguous-time] slurm.time",
        "4:9 warning[time-leaves-no-checkpoint-margin] slurm.time",
    ]


@pytest.mark.parametrize(
    ("value", "normalized"), [("30", "00:30:00"), ("240", "04:00:00"), ("0", "UNLIMITED")]
)
def test_a_bare_integer_is_minutes_and_warns(
    validate: Validate, value: str, normalized: str
) -> None:
    diags = validate(f"slurm:\n  time: {value}\n")
    assert brief(diags) == ["2:9 warning[ambiguous-time] slurm.time"]
    assert diags[0].message == f"a bare number is minutes to Slurm: {value} is {normalized}"
    assert diags[0].hint == f'write it as text: time: "{normalized}"'


def test_minus_one_integer_is_unlimited(validate: Validate) -> None:
    diags = validate("slurm:\n  time: -1\n")
    assert brief(diags) == ["2:9 warning[ambiguous-time] slurm.time"]
    assert diags[0].message == "a bare number is minutes to Slurm: -1 is UNLIMITED"


@pytest.mark.parametrize(
    ("value", "message"),
    [("-2", "-2 minutes is negative"), ("100000000", "100000000 minutes is longer than Slurm")],
)
def test_out_of_range_integers(validate: Validate, value: str, message: str) -> None:
    diags = validate(f"slurm:\n  time: {value}\n")
    assert brief(diags) == ["2:9 error[invalid-time] slurm.time"]
    assert diags[0].message.startswith(message)


# ------------------------------------------------------------------ checkpoint margin
@pytest.mark.parametrize("value", ['"00:19:00"', '"15"', '"00:05:00"', '"0:1"'])
def test_a_limit_under_twice_the_margin_warns(validate: Validate, value: str) -> None:
    diags = validate(ASYNC + f"slurm:\n  time: {value}\n")
    margin = [d for d in diags if d.code == "time-leaves-no-checkpoint-margin"]
    assert brief(margin) == ["4:9 warning[time-leaves-no-checkpoint-margin] slurm.time"]
    time = margin[0].message.split()[5]
    assert margin[0].message == (
        f"checkpoint.is_async is true and a {time} limit is under twice the 10-minute "
        "checkpoint margin (20 minutes): an async checkpoint may not finish before Slurm kills "
        "the job, and a checkpoint cut off mid-write is lost"
    )
    assert margin[0].hint == (
        "raise time to at least 20 minutes, or end training at least 10 minutes before the limit"
    )


@pytest.mark.parametrize("value", ['"00:20:00"', '"00:19:01"', '"04:00:00"', "UNLIMITED", '"0"'])
def test_a_long_enough_or_unlimited_time_does_not_warn(validate: Validate, value: str) -> None:
    assert validate(ASYNC + f"slurm:\n  time: {value}\n") == []


@pytest.mark.parametrize(
    "checkpoint", ["", "checkpoint:\n  enabled: true\n", "checkpoint:\n  is_async: false\n"]
)
def test_a_smoke_test_without_async_checkpoints_does_not_warn(
    validate: Validate, checkpoint: str
) -> None:
    """AutoModel's own default limit is 5 minutes: a synchronous checkpoint (or none) is
    done before the limit can cut it off."""
    assert validate(checkpoint + 'slurm:\n  time: "00:05:00"\n') == []


def test_the_margin_is_configurable(validate: Validate) -> None:
    text = ASYNC + 'slurm:\n  time: "00:45:00"\n'
    assert validate(text) == []
    diags = validate(text, checkpoint_margin_minutes=30)
    assert brief(diags) == ["4:9 warning[time-leaves-no-checkpoint-margin] slurm.time"]
    assert "under twice the 30-minute checkpoint margin (60 minutes)" in diags[0].message
    assert validate(ASYNC + 'slurm:\n  time: "1"\n', checkpoint_margin_minutes=0) == []


def test_no_margin_warning_when_checkpointing_is_off(validate: Validate) -> None:
    text = """\
        checkpoint:
          enabled: false
          is_async: true
        slurm:
          time: "00:05:00"
    """
    assert validate(text) == []
    assert brief(validate(text.replace("false", "true"))) == [
        "5:9 warning[time-leaves-no-checkpoint-margin] slurm.time"
    ]


# ------------------------------------------------------------------ counts
@pytest.mark.parametrize("field", ["nodes", "ntasks_per_node"])
def test_counts_must_be_at_least_one(validate: Validate, field: str) -> None:
    diags = validate(f"slurm:\n  {field}: 0\n")
    col = len(field) + 5
    assert brief(diags) == [f"2:{col} error[out-of-range] slurm.{field}"]
    assert diags[0].message == "must be at least 1"


@pytest.mark.parametrize(
    ("value", "got"), [('"2"', "'2'"), ("2.0", "2.0"), ("true", "true/false"), ("null", "null")]
)
def test_counts_are_not_coerced(validate: Validate, value: str, got: str) -> None:
    diags = validate(f"slurm:\n  nodes: {value}\n")
    assert brief(diags) == ["2:10 error[wrong-type] slurm.nodes"]
    assert diags[0].message == f"expected a whole number, got {got}"


def test_gpus_per_node_zero_is_a_cpu_job_and_null_omits_it(validate: Validate) -> None:
    assert validate("slurm:\n  gpus_per_node: null\n") == []
    assert validate("slurm:\n  ntasks_per_node: 1\n  gpus_per_node: 0\n") == []
    assert brief(validate("slurm:\n  gpus_per_node: -1\n")) == [
        "2:18 error[out-of-range] slurm.gpus_per_node"
    ]


def test_more_ranks_than_gpus_is_an_error(validate: Validate) -> None:
    diags = validate("slurm:\n  ntasks_per_node: 8\n  gpus_per_node: 4\n")
    assert brief(diags) == ["2:20 error[tasks-exceed-gpus] slurm.ntasks_per_node"]
    assert diags[0].message == (
        "ntasks_per_node 8 is more than gpus_per_node 4: ranks would share GPUs"
    )
    assert diags[0].hint == "set ntasks_per_node: 4, or request more GPUs"


def test_the_default_eight_ranks_against_fewer_gpus(validate: Validate) -> None:
    # ntasks_per_node is not written: the diagnostic points at the section.
    assert brief(validate("slurm:\n  gpus_per_node: 2\n")) == [
        "2:3 error[tasks-exceed-gpus] slurm.ntasks_per_node"
    ]


def test_ranks_equal_or_below_gpus_are_fine(validate: Validate) -> None:
    assert validate("slurm:\n  ntasks_per_node: 8\n  gpus_per_node: 8\n") == []
    assert validate("slurm:\n  ntasks_per_node: 4\n  gpus_per_node: 8\n") == []


# ------------------------------------------------------------------ port
@pytest.mark.parametrize("value", ["1024", "13742", "65535", "auto"])
def test_valid_ports(validate: Validate, value: str) -> None:
    assert validate(f"slurm:\n  master_port: {value}\n") == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1023", "port 1023 is outside 1024..65535"),
        ("0", "port 0 is outside 1024..65535"),
        ("99999", "port 99999 is outside 1024..65535"),
        ("65536", "port 65536 is outside 1024..65535"),
        ("-1", "port -1 is outside 1024..65535"),
        ('"1023"', "port 1023 is outside 1024..65535"),
        ('" 13742"', "master_port must be a number or 'auto', not ' 13742'"),
        ('"\u0661\u0663\u0667\u0664\u0662"', "master_port must be a number or 'auto', not '١٣٧٤٢'"),
        ("Auto", "master_port must be a number or 'auto', not 'Auto'"),
        ("true", "master_port must be a number or 'auto', not true/false"),
        ("13742.0", "master_port must be a number or 'auto', not a number"),
        ("null", "master_port must be a number or 'auto', not null"),
    ],
)
def test_invalid_ports(validate: Validate, value: str, message: str) -> None:
    diags = validate(f"slurm:\n  master_port: {value}\n")
    assert brief(diags) == ["2:16 error[invalid-port] slurm.master_port"]
    assert diags[0].message == message
    assert diags[0].hint == PORT_HINT


def test_auto_port_is_kept() -> None:
    assert slurm(master_port="auto").master_port == "auto"


def test_a_quoted_port_is_the_same_port(validate: Validate) -> None:
    assert validate('slurm:\n  master_port: "13742"\n') == []
    assert slurm(master_port="13742").master_port == 13742


# ------------------------------------------------------------------ names
@pytest.mark.parametrize(
    "value", ["llm_finetune", "llm-finetune.v2", "job+1", "a@b", "_x", "9lives", "a" * 200]
)
def test_valid_job_names(validate: Validate, value: str) -> None:
    assert validate(f"slurm:\n  job_name: {value}\n") == []


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ('"llm finetune"', "'llm finetune'"),
        ('"a;b"', "'a;b'"),
        ('"a|b"', "'a|b'"),
        ('"a&b"', "'a&b'"),
        ('"a>b"', "'a>b'"),
        ('"a\'b"', "'a'b'"),
        ('"a\\"b"', "'a\"b'"),
        ('"a*"', "'a*'"),
        ('"a?"', "'a?'"),
        ('"a#b"', "'a#b'"),
        ('"a\\tb"', "'a\\tb'"),  # control characters are shown escaped
        ('"a\\nb"', "'a\\nb'"),
        ('"llm\\n"', "'llm\\n'"),
        ('"llm\\r"', "'llm\\r'"),
        ('"-x"', "'-x'"),
        ('".x"', "'.x'"),
        ('""', "''"),
        ('"a/b"', "'a/b'"),
    ],
)
def test_job_names_with_shell_metacharacters(validate: Validate, value: str, shown: str) -> None:
    diags = validate(f"slurm:\n  job_name: {value}\n")
    assert brief(diags)[0] == "2:13 error[invalid-job-name] slurm.job_name"
    assert diags[0].message == (
        f"job name {shown} has whitespace, shell metacharacters or is empty"
    )
    assert diags[0].hint == "use letters, digits, '_', '-', '.' (e.g. llm_finetune)"


def test_command_substitution_in_a_job_name_is_also_flagged(validate: Validate) -> None:
    assert brief(validate('slurm:\n  job_name: "$(whoami)"\n')) == [
        "2:13 error[invalid-job-name] slurm.job_name",
        "2:13 warning[command-substitution] slurm.job_name",
    ]


def test_a_job_name_longer_than_200_characters(validate: Validate) -> None:
    assert brief(validate(f"slurm:\n  job_name: {'a' * 201}\n")) == [
        "2:13 error[invalid-job-name] slurm.job_name"
    ]


@pytest.mark.parametrize("field", ["account", "partition"])
@pytest.mark.parametrize("value", ["nlp_lab", "batch", "gpu-h100", "a.b", "p1,p2", "null"])
def test_valid_account_and_partition(validate: Validate, field: str, value: str) -> None:
    assert validate(f"slurm:\n  {field}: {value}\n") == []


@pytest.mark.parametrize("field", ["account", "partition"])
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ('"my account"', "'my account'"),
        ('"batch#1"', "'batch#1'"),
        ('"a;b"', "'a;b'"),
        ('"\\"q\\""', "'\"q\"'"),
        ('"$ACCOUNT"', "'$ACCOUNT'"),
        ('""', "''"),
        ('"batch\\n"', "'batch\\n'"),
    ],
)
def test_invalid_account_and_partition(
    validate: Validate, field: str, value: str, shown: str
) -> None:
    diags = validate(f"slurm:\n  {field}: {value}\n")
    col = len(field) + 5
    assert brief(diags)[0] == f"2:{col} error[invalid-slurm-word] slurm.{field}"
    assert diags[0].message == (
        f"{shown} cannot be an #SBATCH value (spaces, quotes, '#' or shell characters)"
    )
    assert diags[0].hint == "use the plain name, e.g. batch"


# ------------------------------------------------------------------ other fields
@pytest.mark.parametrize(
    "value",
    ["nvcr.io/nvidia/nemo:dev", "/shared/images/nemo.sqsh", "user@nvcr.io#nvidia/nemo:25.02"],
)
def test_valid_container_images(validate: Validate, value: str) -> None:
    assert validate(f"slurm:\n  container_image: {value}\n") == []


def test_no_container(validate: Validate) -> None:
    assert validate("slurm:\n  container_image: null\n") == []
    assert slurm(container_image=None).container_image is None


@pytest.mark.parametrize("value", ['"nemo dev"', '"a,b"'])
def test_container_image_without_spaces_or_commas(validate: Validate, value: str) -> None:
    assert brief(validate(f"slurm:\n  container_image: {value}\n")) == [
        "2:20 error[invalid-container-image] slurm.container_image"
    ]


def test_nsys_is_an_informational_note(validate: Validate) -> None:
    diags = validate("slurm:\n  nsys_enabled: true\n")
    assert brief(diags) == ["2:17 note[nsys-diagnostic-only] slurm.nsys_enabled"]
    assert not diags[0].is_problem  # --strict does not fail on it
    assert ".nsys-rep" in diags[0].message
    assert diags[0].hint == "profile a short run; turn it off for production training"
    assert validate("slurm:\n  nsys_enabled: false\n") == []


def test_hf_home_must_not_be_empty(validate: Validate) -> None:
    assert brief(validate('slurm:\n  hf_home: ""\n')) == ["2:12 error[invalid-value] slurm.hf_home"]


def test_an_absolute_hf_home_is_mounted() -> None:
    assert [m.spec for m in slurm(hf_home="/lustre/hf").mounts()] == ["/lustre/hf:/lustre/hf"]


def test_a_home_hf_home_is_mounted_under_the_job_users_home() -> None:
    home = "${HOME}/.cache/huggingface"
    assert [m.spec for m in slurm().mounts()] == [f"{home}:{home}"]
    assert slurm(hf_home="hf_cache").mounts() == []


def test_repo_root_is_mounted_at_its_own_path_unless_a_mount_already_holds_it() -> None:
    assert [m.spec for m in slurm(hf_home="x", repo_root="/src/am").mounts()] == ["/src/am:/src/am"]
    inside = slurm(hf_home="x", repo_root="/opt/Automodel/sub", nemo_mount="/src:/opt/Automodel")
    assert [m.spec for m in inside.mounts()] == ["/src:/opt/Automodel"]


def test_real_fields_are_accepted(validate: Validate) -> None:
    text = """\
        slurm:
          job_dir: /lustre/jobs
          repo_root: /opt/Automodel
          nemo_mount: /lustre/src/Automodel:/opt/Automodel
          hf_token: ${HF_TOKEN}
          wandb_key: ${WANDB_API_KEY}
    """
    assert validate(text) == []


# ------------------------------------------------------------------ unknown keys
def test_unknown_key_with_did_you_mean(validate: Validate) -> None:
    diags = validate("slurm:\n  ntask_per_node: 8\n")
    assert brief(diags) == ["2:3 error[unknown-key] slurm.ntask_per_node"]
    assert diags[0].message == "unknown key 'ntask_per_node' in slurm"
    assert diags[0].hint == "did you mean 'ntasks_per_node'?"


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("partiton", "did you mean 'partition'?"),
        ("acount", "did you mean 'account'?"),
        ("gpu_per_node", "did you mean 'gpus_per_node'?"),
        ("master_prot", "did you mean 'master_port'?"),
        ("env_var", "did you mean 'env_vars'?"),
        ("use_spot", "'use_spot' is a skypilot: field; slurm: does not have it"),
        ("accelerators", "'accelerators' is a skypilot: field; slurm: does not have it"),
        ("num_nodes", "'num_nodes' is a skypilot: field; slurm: does not have it"),
    ],
)
def test_unknown_key_hints(validate: Validate, key: str, hint: str) -> None:
    diags = validate(f"slurm:\n  {key}: 1\n")
    assert brief(diags) == [f"2:3 error[unknown-key] slurm.{key}"]
    assert diags[0].hint == hint


def test_an_unrelated_key_lists_the_valid_keys(validate: Validate) -> None:
    diags = validate("slurm:\n  foo: 1\n")
    assert brief(diags) == ["2:3 error[unknown-key] slurm.foo"]
    assert diags[0].hint is not None
    assert diags[0].hint.startswith("valid keys: job_name, nodes, ntasks_per_node,")


def test_every_mistake_in_the_section_is_reported_at_once(validate: Validate) -> None:
    text = """\
        slurm:
          job_name: llm finetune
          nodes: 0
          ntask_per_node: 8
          time: 4h
          account: "my account"
          master_port: 99999
          nsys_enabled: true
    """
    assert sorted(brief(validate(text))) == [
        "2:13 error[invalid-job-name] slurm.job_name",
        "3:10 error[out-of-range] slurm.nodes",
        "4:3 error[unknown-key] slurm.ntask_per_node",
        "5:9 error[invalid-time] slurm.time",
        "6:12 error[invalid-slurm-word] slurm.account",
        "7:16 error[invalid-port] slurm.master_port",
        "8:17 note[nsys-diagnostic-only] slurm.nsys_enabled",
    ]


def test_the_section_must_be_a_mapping(validate: Validate) -> None:
    assert brief(validate('slurm: "hello"\n')) == ["1:8 error[wrong-type] slurm"]
    assert brief(validate("slurm: [1]\n")) == ["1:8 error[wrong-type] slurm"]


def test_cross_field_rules_run_even_when_another_field_is_wrong(validate: Validate) -> None:
    text = """\
        slurm:
          ntask_per_node: 8
          ntasks_per_node: 8
          gpus_per_node: 4
    """
    assert brief(validate(text)) == [
        "2:3 error[unknown-key] slurm.ntask_per_node",
        "3:20 error[tasks-exceed-gpus] slurm.ntasks_per_node",
    ]


# ------------------------------------------------------------------ names YAML read as non-text
@pytest.mark.parametrize(
    ("field", "value", "read"),
    [
        ("job_name", "0x1F", "the number 31"),
        ("job_name", "123", "the number 123"),
        ("job_name", "0o17", "the number 15"),
        ("job_name", "1e400", "the number infinity"),
        ("job_name", "true", "the boolean true"),
        ("account", "1_000", "the number 1000"),
        ("account", "42", "the number 42"),
        ("partition", "1e3", "the number 1000.0"),
    ],
)
def test_a_name_yaml_reads_as_a_number_says_so(
    validate: Validate, field: str, value: str, read: str
) -> None:
    diags = validate(f"slurm:\n  {field}: {value}\n")
    code = "invalid-job-name" if field == "job_name" else "invalid-slurm-word"
    name = "job_name" if field == "job_name" else "a Slurm name"
    assert brief(diags)[0] == f"2:{len(field) + 5} error[{code}] slurm.{field}"
    assert diags[0].message == f"{name} must be text, but YAML read it as {read}"
    assert diags[0].hint == "put the value in quotes so YAML keeps it as written"


def test_a_name_that_is_a_list(validate: Validate) -> None:
    diags = validate("slurm:\n  job_name: [a]\n")
    assert brief(diags) == ["2:13 error[invalid-job-name] slurm.job_name"]
    assert diags[0].message == "job_name must be text, not a list"


@pytest.mark.parametrize("field", ["job_name", "account", "partition"])
def test_a_trailing_newline_is_not_part_of_a_valid_name(validate: Validate, field: str) -> None:
    # a `$`-anchored pattern matches before a final newline; the whole value must match
    diags = validate(f'slurm:\n  {field}: "batch\\n"\n')
    assert [d.code for d in diags] == [
        "invalid-job-name" if field == "job_name" else "invalid-slurm-word"
    ]


def test_a_trailing_newline_in_an_env_name_is_refused(validate: Validate) -> None:
    diags = validate('slurm:\n  env_vars:\n    "HF_HOME\\n": /x\n')
    assert [d.code for d in diags] == ["invalid-env-name"]
    assert diags[0].message == "'HF_HOME\\n' is not an environment variable name"


# ------------------------------------------------------------------ job_dir
@pytest.mark.parametrize(
    ("value", "bad"),
    [('"my jobs"', "' '"), ('"${HOME}/jobs"', "'$'"), ('"jobs#1"', "'#'"), ('"j\\n"', repr("\n"))],
)
def test_a_job_dir_a_script_cannot_carry(validate: Validate, value: str, bad: str) -> None:
    diags = validate(f"slurm:\n  job_dir: {value}\n")
    assert brief(diags)[0] == "2:12 error[invalid-job-dir] slurm.job_dir"
    assert diags[0].message.endswith(f"contains {bad}, which an #SBATCH line cannot carry safely")


def test_a_job_dir_reference_is_told_it_is_not_expanded(validate: Validate) -> None:
    diags = validate('slurm:\n  job_dir: "${HOME}/jobs"\n')
    assert diags[0].hint == (
        "write the directory itself: a ${VAR} is not expanded here; choose a path of letters, "
        "digits, '/', '_', '-', '.' ('~/' is expanded)"
    )


@pytest.mark.parametrize("value", ["~/jobs", "/lustre/me/jobs", "jobs", "./a-b_c.d"])
def test_plain_job_dirs(validate: Validate, value: str) -> None:
    assert validate(f"slurm:\n  job_dir: {value}\n") == []
