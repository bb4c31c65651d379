"""The merge, layer by layer: where each value lands, who owns it, what is never changed.

In-process (the mutation tests see them): every ``--set`` path shape, every profile
section shape, and the place of each diagnostic a layer causes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.loading import load_text
from automodel_launch.profiles.merge import MergedFile, merge
from automodel_launch.profiles.overrides import Layers, parse_override
from automodel_launch.render.jobconfig import job_config_text
from tests.profiles.conftest import RECIPE, Check, where


def merged(check: Check, text: str, *sets: str, profile: str | None = None) -> MergedFile:
    report = check(text, *sets, profile=profile)
    assert isinstance(report.loaded, MergedFile)
    return report.loaded


# ------------------------------------------------------------------ profile sections
def test_a_profile_whose_first_section_is_for_another_launcher_still_applies(
    site_file: Path, check: Check
) -> None:
    site_file.write_text("both:\n  skypilot:\n    cloud: gcp\n  slurm:\n    account: from-both\n")
    report = check("slurm:\n  nodes: 1\n", profile="both")
    assert report.diagnostics == []  # no profile-not-applied note: its slurm: applied
    assert report.document is not None and report.document.slurm is not None
    assert report.document.slurm.account == "from-both"
    assert report.document.skypilot is None


def test_a_launcher_section_that_is_not_a_mapping_leaves_the_next_one_filled(
    site_file: Path, check: Check
) -> None:
    site_file.write_text("both:\n  slurm:\n    account: a\n  skypilot:\n    region: us-central1\n")
    loaded = merged(check, "slurm: 5\nskypilot:\n  cloud: gcp\n", profile="both")
    assert loaded.data["slurm"] == 5  # its own type error says what is wrong
    assert loaded.data["skypilot"] == {"cloud": "gcp", "region": "us-central1"}


def test_a_section_the_profile_adds_is_owned_by_the_profile(site_file: Path, check: Check) -> None:
    loaded = merged(check, "model: {}\n", profile="gcp")
    assert loaded.provenance.describe(("skypilot",)) == f"profile gcp ({site_file}:12)"
    assert loaded.provenance.describe(("skypilot", "region")) == f"profile gcp ({site_file}:13)"
    empty = merged(check, "model: {}\nskypilot:\n", profile="gcp")  # written empty: the recipe's
    assert empty.provenance.describe(("skypilot",)) == "recipe.yaml:2"
    assert empty.data["skypilot"] == {"cloud": "gcp", "region": "us-central1"}


def test_the_note_of_a_section_from_set_names_the_argument(site_file: Path, check: Check) -> None:
    report = check(f"model: {{}}\n{RECIPE}", "skypilot={cloud: gcp}", profile="eos")
    assert where(report.diagnostics) == [
        "--set skypilot={cloud: gcp} warning[checkpoint-on-vm-disk] skypilot",
        "--set skypilot={cloud: gcp} warning[no-automodel-on-nodes] skypilot",
        "--set skypilot={cloud: gcp} note[profile-not-applied] skypilot",
    ]


def test_profile_values_are_copied_not_shared(site_file: Path, check: Check) -> None:
    site_file.write_text("eos:\n  slurm:\n    extra_mounts: [{source: /a, dest: /b}]\n")
    loaded = merged(check, "slurm: {}\n", profile="eos")
    loaded.data["slurm"]["extra_mounts"][0]["dest"] = "/changed"
    assert loaded.profile is not None and loaded.profile.file.loaded is not None
    profile_data = loaded.profile.file.loaded.data
    assert profile_data["eos"]["slurm"]["extra_mounts"] == [{"source": "/a", "dest": "/b"}]


def test_a_merged_file_is_placed_as_its_recipe(site_file: Path) -> None:
    loaded = load_text("slurm:\n  nodes: 2\n", "r.yaml").loaded
    assert loaded is not None
    result, _ = merge(loaded, Layers("eos"))
    assert result.keys is loaded.keys and result.values is loaded.values
    assert result.text == loaded.text


def test_an_unknown_profile_names_where_it_was_asked_for(
    site_file: Path, check: Check, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOMODEL_LAUNCH_PROFILE", "nope")
    (variable,) = check("slurm: {}\n").diagnostics
    assert (variable.code, variable.line, variable.column, variable.origin) == (
        "unknown-profile", 1, 1, None,
    )  # fmt: skip
    assert variable.message == (
        f"no profile 'nope' (AUTOMODEL_LAUNCH_PROFILE=nope) in {site_file}; known names: eos, gcp"
    )
    assert variable.hint == "add it to your profiles.yaml (see the README), or name another"
    monkeypatch.delenv("AUTOMODEL_LAUNCH_PROFILE")
    report = check("slurm: {}\n", "slurm.profile=nope")
    assert where(report.diagnostics) == [
        "--set slurm.profile=nope error[unknown-profile] slurm.profile"
    ]


def test_a_mapping_meeting_a_value_keeps_the_upper_layer(site_file: Path, check: Check) -> None:
    report = check('slurm:\n  env_vars: "A=1"\n', profile="eos")  # profile: a mapping
    assert where(report.diagnostics) == ["2:13 error[wrong-type] slurm.env_vars"]
    site_file.write_text("eos:\n  slurm:\n    env_vars: A=1\n")
    loaded = merged(check, "slurm:\n  env_vars: {B: '2'}\n", profile="eos")
    assert loaded.data["slurm"]["env_vars"] == {"B": "2"}


def test_a_profiles_diagnostics_are_at_its_lines(site_file: Path, check: Check) -> None:
    site_file.write_text(
        "eos:\n  slurm:\n    nodse: 2\n    time: 1:00:00\n    account: !custom a\n"
    )
    report = check("slurm: {}\n", profile="eos")
    assert where(report.diagnostics) == [
        "profiles.yaml:3:5 error[unknown-key] slurm.nodse",  # at the key
        "profiles.yaml:4:11 warning[yaml11-trap] slurm.time",
        "profiles.yaml:5:14 error[yaml-tag] slurm.account",
    ]


# ------------------------------------------------------------------ the recipe layer
def test_the_recipes_own_diagnostics_keep_their_places_under_a_profile(
    site_file: Path, check: Check
) -> None:
    report = check("slurm:\n  nodse: 2\n  time: 1:00:00\n  qos: !custom a\n", profile="eos")
    assert where(report.diagnostics) == [
        "2:3 error[unknown-key] slurm.nodse",
        "3:9 warning[yaml11-trap] slurm.time",
        "4:8 error[yaml-tag] slurm.qos",
    ]
    loaded = merged(check, "slurm:\n  nodes: 2\n", profile="eos")
    assert loaded.provenance.describe(("slurm", "nodes")) == "recipe.yaml:2"


def test_the_recipes_unquoted_values_reach_the_job_config_as_automodel_reads_them(
    check: Check,
) -> None:
    """A new key makes the job config a dump: the recipe's ``yes`` is still true."""
    loaded = merged(check, "model:\n  flag: yes\n  name: x\n", "model.extra=1")
    assert job_config_text(loaded) == ('"model":\n  "flag": true\n  "name": "x"\n  "extra": 1\n')


def test_the_recipe_is_not_changed_by_the_merge(site_file: Path) -> None:
    loaded = load_text("slurm:\n  env_vars: {A: '1'}\nmodel: {a: {b: 1}}\n", "r.yaml").loaded
    assert loaded is not None
    sets = ("slurm.env_vars.B=2", "model.a.b=3")
    result, problems = merge(loaded, Layers("eos", tuple(parse_override(s) for s in sets)))
    assert problems == []
    assert loaded.data == {"slurm": {"env_vars": {"A": "1"}}, "model": {"a": {"b": 1}}}
    assert result.data["model"] == {"a": {"b": 3}}


# ------------------------------------------------------------------ --set paths
def test_set_values_are_copied_not_shared(site_file: Path) -> None:
    loaded = load_text("model: {}\n", "r.yaml").loaded
    assert loaded is not None
    override = parse_override("slurm={env_vars: {A: '1'}}")
    result, _ = merge(loaded, Layers("eos", (override,)))
    assert result.data["slurm"]["env_vars"] == {"A": "1", "NCCL_DEBUG": "INFO", "SITE_ONLY": "1"}
    assert override.value == {"env_vars": {"A": "1"}}


def test_a_set_mapping_owns_each_of_its_keys(check: Check) -> None:
    loaded = merged(check, "slurm: {}\n", "slurm={nodes: 2, env_vars: {A: '1'}}")
    describe = loaded.provenance.describe
    label = "--set slurm={nodes: 2, env_vars: {A: '1'}}"
    assert describe(("slurm", "nodes")) == label
    assert describe(("slurm", "env_vars", "A")) == label


def test_a_mapping_set_creates_is_owned_by_the_argument(check: Check) -> None:
    loaded = merged(check, "model: {}\n", "step_scheduler.max_steps=100")
    describe = loaded.provenance.describe
    assert describe(("step_scheduler",)) == "--set step_scheduler.max_steps=100"
    kept = merged(check, "model:\nstep_scheduler:\n", "model.name=x")
    assert kept.provenance.describe(("model",)) == "recipe.yaml:1"  # null there: still the recipe's


def test_set_reaches_into_an_existing_list_item(check: Check) -> None:
    report = check("slurm:\n  extra_mounts: [{source: /a, dest: /a}]\n",
                   "slurm.extra_mounts[0].dest=/b")  # fmt: skip
    assert report.loaded is not None
    assert report.loaded.data["slurm"]["extra_mounts"] == [{"source": "/a", "dest": "/b"}]


def test_set_past_a_list_or_into_a_value_names_the_part_that_is_not_there(check: Check) -> None:
    report = check(
        f"model: {{a: 5, b: [1]}}\nn: 5\nslurm:\n  extra_mounts: [/a]\n{RECIPE}",
        "model[0]=x",
        "n[0]=x",
        "slurm.extra_mounts[1]=/b",
        "slurm.extra_mounts[3].source=/b",
        "model.a.b=x",
        "model.b[1]=2",
        "model.a[0]=x",
    )
    messages = {d.origin.where if d.origin else "": d.message for d in report.diagnostics}
    assert messages == {
        "model[0]=x": "model is not a list: no item [0]",
        "n[0]=x": "n is not a list: no item [0]",
        "slurm.extra_mounts[1]=/b": "slurm.extra_mounts is a list of 1: no item [1]",
        "slurm.extra_mounts[3].source=/b": "slurm.extra_mounts is a list of 1: no item [3]",
        "model.a.b=x": "model.a is a value, not a mapping of keys",
        "model.b[1]=2": "model.b is a list of 1: no item [1]",
        "model.a[0]=x": "model.a is not a list: no item [0]",
    }
    for d in report.diagnostics:
        assert (d.code, d.line, d.column) == ("invalid-override", 0, 0)
        assert d.hint == "set an existing list item, or a key inside a mapping"


def test_a_set_tag_on_a_launcher_field_is_refused_naming_the_argument(check: Check) -> None:
    report = check("slurm: {}\n", "slurm.account=!custom a")
    assert where(report.diagnostics) == [
        "--set slurm.account=!custom a error[yaml-tag] slurm.account"
    ]


def test_only_a_quote_it_hint_is_rewritten_for_set(check: Check) -> None:
    report = check("slurm: {}\n", "slurm.master_port=80")
    (port,) = report.diagnostics
    assert port.hint == "pick a free port in 1024..65535, or 'auto' to derive one from the job id"
    nodes = check("slurm: {}\n", "slurm.nodes=0").diagnostics
    assert [d.hint for d in nodes] == [None]


def test_a_value_from_sweep_is_labelled_sweep_and_quoted_as_sweep_takes_it() -> None:
    """A sweep point's value is a ``--sweep`` argument wherever a diagnostic names it."""
    from automodel_launch.validation import validate_loaded
    from tests.conftest import offline_settings

    loaded = load_text("skypilot:\n  cloud: aws\n", "recipe.yaml").loaded
    assert loaded is not None
    layers = Layers(None, (parse_override("skypilot.region=no", "--sweep"),))
    report = validate_loaded(loaded, offline_settings(), layers=layers)  # type: ignore[arg-type]
    (trap,) = [d for d in report.diagnostics if d.code == "yaml11-trap"]
    assert trap.origin is not None
    assert (trap.origin.label, trap.origin.option) == ("--sweep skypilot.region=no", "--sweep")
    assert trap.hint == "quote it: --sweep 'skypilot.region=\"no\"'"


def test_a_key_set_in_a_section_written_empty_reaches_the_job_config(check: Check) -> None:
    """``checkpoint:`` with nothing under it is null; a --set inside it makes it a mapping,
    and the job config holds that mapping, not the null the recipe wrote."""
    report = check(RECIPE + "checkpoint:\nslurm:\n  nodes: 1\n", "checkpoint.checkpoint_dir=/ck",
                   purpose="render")  # fmt: skip
    loaded = report.loaded
    assert isinstance(loaded, MergedFile)
    assert loaded.data["checkpoint"] == {"checkpoint_dir": "/ck"}
    again = load_text(job_config_text(loaded), "job.yaml").loaded
    assert again is not None and again.data["checkpoint"] == {"checkpoint_dir": "/ck"}
