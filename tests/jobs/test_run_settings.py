"""What decides a run, in its manifest: the profile, the ``--set`` values and where each
launcher value came from, the container image as written; none of it holds a credential."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.jobs.manifest import MAX_BYTES, Manifest, read_manifest
from automodel_launch.jobs.origins import MAX_OVERRIDES, MAX_TEXT, cut
from automodel_launch.jobs.status import JobStatus
from tests.hostile.tokens import make
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.support.fake_slurm import FakeSlurm

SITE = """\
eos:
  slurm:
    account: site-account
    container_image: nvcr.io#nvidia/nemo:25.02
"""


@pytest.fixture
def recipe(fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    site = tmp_path / "site" / "profiles.yaml"
    site.parent.mkdir()
    site.write_text(SITE)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "r.yaml"
    path.write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n" + RECIPE)
    return path


def submitted(recipe: Path, **options: object) -> Manifest:
    plan = api.plan(recipe, config=api.settings(check_paths=False), submitting=True,
                    snapshot=False, **options)  # type: ignore[arg-type]  # fmt: skip
    assert plan.report.ok, plan.report.diagnostics
    (manifest,) = api.submit(plan).manifests
    return read_manifest(Path(manifest.job_dir))


def test_the_profile_the_sets_and_the_image_are_recorded_with_their_origins(
    recipe: Path,
) -> None:
    manifest = submitted(recipe, profile="eos", sets=["slurm.nodes=2", "optimizer.lr=3e-5"])
    site = str(recipe.parent / "site" / "profiles.yaml")
    assert manifest.profile is not None
    assert (manifest.profile.name, manifest.profile.file) == ("eos", site)
    assert sorted((o.option, o.argument) for o in manifest.overrides) == [
        ("--set", "optimizer.lr=3e-5"), ("--set", "slurm.nodes=2"),
    ]  # fmt: skip
    assert manifest.origins == {
        "slurm.account": f"profile eos ({site}:3)",
        "slurm.container_image": f"profile eos ({site}:4)",
        "slurm.nodes": "--set slurm.nodes=2",
    }
    assert manifest.image == "nvcr.io#nvidia/nemo:25.02"
    shown = JobStatus(manifest, "PENDING").to_json()
    assert {k: shown[k] for k in ("profile", "image")} == {
        "profile": {"name": "eos", "file": site}, "image": "nvcr.io#nvidia/nemo:25.02",
    }  # fmt: skip
    assert shown["origins"]["slurm.nodes"] == "--set slurm.nodes=2"
    assert {"option": "--set", "argument": "slurm.nodes=2"} in shown["overrides"]


def test_a_sweep_point_records_its_own_value_as_sweep(recipe: Path) -> None:
    plan = api.plan(recipe, sweep=["optimizer.lr=1e-5,1e-4"], sets=["slurm.nodes=2"],
                    config=api.settings(check_paths=False), submitting=True,
                    snapshot=False)  # fmt: skip
    points = [read_manifest(Path(m.job_dir)) for m in api.submit(plan).manifests]
    own = [f"checkpoint.checkpoint_dir=checkpoints/sweep-{plan.sweep_id}/points/{i}"
           for i in (0, 1)]  # fmt: skip
    assert [sorted((o.option, o.argument) for o in p.overrides) for p in points] == [
        [("--set", "slurm.nodes=2"), ("--sweep", own[0]), ("--sweep", "optimizer.lr=1e-5")],
        [("--set", "slurm.nodes=2"), ("--sweep", own[1]), ("--sweep", "optimizer.lr=1e-4")],
    ]
    assert {p.sweep for p in points} == {plan.sweep_id}


def test_a_plain_submit_records_no_profile_no_set_and_the_recipe_s_image(recipe: Path) -> None:
    recipe.write_text(recipe.read_text().replace("slurm:\n", "slurm:\n  container_image: a/b:1\n"))
    manifest = submitted(recipe)
    assert (manifest.profile, manifest.overrides, manifest.origins) == (None, (), {})
    assert manifest.image == "a/b:1"
    assert "--set" not in json.loads(manifest.to_json())["command_line"]


def test_a_secret_variable_s_value_given_to_set_is_in_no_record(
    recipe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Token shapes given to ``--set`` are refused by validation; a secret variable's value
    of no token shape gets through it, and is written redacted everywhere."""
    token = make("wandb", 19).value
    monkeypatch.setenv("WANDB_API_KEY", token)
    argument = f"model.revision={token}"
    monkeypatch.setattr("sys.argv", ["automodel-launch", "submit", "--set", argument,
                                     str(recipe)])  # fmt: skip
    manifest = submitted(recipe, sets=[argument])
    text = (Path(manifest.job_dir) / "manifest.json").read_text()
    assert token not in text and make("wandb", 19).middle not in text
    assert [o.argument for o in manifest.overrides] == ["model.revision=***"]
    assert "model.revision=***" in manifest.command_line


def test_a_long_value_is_cut_saying_how_much() -> None:
    assert cut("x" * MAX_TEXT) == "x" * MAX_TEXT
    assert cut("x" * (MAX_TEXT + 1)) == "x" * (MAX_TEXT - 24) + "...(+25 chars)"
    assert len(cut("x" * 10 * MAX_BYTES)) <= MAX_TEXT


def test_a_manifest_with_settings_out_of_bounds_is_not_a_manifest(recipe: Path) -> None:
    manifest = submitted(recipe)
    data = json.loads(manifest.to_json())
    path = Path(manifest.job_dir) / "manifest.json"
    for wrong in ({"overrides": [{"option": "--rm", "argument": "x"}]},
                  {"image": "i" * (MAX_TEXT + 1)}, {"origins": {"\x1b": "x"}},
                  {"profile": {"name": 3, "file": "f"}}):  # fmt: skip
        path.write_text(json.dumps({**data, **wrong}))
        with pytest.raises(Exception, match=r"is not a job manifest \((overrides|image|origins|"
                           r"profile)"):  # fmt: skip
            read_manifest(Path(manifest.job_dir))


def test_overrides_beyond_the_bound_are_counted(recipe: Path) -> None:
    sets = [f"extra.k{n:02d}=1" for n in range(MAX_OVERRIDES + 3)]
    manifest = submitted(recipe, sets=sets)
    assert len(manifest.overrides) == MAX_OVERRIDES and manifest.more_overrides == 3
    assert {o.argument for o in manifest.overrides} <= set(sets)
