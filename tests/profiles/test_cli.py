"""--set and --profile on validate, render and submit; config show; the three report formats."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli
from tests.profiles.conftest import SITE

RECIPE = """\
# the recipe's own comment
step_scheduler:
  max_steps: 10
optimizer:
  lr: 1.0e-4
slurm:
  nodes: 2
"""


def _files(tmp_path: Path, monkeypatch: object) -> Path:
    site = tmp_path / "site.yaml"
    site.write_text(SITE.replace('time: "02:00:00"', "time: 4h"))
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))  # type: ignore[attr-defined]
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(RECIPE)
    return recipe


def test_text_names_the_profile_line_and_the_argument(tmp_path: Path, monkeypatch: object) -> None:
    recipe = _files(tmp_path, monkeypatch)
    args = ("--profile", "eos", "--set", "slurm.nodes=x", str(recipe))
    done = run_cli("validate", *args, cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "--set slurm.nodes=x: error[wrong-type] slurm.nodes: expected a whole number, got 'x'"
    )
    assert lines[1] == (
        f"{tmp_path}/site.yaml:5:11: error[invalid-time] slurm.time: '4h' is not a Slurm time limit"
    )
    assert (
        lines[-1]
        == "1 file checked against AutoModel 0.7.0 (installed here): 2 errors, 0 warnings; 1 failed"
    )


def test_json_and_github_carry_the_origin(tmp_path: Path, monkeypatch: object) -> None:
    recipe = _files(tmp_path, monkeypatch)
    args = ("--profile", "eos", "--set=slurm.nodes=x", str(recipe))
    done = run_cli("validate", "-f", "json", *args, cwd=tmp_path)
    found = json.loads(done.stdout)["files"][0]["diagnostics"]
    assert [(d["code"], d["line"], d["column"], d["origin"]) for d in found] == [
        ("wrong-type", 0, 0, {"kind": "set", "argument": "slurm.nodes=x"}),
        (
            "invalid-time",
            5,
            11,
            {"kind": "profile", "file": str(tmp_path / "site.yaml"), "profile": "eos"},
        ),
    ]
    done = run_cli("validate", "-f", "github", *args, cwd=tmp_path)
    lines = done.stdout.splitlines()
    # no line to annotate: on the recipe, the argument leading the text
    assert lines[0] == (
        f"::error file={tmp_path}/recipe.yaml,title=automodel-launch wrong-type::"
        "--set slurm.nodes=x: slurm.nodes: expected a whole number, got 'x'"
    )
    assert lines[1].startswith(
        f"::error file={tmp_path}/site.yaml,line=5,col=11,title=automodel-launch invalid-time::"
    )


def test_render_puts_launcher_overrides_in_the_script_and_recipe_ones_in_the_job_config(
    tmp_path: Path, monkeypatch: object
) -> None:
    recipe = _files(tmp_path, monkeypatch)
    job = tmp_path / "job"
    done = run_cli(
        "render", "--no-check-paths", "--profile", "eos", "--job-dir", str(job),
        "--set", "slurm.time=00:30:00", "--set", "slurm.nodes=3",
        "--set", "optimizer.lr=1e-5", "--set", "step_scheduler.max_steps=100",
        str(recipe), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    script = (job / "job.sbatch").read_text()
    assert "#SBATCH --nodes=3\n" in script
    assert "#SBATCH --time=00:30:00\n" in script
    assert "#SBATCH --account=site-account\n" in script  # from the profile
    config = (job / "job_config.yaml").read_text()
    # written over the recipe's own values: the comment and every other line stay
    assert config == RECIPE.replace("max_steps: 10", "max_steps: 100").replace(
        "lr: 1.0e-4", "lr: 1.0e-05"
    ).replace("slurm:\n  nodes: 2\n", "")


def test_the_fast_validate_path_takes_set_and_profile(tmp_path: Path, monkeypatch: object) -> None:
    recipe = _files(tmp_path, monkeypatch)
    for args in (["--set", "slurm.nodes=0"], ["--set=slurm.nodes=0"]):
        done = run_cli("validate", *args, str(recipe), cwd=tmp_path)
        assert done.returncode == 1
        assert done.stdout.startswith("--set slurm.nodes=0: error[out-of-range] slurm.nodes:")
    done = run_cli("validate", "--set", "slurm.nodes", str(recipe), cwd=tmp_path)
    assert done.returncode == 2
    assert "'slurm.nodes' has no '='" in done.stderr


def test_config_show_names_each_origin(tmp_path: Path, monkeypatch: object) -> None:
    recipe = _files(tmp_path, monkeypatch)
    done = run_cli("config", "show", "--profile", "gcp", "--set", "skypilot.num_nodes=2",
                   str(tmp_path / "sky.yaml"), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1  # no such file
    (tmp_path / "sky.yaml").write_text("skypilot:\n  accelerators: H100:8\n")
    done = run_cli("config", "show", "--profile", "gcp", "--set", "skypilot.num_nodes=2",
                   str(tmp_path / "sky.yaml"), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [" ".join(line.split()) for line in done.stdout.splitlines()]
    site = f"{tmp_path}/site.yaml"
    assert rows[:6] == [
        f"# {tmp_path}/sky.yaml; precedence: --set > recipe > profile > defaults",
        "skypilot:",
        f'accelerators: "H100:8" # {tmp_path}/sky.yaml:2',
        "num_nodes: 2 # --set skypilot.num_nodes=2",
        f'cloud: "gcp" # profile gcp ({site}:12)',
        f'region: "us-central1" # profile gcp ({site}:13)',
    ]
    assert all(row.endswith("# default") for row in rows[6:])
    args = ("-f", "json", "--profile", "gcp", str(tmp_path / "sky.yaml"))
    shown = json.loads(run_cli("config", "show", *args, cwd=tmp_path).stdout)
    assert shown["values"][1] == {
        "path": "skypilot.cloud", "value": "gcp", "origin": f"profile gcp ({site}:12)"
    }  # fmt: skip
    assert recipe.read_text() == RECIPE


def test_a_secret_through_set_never_reaches_any_output(tmp_path: Path, monkeypatch: object) -> None:
    recipe = _files(tmp_path, monkeypatch)
    token = "hf_" + "CliSetTokenValue0123456789abcdefgh"
    for command in (["validate"], ["render", "--no-check-paths"], ["config", "show"]):
        done = run_cli(*command, "--set", f"slurm.env_vars.HF_TOKEN={token}", str(recipe),
                       cwd=tmp_path)  # fmt: skip
        assert done.returncode == 1
        assert token not in done.stdout + done.stderr
        assert "error[secret-in-plain-text] slurm.env_vars.HF_TOKEN" in done.stdout + done.stderr


def test_a_secret_as_a_set_key_never_reaches_config_show(
    tmp_path: Path, monkeypatch: object
) -> None:
    recipe = _files(tmp_path, monkeypatch)
    token = "hf_" + "CliSetTokenKey0123456789abcdefghij"
    for form in ("text", "json"):
        done = run_cli("config", "show", "-f", form, "--set", f"slurm.{token}=1", str(recipe),
                       cwd=tmp_path)  # fmt: skip
        assert done.returncode == 1
        assert token not in done.stdout + done.stderr
        assert "error[unknown-key] slurm." in done.stderr


def test_a_skypilot_task_gets_the_profile_and_the_overrides(
    tmp_path: Path, monkeypatch: object
) -> None:
    _files(tmp_path, monkeypatch)
    recipe = tmp_path / "sky.yaml"
    recipe.write_text("recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel: {}\n")
    done = run_cli("render", "--profile", "gcp", "--set", "skypilot.num_nodes=2",
                   "--set", "skypilot.accelerators=A100:4", str(recipe), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "\nnum_nodes: 2\n" in done.stdout  # --set
    assert "\n  cloud: gcp\n  region: us-central1\n  accelerators: A100:4\n" in done.stdout


def test_config_show_shows_the_values_of_a_recipe_with_errors(tmp_path: Path) -> None:
    """The values are what a user needs to see the error: shown, then the diagnostics,
    and the exit status says there was an error."""
    recipe = tmp_path / "bad.yaml"
    recipe.write_text("slurm:\n  nodes: 0\n")
    done = run_cli("config", "show", str(recipe), cwd=tmp_path)
    assert done.returncode == 1
    assert [" ".join(line.split()) for line in done.stdout.splitlines()[:3]] == [
        f"# {recipe}; precedence: --set > recipe > profile > defaults",
        "slurm:",
        f"nodes: 0 # {recipe}:2",
    ]
    assert f"{recipe}:2:10: error[out-of-range] slurm.nodes: must be at least 1" in done.stderr


def test_config_show_of_a_section_that_is_no_mapping(tmp_path: Path) -> None:
    recipe = tmp_path / "bad.yaml"
    recipe.write_text("slurm: 5\nskypilot: [a]\n")
    done = run_cli("config", "show", str(recipe), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout == (
        f"# {recipe}; precedence: --set > recipe > profile > defaults\n"
        f"slurm: 5         # {recipe}:1\n"
        f'skypilot: ["a"]  # {recipe}:2\n'
    )
    assert f"{recipe}:1:8: error[wrong-type] slurm: expected a mapping of keys, got 5" in (
        done.stderr
    )
    shown = json.loads(run_cli("config", "show", "-f", "json", str(recipe), cwd=tmp_path).stdout)
    assert shown["values"] == [
        {"path": "slurm", "value": 5, "origin": f"{recipe}:1"},
        {"path": "skypilot", "value": ["a"], "origin": f"{recipe}:2"},
    ]
    recipe.write_text("slurm:\n")  # null: no section, as validate reads it
    done = run_cli("config", "show", str(recipe), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.endswith("\n# no launcher section: runs interactively with torchrun\n")
