"""``automodel_version`` from a profile or ``--set``: it chooses the release, it is not a
recipe value, and a release nobody knows is a diagnostic where it was written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import brief, run_cli
from tests.profiles.conftest import Check

RECIPE = "model:\n  pretrained_model_name_or_path: gpt2\nslurm:\n  nodes: 1\n"


def test_set_chooses_the_release_and_stays_out_of_the_recipe(check: Check) -> None:
    report = check(RECIPE, "automodel_version=0.3.0")
    assert report.automodel_version == "0.3.0"
    assert report.diagnostics == []  # 0.3.0 names its recipe on the command line
    assert report.loaded is not None
    assert "automodel_version" not in report.loaded.data


def test_without_a_layer_the_setting_decides(check: Check) -> None:
    report = check(RECIPE)
    assert report.automodel_version == "0.7.0"
    assert brief(report.diagnostics) == ["1:1 error[missing-recipe-key] model"]


def test_an_unknown_release_from_set_names_the_argument(check: Check) -> None:
    report = check(RECIPE, "automodel_version=0.6")
    (found,) = [d for d in report.diagnostics if d.code == "unknown-automodel-version"]
    assert found.origin is not None and found.origin.where == "automodel_version=0.6"
    assert found.message == "automodel_version 0.6 is not an AutoModel release this tool knows"
    assert found.hint is not None and found.hint.startswith("did you mean '0.6.0'? use one of")
    assert report.automodel_version == "0.7.0"  # the setting's, since --set said nothing usable


def test_a_profile_names_the_release_and_set_wins_over_it(site_file: Path, check: Check) -> None:
    site_file.write_text('eos:\n  automodel_version: "0.2.0"\n  slurm:\n    account: a\n')
    assert check(RECIPE, profile="eos").automodel_version == "0.2.0"
    assert check(RECIPE, "automodel_version=main", profile="eos").automodel_version == "main"


def test_a_profile_release_nobody_knows_is_at_its_line(site_file: Path, check: Check) -> None:
    site_file.write_text("eos:\n  slurm:\n    account: a\n  automodel_version: 7\n")
    report = check(RECIPE, profile="eos")
    (found,) = [d for d in report.diagnostics if d.code == "unknown-automodel-version"]
    assert (found.line, found.path) == (4, "eos.automodel_version")
    assert found.origin is not None and found.origin.where == str(site_file)
    assert report.automodel_version == "0.7.0"


def test_validate_names_the_release_in_text_and_json(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("recipe: TrainFinetuneRecipeForNextTokenPrediction\n" + RECIPE)
    text = run_cli("validate", "a.yaml", cwd=tmp_path)
    assert (
        text.stdout.splitlines()[-1]
        == "1 file checked against AutoModel 0.7.0 (installed here): no problems"
    )
    shown = run_cli("validate", "-f", "json", "--set", "automodel_version=main", "a.yaml",
                    cwd=tmp_path)  # fmt: skip
    data = json.loads(shown.stdout)
    assert data["automodel_version"] == "main"
    assert data["files"][0]["automodel_version"] == "main"


def test_the_setting_comes_from_the_environment(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(RECIPE)
    shown = run_cli("validate", "a.yaml", cwd=tmp_path,
                    environ={"AUTOMODEL_LAUNCH_AUTOMODEL_VERSION": "0.1.2"})  # fmt: skip
    assert shown.returncode == 0, shown.stdout
    assert shown.stdout.splitlines()[-1] == "1 file checked against AutoModel 0.1.2: no problems"
    wrong = run_cli("validate", "a.yaml", cwd=tmp_path,
                    environ={"AUTOMODEL_LAUNCH_AUTOMODEL_VERSION": "1.0"})  # fmt: skip
    assert wrong.returncode == 2
    assert "automodel_version" in wrong.stderr and "Traceback" not in wrong.stderr


def test_a_credential_or_a_control_character_as_the_release_is_never_shown(
    check: Check,
) -> None:
    token = "hf_" + "Ab1" * 12
    for value in (token, '"0.7\\u001b[31m.0"', "[" * 40 + "]" * 40):
        report = check(RECIPE, f"automodel_version={value}")
        (found,) = [d for d in report.diagnostics if d.code == "unknown-automodel-version"]
        shown = found.message + (found.hint or "")
        assert token not in shown and "\x1b" not in shown
        assert len(found.message) < 200
