"""What a job records of its settings holds no credential: a token or a secret variable's
value in the profile file's path, a secret variable's value given to ``--set``, reach
neither the manifest, nor the registry, nor ``status``'s JSON, nor ``diff``'s output; the
detect-secrets oracle flags no line of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.jobs.status import JobStatus
from tests.hostile.job_records import (
    NAMED,
    SECRET,
    assert_no_credential,
    offline_submit,
    registry_records,
)
from tests.hostile.tokens import make
from tests.plan.test_plan_cli import RECIPE, SLURM

PROFILE = "eos:\n  slurm:\n    account: site-account\n    container_image: a/b:1\n"


@pytest.mark.parametrize("kind", NAMED)
def test_no_credential_in_the_recorded_settings(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = make(kind, 23)
    hex_secret = make("wandb", 23).value  # no token shape: a secret by its variable only
    offline_submit(tmp_path, monkeypatch)
    monkeypatch.setenv("WANDB_API_KEY", hex_secret)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    site = tmp_path / f"site-{token.value}-{SECRET}" / "profiles.yaml"
    site.parent.mkdir()
    site.write_text(PROFILE)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    recipe = tmp_path / "r.yaml"
    recipe.write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n" + RECIPE)
    config = api.settings(check_paths=False)
    old = api.submit(recipe, config=config, snapshot=False).manifests[0]
    assert [o.argument for o in old.overrides] == []
    sets = [f"model.revision={hex_secret}", "slurm.nodes=2"]
    new = api.submit(recipe, config=config, snapshot=False, profile="eos", sets=sets)
    new = new.manifests[0]
    assert new.profile is not None and new.profile.file.endswith("/profiles.yaml")
    assert [o.argument for o in new.overrides] == ["model.revision=***", "slurm.nodes=2"]
    compared = api.diff(old, new)
    records = [
        (Path(new.job_dir) / "manifest.json").read_text(), *registry_records(),
        json.dumps(JobStatus(new, "PENDING").to_json()), "\n".join(compared.lines()),
        json.dumps(compared.to_json()),
    ]  # fmt: skip
    assert_no_credential(records, (token.value, token.middle, SECRET, hex_secret))
