"""One precedence: --set > the recipe's section > the profile > defaults; each value's origin."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.config.slurm import SlurmConfig
from tests.profiles.conftest import RECIPE, Check, where


def test_four_layers_each_win_where_they_should(site_file: Path, check: Check) -> None:
    report = check(
        """\
        slurm:
          partition: recipe-partition
          time: "03:00:00"
          env_vars:
            NCCL_DEBUG: WARN
        """,
        "slurm.time=01:00:00",
        "slurm.env_vars.FROM_SET=yes-please",
        profile="eos",
    )
    assert report.diagnostics == []
    assert report.document is not None
    slurm = report.document.slurm
    assert isinstance(slurm, SlurmConfig)
    assert slurm.time == "01:00:00"  # --set over recipe over profile
    assert slurm.partition == "recipe-partition"  # recipe over profile
    assert slurm.account == "site-account"  # profile over default
    assert slurm.nodes == 1  # default: no layer sets it
    env = {name: str(value) for name, value in slurm.env_vars.items()}
    # mappings merge key by key: the recipe's NCCL_DEBUG, the profile's SITE_ONLY
    assert env == {"NCCL_DEBUG": "WARN", "SITE_ONLY": "1", "FROM_SET": "yes-please"}


def test_each_value_names_its_layer(site_file: Path, check: Check) -> None:
    from automodel_launch.profiles.merge import MergedFile

    report = check("slurm:\n  nodes: 2\n", "slurm.nodes=4", "slurm.qos=high", profile="eos")
    merged = report.loaded
    assert isinstance(merged, MergedFile)
    describe = merged.provenance.describe
    assert describe(("slurm", "nodes")) == "--set slurm.nodes=4"
    assert describe(("slurm", "account")) == f"profile eos ({site_file}:3)"
    assert describe(("slurm", "env_vars", "SITE_ONLY")) == f"profile eos ({site_file}:9)"
    assert describe(("slurm", "mem")) == "default"


def test_diagnostics_name_the_recipe_line_the_profile_line_and_the_argument(
    site_file: Path, check: Check
) -> None:
    site_file.write_text(site_file.read_text().replace('time: "02:00:00"', "time: 4h"))
    report = check(
        """\
        model: {}
        slurm:
          master_port: 80
        recipe: TrainFinetuneRecipeForNextTokenPrediction
        """,
        "slurm.nodes=0",
        profile="eos",
    )
    assert where(report.diagnostics) == [
        "3:16 error[invalid-port] slurm.master_port",
        "--set slurm.nodes=0 error[out-of-range] slurm.nodes",
        "profiles.yaml:5:11 error[invalid-time] slurm.time",
    ]
    assert report.diagnostics[2].origin is not None
    assert report.diagnostics[2].origin.profile == "eos"


def test_a_yaml11_trap_from_set_is_the_files_trap(check: Check) -> None:
    report = check("slurm: {}\n", "slurm.time=1:00:00")
    assert where(report.diagnostics) == ["--set slurm.time=1:00:00 warning[yaml11-trap] slurm.time"]
    assert "the integer 3600, which Slurm takes as 3600 minutes" in report.diagnostics[0].message
    assert report.diagnostics[0].hint == """quote it: --set 'slurm.time="1:00:00"'"""


def test_a_secret_given_through_set_is_refused_and_never_shown(check: Check) -> None:
    token = "hf_" + "SetOverrideTokenValue0123456789abcd"
    report = check("slurm: {}\n", f"slurm.env_vars.HF_TOKEN={token}", f"model.api_key={token}",
                   purpose="render")  # fmt: skip
    assert where(report.diagnostics) == [
        "--set model.api_key=*** error[secret-in-recipe] model.api_key",
        "--set slurm.env_vars.HF_TOKEN=*** error[secret-in-plain-text] slurm.env_vars.HF_TOKEN",
    ]
    assert token not in str([d.as_dict() for d in report.diagnostics])
    assert report.document is None


def test_the_users_profile_replaces_the_sites_of_the_same_name(
    site_file: Path, user_file: Path, check: Check
) -> None:
    user_file.write_text("eos:\n  slurm:\n    account: mine\n")
    report = check("slurm: {}\n", profile="eos")
    assert report.document is not None and report.document.slurm is not None
    assert report.document.slurm.account == "mine"
    assert report.document.slurm.partition is None  # not merged with the site's eos


def test_the_profile_is_chosen_by_flag_then_key_then_variable(
    site_file: Path, user_file: Path, check: Check, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_file.write_text("a:\n  slurm: {account: from-a}\nb:\n  slurm: {account: from-b}\n")
    monkeypatch.setenv("AUTOMODEL_LAUNCH_PROFILE", "eos")

    def account(text: str, profile: str | None = None) -> str | None:
        report = check(text, profile=profile)
        assert report.document is not None and report.document.slurm is not None
        return report.document.slurm.account

    assert account("slurm: {}\n") == "site-account"
    assert account("slurm: {profile: a}\n") == "from-a"
    assert account("slurm: {profile: a}\n", profile="b") == "from-b"


def test_a_profile_applies_to_its_launcher_or_chooses_one(site_file: Path, check: Check) -> None:
    # the recipe runs on SkyPilot: the profile's slurm: does not turn it into two launchers
    report = check("skypilot: {cloud: aws}\n", profile="eos")
    assert where(report.diagnostics) == ["1:1 note[profile-not-applied] skypilot"]
    assert report.document is not None and report.document.slurm is None
    # no launcher section: the profile's is the launcher
    report = check(f"model: {{}}\n{RECIPE}", profile="gcp")
    # (a SkyPilot job of a recipe: where its checkpoints go, how AutoModel gets installed)
    assert [d.code for d in report.diagnostics] == [
        "checkpoint-on-vm-disk",
        "no-automodel-on-nodes",
    ]
    assert report.document is not None and report.document.skypilot is not None
    assert report.document.skypilot.region == "us-central1"


def test_an_unknown_profile_says_which_exist(site_file: Path, check: Check) -> None:
    report = check("slurm:\n  profile: eso\n")
    assert where(report.diagnostics) == ["2:12 error[unknown-profile] slurm.profile"]
    assert report.diagnostics[0].message == (
        f"no profile 'eso' (slurm.profile: eso) in {site_file}; did you mean eos?"
    )
    flag = check("slurm: {}\n", profile="nope")
    assert [d.code for d in flag.diagnostics] == ["unknown-profile"]
    assert "(--profile nope)" in flag.diagnostics[0].message


def test_a_profile_holds_launcher_sections_only(site_file: Path, check: Check) -> None:
    site_file.write_text("eos:\n  slurm: {account: a}\n  optimizer: {lr: 1}\n")
    report = check("slurm: {}\n", profile="eos")
    assert where(report.diagnostics) == ["profiles.yaml:3:3 error[invalid-profile] eos.optimizer"]


def test_a_broken_profile_file_is_reported_where_it_is_broken(
    site_file: Path, check: Check
) -> None:
    site_file.write_text("eos:\n  slurm:\n    account: a\n  account: b\n  account: c\n")
    report = check("slurm: {}\n", profile="eos")
    assert "profiles.yaml:5:3 error[duplicate-key] eos.account" in where(report.diagnostics)


def test_a_profile_file_that_is_not_a_readable_file_says_so_and_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check: Check
) -> None:
    import os

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # nobody writes it: reading would wait forever
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"eos:\0\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for path, code in [(tmp_path, "file-unreadable"), (fifo, "file-unreadable"),
                       (binary, "not-text")]:  # fmt: skip
        monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(path))
        report = check("slurm: {}\n", profile="eos")
        assert where(report.diagnostics) == [
            "1:1 error[unknown-profile] ",
            f"{path.name}:1:1 error[{code}] ",
        ]
        assert report.diagnostics[0].message == (
            f"no profile 'eos' (--profile eos): no profile file defines any "
            f"({path} (not read: see its error))"
        )
        if path == fifo:
            assert report.diagnostics[1].hint == (
                "point AUTOMODEL_LAUNCH_SITE_PROFILES at a YAML file of profiles"
            )


def test_set_reaches_recipe_sections_and_creates_keys(check: Check) -> None:
    report = check(
        "optimizer:\n  lr: 1.0e-4\n", "optimizer.lr=1e-5", "step_scheduler.max_steps=100"
    )
    assert report.loaded is not None
    assert report.loaded.data["optimizer"] == {"lr": 1e-05}
    assert report.loaded.data["step_scheduler"] == {"max_steps": 100}


def test_set_into_a_value_or_past_a_list_is_a_diagnostic(check: Check) -> None:
    report = check(
        "model: llama\nslurm:\n  extra_mounts: [/a]\n",
        "model.name=x",
        "slurm.extra_mounts[3]=/b",
    )
    assert where(report.diagnostics) == [
        "--set model.name=x error[invalid-override] model.name",
        "--set slurm.extra_mounts[3]=/b error[invalid-override] slurm.extra_mounts[3]",
    ]
    assert report.diagnostics[0].message == "model is a value, not a mapping of keys"
    assert report.diagnostics[1].message == "slurm.extra_mounts is a list of 1: no item [3]"


def test_no_profile_and_no_set_leaves_the_file_as_loaded(check: Check) -> None:
    from automodel_launch.profiles.merge import MergedFile

    report = check("slurm:\n  nodes: 2\n")
    assert not isinstance(report.loaded, MergedFile)


def test_the_language_server_names_a_profiles_place_on_the_first_line(
    site_file: Path, check: Check
) -> None:
    pytest.importorskip("lsprotocol")
    from automodel_launch.lsp.convert import to_lsp
    from automodel_launch.lsp.text import Lines

    site_file.write_text(site_file.read_text().replace('time: "02:00:00"', "time: 4h"))
    text = f"model: {{}}\nslurm:\n  profile: eos\n{RECIPE}"
    (diagnostic,) = check(text).diagnostics
    shown = to_lsp(diagnostic, Lines(text), "file:///recipe.yaml")
    assert shown.message == f"{site_file}:5:11: '4h' is not a Slurm time limit"
    assert (shown.range.start.line, shown.range.start.character) == (0, 0)


def test_a_profile_with_no_section_for_the_recipes_launcher_says_so(
    site_file: Path, check: Check
) -> None:
    recipe = """\
        skypilot:
          cloud: gcp
        """
    report = check(recipe, profile="eos")  # eos has slurm: only
    assert where(report.diagnostics) == ["1:1 note[profile-not-applied] skypilot"]
    (note,) = report.diagnostics
    assert note.message == (
        f"profile 'eos' ({site_file}) has slurm: only: nothing of it applies to this "
        "skypilot: recipe"
    )
    assert note.hint == "add a skypilot: section to profile 'eos', or name another profile"
    # a profile with a section for the recipe's launcher (and others) says nothing
    assert check(recipe, profile="gcp").diagnostics == []
