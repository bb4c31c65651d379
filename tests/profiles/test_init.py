"""``init``: a launcher section added to a recipe, every other line kept as written."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from automodel_launch.config.document import LAUNCHERS, UNSUPPORTED_LAUNCHERS
from automodel_launch.loading import load_file, load_text
from automodel_launch.rules.recipe_key import needs_recipe_key
from automodel_launch.scaffold import InitError, add_section, section_values
from automodel_launch.validation import validate_text
from tests.conftest import offline_settings, run_cli
from tests.profiles.conftest import SITE
from tests.test_corpus import FILES, needs_corpus, relative, release

MODELINE = "# yaml-language-server: $schema=https://example.org/automodel-launch.schema.json"
PROFILE = {
    "account": "site-account",
    "partition": "batch",
    "time": "1:00:00",  # written quoted: YAML 1.1 would read 60 minutes as 3600
    "extra_mounts": ["/lustre/data:/data"],
    "env_vars": {"NCCL_DEBUG": "INFO", "FLAG": "yes"},
}
OTHER_RANKS = ("batch-not-divisible", "mesh-not-dividing-ranks", "dp-size-mismatch",
               "ep-size-mismatch")  # fmt: skip
SECTIONS = {"slurm": PROFILE, "skypilot": {"cloud": "gcp", "region": "us-central1"}}


def _without_launcher() -> list[Path]:
    out = []
    for path in FILES:
        loaded = load_file(path).loaded
        skip = (*LAUNCHERS, *UNSUPPORTED_LAUNCHERS, "fault_tolerance")
        if loaded is not None and not any(name in loaded.data for name in skip):
            out.append(path)
    return out


@needs_corpus
@pytest.mark.parametrize("section", ["slurm", "skypilot", None])
def test_init_on_every_corpus_recipe_without_a_launcher(section: str | None) -> None:
    paths = _without_launcher()
    assert len(paths) > 400
    failures: dict[str, object] = {}
    for path in paths:
        settings = offline_settings(automodel_version=release(path))  # the file's own
        before_0_4 = settings.model_copy(update={"automodel_version": "0.3.0"})
        original = path.read_text(encoding="utf-8")
        loaded = load_file(path).loaded
        assert loaded is not None
        values = {} if section is None else section_values(section, SECTIONS[section])
        text = add_section(loaded, section, values, modeline=MODELINE).text
        # the modeline, then every original line as written, then the section
        body = original if original.endswith("\n") else original + "\n"
        head = MODELINE + "\n" + body
        if not text.startswith(head):
            failures[relative(path)] = "an original line changed"
            continue
        tail = load_text(text[len(head) :] or "{}", "tail").loaded
        expected = {} if section is None else {section: values}
        if tail is None or tail.data != expected:
            failures[relative(path)] = tail and tail.data
            continue
        before = validate_text(original, str(path), settings).diagnostics
        after = validate_text(text, str(path), settings).diagnostics
        added = Counter(d.code for d in after) - Counter(d.code for d in before)
        # a container section next to a recipe that writes to absolute paths: those need
        # mounts (the warning is right; init cannot know which directories to mount)
        added.pop("path-not-mounted", None)
        # a SkyPilot section from init names no setup or image, nor a bucket for checkpoints:
        # what to install and where to keep results are the user's to say (the warnings say so)
        added.pop("no-automodel-on-nodes", None)
        added.pop("checkpoint-on-vm-disk", None)
        # init writes one 8-GPU node: a recipe made for other ranks (one GPU, ep_size 64,
        # dp_size 16) gets AutoModel's startup errors for it, rightly
        for code in OTHER_RANKS:
            added.pop(code, None)
        expected: Counter[str] = Counter()
        if section is not None and needs_recipe_key(loaded.data, settings.automodel_version):
            # a recipe without recipe: (written for a release before 0.4.0, or run by another
            # script), now a job its release could not start: exactly that error, and not
            # that one against 0.3.0, which named the recipe on the command line
            expected["missing-recipe-key"] = 1
            older = validate_text(text, str(path), before_0_4).diagnostics
            if any(d.code == "missing-recipe-key" for d in older):
                failures[relative(path)] = ["0.3.0", "missing-recipe-key"]
                continue
        errors = Counter(d.code for d in after if d.is_error and d.code not in OTHER_RANKS)
        if added != expected or errors != expected:
            failures[relative(path)] = sorted(added.elements()) or [d.code for d in after]
    assert failures == {}


def test_a_section_already_there_needs_force() -> None:
    loaded = load_text("# top\nslurm:\n  nodes: 2\nmodel: {}\n", "r.yaml").loaded
    assert loaded is not None
    with pytest.raises(InitError, match=re.escape("r.yaml already has slurm:; --force replaces")):
        add_section(loaded, "skypilot", {"cloud": "aws"}, modeline=MODELINE)
    replaced = add_section(loaded, "skypilot", {"cloud": "aws"}, modeline=MODELINE, force=True)
    assert replaced.text == f"{MODELINE}\n# top\nskypilot:\n  cloud: aws\nmodel: {{}}\n"
    gone = add_section(loaded, None, {}, modeline=MODELINE, force=True)
    assert gone.text == f"{MODELINE}\n# top\nmodel: {{}}\n"


def test_a_file_with_crlf_line_ends_keeps_them() -> None:
    loaded = load_text("# top\r\nmodel:\r\n  x: 1", "r.yaml").loaded
    assert loaded is not None
    added = add_section(loaded, "slurm", {"nodes": 1}, modeline=MODELINE, note="values of eos")
    assert added.text == (
        f"{MODELINE}\r\n# top\r\nmodel:\r\n  x: 1\r\n# values of eos\r\nslurm:\r\n  nodes: 1\r\n"
    )


def test_a_modeline_already_there_is_kept() -> None:
    text = "# yaml-language-server: $schema=../schema.json\nmodel: {}"
    loaded = load_text(text, "r.yaml").loaded
    assert loaded is not None
    added = add_section(loaded, "slurm", {"nodes": 1}, modeline=MODELINE)
    assert added.text == text + "\nslurm:\n  nodes: 1\n"


def test_the_command_writes_the_profiles_values_and_keeps_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site.yaml"
    site.write_text(SITE)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    recipe = tmp_path / "recipe.yaml"
    original = (
        "# my recipe\nrecipe: TrainFinetuneRecipeForNextTokenPrediction\n"
        "model:\n  name: x   # a comment\nstep_scheduler:\n  max_steps: 10\n"
    )
    recipe.write_text(original)
    done = run_cli("init", str(recipe), "--launcher", "slurm", "--profile", "eos", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = recipe.read_text()
    assert text.splitlines()[1:7] == original.splitlines()
    assert text.splitlines()[0].startswith("# yaml-language-server: $schema=")
    assert text.endswith(
        f"# values of profile eos ({site})\n"
        'slurm:\n  nodes: 1\n  ntasks_per_node: 8\n  time: "02:00:00"\n'
        "  account: site-account\n  partition: batch\n"
        '  container_image: "nvcr.io#nvidia/nemo:25.02"\n'
        '  env_vars:\n    NCCL_DEBUG: INFO\n    SITE_ONLY: "1"\n'
    )
    assert run_cli("validate", "--no-check-paths", str(recipe), cwd=tmp_path).returncode == 0
    again = run_cli("init", str(recipe), "--launcher", "skypilot", cwd=tmp_path)
    assert again.returncode == 1
    assert again.stderr == f"error: {recipe} already has slurm:; --force replaces it\n"
    forced = run_cli("init", str(recipe), "-l", "skypilot", "--profile", "gcp", "--force",
                     cwd=tmp_path)  # fmt: skip
    assert forced.returncode == 0, forced.stderr
    assert "slurm:" not in recipe.read_text()  # the section (a path may say slurm)
    assert recipe.read_text().endswith(
        f"# values of profile gcp ({site})\nskypilot:\n  cloud: gcp\n"
        '  accelerators: "H100:8"\n  num_nodes: 1\n  region: us-central1\n'
    )


def test_a_result_with_errors_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site.yaml"
    site.write_text("bad:\n  slurm:\n    time: 4h\n")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("model: {}\n")
    done = run_cli("init", str(recipe), "--launcher", "slurm", "--profile", "bad", cwd=tmp_path)
    assert done.returncode == 1
    assert "error[invalid-time] slurm.time: '4h' is not a Slurm time limit" in done.stderr
    assert recipe.read_text() == "model: {}\n"
    unknown = run_cli("init", str(recipe), "--launcher", "slurm", "--profile", "nope", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "no profile 'nope' (--profile)" in unknown.stderr


def test_an_unreadable_profile_file_says_why_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site.yaml"
    site.write_text(SITE)
    site.chmod(0)
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("model: {}\n")
    done = run_cli("init", str(recipe), "-l", "slurm", "--profile", "eos", cwd=tmp_path, user=True)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == (
        f"{site}:1:1: error[file-unreadable] cannot read {site}: Permission denied"
    )
    assert recipe.read_text() == "model: {}\n"


def test_a_recipe_that_may_not_be_written_is_left_whole(tmp_path: Path) -> None:
    original = "recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel: {}\n"
    locked = tmp_path / "locked.yaml"
    locked.write_text(original)
    locked.chmod(0o444)
    folder = tmp_path / "folder"
    folder.mkdir()
    inside = folder / "recipe.yaml"
    inside.write_text(original)
    folder.chmod(0o555)
    for recipe in (locked, inside):
        done = run_cli("init", str(recipe), "-l", "slurm", cwd=tmp_path, user=True)
        assert (done.returncode, done.stderr) == (3, f"error: {recipe}: Permission denied\n")
        assert recipe.read_text() == original
    assert sorted(p.name for p in folder.iterdir()) == ["recipe.yaml"]
    folder.chmod(0o755)


def test_a_credential_named_as_a_profile_never_reaches_output_or_the_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "hf_" + "InitProfileName0123456789abcdefgh"
    site = tmp_path / "site.yaml"
    site.write_text(f"{token}:\n  skypilot: {{cloud: gcp}}\n")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel: {}\n")
    for name, section in (("nope", "slurm"), (token, "slurm"), (token + "x", "slurm")):
        done = run_cli("init", str(recipe), "-l", section, "--profile", name, cwd=tmp_path)
        assert done.returncode == 2
        assert token not in done.stdout + done.stderr
        assert "Invalid value for --profile" in done.stderr
    written = run_cli("init", str(recipe), "-l", "skypilot", "--profile", token, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert token not in written.stdout + written.stderr + recipe.read_text()
    assert f"# values of profile *** ({site})\nskypilot:\n" in recipe.read_text()


def test_a_stop_signal_mid_write_leaves_the_recipe_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal

    from automodel_launch.cli.schema import write_output
    from automodel_launch.interrupts import Interrupted

    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("model: {}\n")

    def stopped(source: str, target: str) -> None:  # the signal lands as the file is moved
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(os, "replace", stopped)
    with pytest.raises(Interrupted):
        write_output(recipe, "model: {}\nslurm:\n  nodes: 1\n")
    assert recipe.read_text() == "model: {}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["recipe.yaml"]
