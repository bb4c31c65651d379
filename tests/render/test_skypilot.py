from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from tests.render.cases import ENVIRON, RECIPE, SKYPILOT
from tests.render.conftest import assert_golden, render_text


def task(name: str) -> dict:  # type: ignore[type-arg]
    text = render_text(RECIPE + SKYPILOT[name], name, environ=ENVIRON)["task.yaml"]
    return YAML(typ="safe").load(text)  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(SKYPILOT))
def test_golden_task(name: str) -> None:
    assert_golden(
        f"{name}.yaml", render_text(RECIPE + SKYPILOT[name], name, environ=ENVIRON)["task.yaml"]
    )


def test_secret_values_never_reach_the_task() -> None:
    for name in SKYPILOT:
        text = render_text(RECIPE + SKYPILOT[name], name, environ=ENVIRON)["task.yaml"]
        assert ENVIRON["HF_TOKEN"] not in text


def test_spot_task_is_a_recoverable_managed_job() -> None:
    resources = task("skypilot_spot_multi_node")["resources"]
    assert resources["use_spot"] is True
    assert resources["job_recovery"] == {
        "strategy": "EAGER_NEXT_REGION",
        "max_restarts_on_errors": 0,
    }


def test_envs_resolved_now_and_secrets_by_name() -> None:
    rendered = task("skypilot_spot_multi_node")
    assert rendered["envs"] == {"HF_HOME": "/data/hf", "RUN_TAG": "exp-42"}
    assert rendered["secrets"] == {"HF_TOKEN": None}


def test_run_block_quotes_the_head_ip_and_uses_c10d() -> None:
    run = task("skypilot_spot_multi_node")["run"]
    assert 'MASTER_ADDR="$(echo "$SKYPILOT_NODE_IPS" | head -n1)"' in run
    assert '--nnodes="$SKYPILOT_NUM_NODES"' in run
    assert '--node_rank="$SKYPILOT_NODE_RANK"' in run
    assert '--rdzv_backend=c10d --rdzv_endpoint="$MASTER_ADDR:$MASTER_PORT"' in run
    assert "--nproc_per_node=8" in run


def test_skypilot_accepts_every_rendered_task(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """SkyPilot's own schema and Task parser (the optional extra, present in the test env)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
    try:
        import sky
        from sky.utils import common_utils, schemas
    except ImportError:
        from tests.integration.conftest import unavailable

        unavailable("skypilot is not installed (pip install 'automodel-launch[skypilot]')")
    for name in SKYPILOT:
        config = task(name)
        common_utils.validate_schema(config, schemas.get_task_schema(), "Invalid task YAML: ")
        parsed = sky.Task.from_yaml_config(dict(config))
        assert parsed.num_nodes == config["num_nodes"]


def test_mounts_and_image_reach_the_task_with_references_resolved() -> None:
    rendered = task("skypilot_image_kept_cluster")
    assert rendered["resources"]["image_id"] == "docker:nvcr.io/nvidia/nemo-automodel:26.04.00"
    assert rendered["file_mounts"] == {
        "~/.automodel-launch/llm_finetune/job_config.yaml": (
            "/jobs/skypilot_image_kept_cluster/job_config.yaml"
        ),
        "/ckpt": {"name": "ckpt-exp-42", "store": "gcs", "persistent": True},
        "~/cache": "gs://datasets-${UNSET_BUCKET}/cache",  # unset: SkyPilot's own to fill
    }
    assert "image_id" not in task("skypilot_kubernetes_single")["resources"]


def test_a_mount_reference_that_resolves_to_a_token_stays_a_reference() -> None:
    section = (
        "skypilot:\n  cloud: aws\n  setup: pip install nemo-automodel\n  file_mounts:\n"
        "    /src: https://x:${GIT_PAT}@example.com/repo.git\n"
        "    /ckpt: {source: ['${DATA_DIR}'], name: b}\n"
    )
    text = render_text(RECIPE + section, environ={"GIT_PAT": GH_TOKEN, "DATA_DIR": "/data"})
    assert GH_TOKEN not in text["task.yaml"]
    mounts = YAML(typ="safe").load(text["task.yaml"])["file_mounts"]
    assert mounts["/src"] == "https://x:${GIT_PAT}@example.com/repo.git"
    assert mounts["/ckpt"] == {"source": ["/data"], "name": "b"}


def test_skypilot_reads_a_bucket_mount_and_a_copied_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
    try:
        import sky
    except ImportError:
        from tests.integration.conftest import unavailable

        unavailable("skypilot is not installed (pip install 'automodel-launch[skypilot]')")
    parsed = sky.Task.from_yaml_config(task("skypilot_spot_multi_node"))
    assert parsed.storage_mounts["/ckpt"].mode.value == "MOUNT"
    assert (
        parsed.file_mounts is not None and parsed.file_mounts["/data"] == "s3://my-datasets/squad"
    )


# ------------------------------------------------------------------ resolved credentials
GH_TOKEN = "ghp_" + "R3s0lv3d" * 4 + "abcd"
SKY_ENV = "skypilot:\n  cloud: aws\n  accelerators: A100:1\n  env_vars:\n    REPO: ${GIT_REMOTE}\n"


def test_a_reference_that_resolves_to_a_token_travels_as_a_secret() -> None:
    from automodel_launch.config.skypilot import SkyPilotConfig
    from automodel_launch.launchers.skypilot.render import secret_values, split_environment

    remote = f"https://x:{GH_TOKEN}@github.com/o/r.git"
    text = render_text(RECIPE + SKY_ENV, environ={"GIT_REMOTE": remote})["task.yaml"]
    assert GH_TOKEN not in text
    rendered = YAML(typ="safe").load(text)
    assert rendered["secrets"] == {"REPO": None}
    assert "REPO" not in rendered.get("envs", {})
    cfg = SkyPilotConfig.model_validate({"cloud": "aws", "env_vars": {"REPO": "${GIT_REMOTE}"}})
    assert split_environment(cfg, {"GIT_REMOTE": remote}) == ({}, ["REPO"])
    assert secret_values(cfg, {"GIT_REMOTE": remote}) == {"REPO": remote}


def test_a_plain_resolved_value_stays_in_envs() -> None:
    rendered = YAML(typ="safe").load(
        render_text(RECIPE + SKY_ENV, environ={"GIT_REMOTE": "https://github.com/o/r"})["task.yaml"]
    )
    assert rendered["envs"] == {"REPO": "https://github.com/o/r"}
    assert "secrets" not in rendered


def test_a_credential_field_takes_the_variable_it_references() -> None:
    from automodel_launch.config.skypilot import SkyPilotConfig
    from automodel_launch.launchers.skypilot.render import secret_values

    cfg = SkyPilotConfig.model_validate({"cloud": "aws", "hf_token": "${MY_HF}"})
    assert secret_values(cfg, {"MY_HF": "v-123", "HF_TOKEN": "other"}) == {"HF_TOKEN": "v-123"}
    assert secret_values(cfg, {}) == {}


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("DB_PASSWORD", "${DB_PW}"),  # a secret name, whatever the value looks like
        ("PLAIN", "${DB_PASSWORD}"),  # a reference to a secret-named variable
    ],
)
def test_a_secret_named_variable_travels_as_a_secret(name: str, reference: str) -> None:
    plain_password = "correct-horse-battery"  # nothing token-shaped about it
    section = f"skypilot:\n  cloud: aws\n  env_vars:\n    {name}: {reference}\n"
    environ = {"DB_PW": plain_password, "DB_PASSWORD": plain_password}
    text = render_text(RECIPE + section, environ=environ)["task.yaml"]
    assert plain_password not in text
    rendered = YAML(typ="safe").load(text)
    assert rendered["secrets"] == {name: None}
    assert name not in rendered.get("envs", {})
