"""--set on a recipe value: written over that value, so the job config keeps its comments."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from automodel_launch.config.document import job_config
from automodel_launch.loading import load_text
from automodel_launch.profiles.jobtext import scalar_text, spliced
from automodel_launch.profiles.overrides import Override, parse_override
from automodel_launch.render.jobconfig import job_config_text
from tests.profiles.conftest import Check

RECIPE = """\
# the recipe
step_scheduler:
  max_steps: 10  # short run
optimizer: {lr: 1.0e-4, weight_decay: 0}
name: x
slurm:
  nodes: 1
"""


def test_the_job_config_keeps_every_comment(check: Check) -> None:
    report = check(RECIPE, "optimizer.lr=2e-5", "step_scheduler.max_steps=100", "name=yes",
                   "optimizer.weight_decay=0.1", "slurm.nodes=2", purpose="render")  # fmt: skip
    assert report.loaded is not None
    assert job_config_text(report.loaded) == (
        "# the recipe\n"
        "step_scheduler:\n"
        "  max_steps: 100  # short run\n"
        "optimizer: {lr: 2.0e-05, weight_decay: 0.1}\n"  # 2.0e-05: a float to YAML 1.1 too
        "name: 'yes'\n"  # quoted: YAML 1.1 reads yes as true
    )


def test_a_new_key_or_a_mapping_falls_back_to_the_dump(check: Check) -> None:
    for argument in ("step_scheduler.warmup=5", "optimizer={lr: 1}", "model={name: x}"):
        report = check(RECIPE, argument, purpose="render")
        assert report.loaded is not None
        assert report.loaded.text == RECIPE
        dumped = job_config_text(report.loaded)  # written out again, as AutoModel reads it
        assert "# short run" not in dumped
        again = load_text(dumped, "job.yaml").loaded
        assert again is not None and again.data == job_config(report.loaded.data)


ANY = st.characters(blacklist_categories=("Cs",), min_codepoint=1)


@given(value=st.one_of(st.text(ANY, max_size=40), st.integers(), st.floats(), st.booleans()))
def test_any_value_reads_back_as_given(value: object) -> None:
    loaded = load_text(RECIPE, "recipe.yaml").loaded
    assert loaded is not None
    override = Override("name=...", ("name",), value)
    text = spliced(loaded, [override])
    if text is None:  # a line break in it, say: the dump is used instead
        return
    assert text.splitlines()[:4] + text.splitlines()[5:] == (
        RECIPE.splitlines()[:4] + RECIPE.splitlines()[5:]
    )
    again = load_text(text, "recipe.yaml").loaded
    assert again is not None
    read = again.data["name"]
    assert read == value or (read != read and value != value)  # NaN is NaN
    assert {k: v for k, v in again.data.items() if k != "name"} == {
        k: v for k, v in loaded.data.items() if k != "name"
    }


def test_only_applied_overrides_are_written() -> None:
    loaded = load_text(RECIPE, "recipe.yaml").loaded
    assert loaded is not None
    assert spliced(loaded, [parse_override("slurm.nodes=3")]) is None  # launcher: not in the text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("yes", "'yes'"),  # YAML 1.1 reads yes as true
        ("0o7", '"0o7"'),  # YAML 1.1 writes it plain, YAML 1.2 reads 7: double-quoted
        ("1e5", "'1e5'"),
        ("ab", "ab"),
        ("é", "é"),
        (" ".join(["word"] * 40), " ".join(["word"] * 40)),  # one line, however long
        (1e-05, "1.0e-05"),
        (True, "true"),
        (None, "null"),
        (7, "7"),
    ],
)
def test_a_value_is_spelled_so_both_yaml_versions_read_it(value: object, text: str) -> None:
    assert scalar_text(value) == text


def test_a_text_past_the_dumps_width_is_double_quoted_whatever_it_holds() -> None:
    """Over a million characters the dump folds it onto several lines: JSON's spelling
    (one line) is used, a character past U+FFFF written as itself."""
    value = "word " * 210_000 + '\U0001f600 \\ "x"'
    text = scalar_text(value)
    assert (
        text is not None
        and text.startswith('"word word')
        and text.endswith('\U0001f600 \\\\ \\"x\\""')
    )
    loaded = load_text(f"v: {text}", "v.yaml").loaded
    assert loaded is not None and loaded.data == {"v": value}


def test_nan_is_written_as_yamls_nan() -> None:
    assert scalar_text(float("nan")) == ".nan"


@pytest.mark.parametrize("value", ["a\x85b", "a\u2028b", {"a": 1}, [1]])
def test_what_no_single_line_can_hold_is_not_spelled(value: object) -> None:
    """A line break Python or YAML 1.1 sees (NEL, LS), or a collection: the dump is used."""
    assert scalar_text(value) is None


def test_a_file_without_positions_is_left_to_the_dump() -> None:
    import dataclasses

    loaded = load_text(RECIPE, "recipe.yaml").loaded
    assert loaded is not None
    bare = dataclasses.replace(loaded, values={})
    assert spliced(bare, [parse_override("name=z")]) is None
    assert spliced(loaded, [parse_override("name=z")]) == RECIPE.replace("name: x", "name: z")


def test_a_multi_line_value_is_left_to_the_dump() -> None:
    text = "name: >\n  folded\n  text\nother: 1\n"
    loaded = load_text(text, "recipe.yaml").loaded
    assert loaded is not None
    assert spliced(loaded, [parse_override("name=z")]) is None
    assert spliced(loaded, [parse_override("other=2")]) == text.replace("other: 1", "other: 2")
    assert spliced(loaded, [parse_override("other=[1]")]) is None  # a list: the dump
    assert spliced(loaded, [parse_override("missing=[1]")]) is None  # a list: the dump
    assert spliced(loaded, []) is None


def test_a_section_the_recipe_lacks_is_added_at_its_end(check: Check) -> None:
    """Every line of the file stays where it is: the new section comes after them all."""
    report = check(RECIPE, "checkpoint.checkpoint_dir=/ck/a b", "model.cfg.name='yes'",
                   "model.cfg.size=2", "optimizer.lr=2e-5", purpose="render")  # fmt: skip
    assert report.loaded is not None
    assert report.loaded.text == RECIPE.replace("lr: 1.0e-4", "lr: 2.0e-05") + (
        "checkpoint:\n  checkpoint_dir: /ck/a b\nmodel:\n  cfg:\n    name: 'yes'\n    size: 2\n"
    )
    assert job_config_text(report.loaded).startswith("# the recipe\n")  # kept, not dumped
    # no line break at the end of the file: one is added before the section
    loaded = load_text("name: x", "recipe.yaml").loaded
    assert loaded is not None
    assert spliced(loaded, [parse_override("new.key=1")]) == "name: x\nnew:\n  key: 1\n"


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("{name: x}\n", ["new.key=1"]),  # a flow-style file: no line of its own to add
        ("name: x\n", ["new=1", "new.key=2"]),  # one place, two values
        ("name: x\n", ["new.key=1", "new=2"]),
        ("name: x\n", ["new.key=1", "new.key.deeper=2"]),
        ("name: x\n", ["new.key=[1]"]),
        ("name: x\n", ["new[0]=1"]),
    ],
)
def test_a_new_section_no_lines_can_hold_is_left_to_the_dump(
    text: str, arguments: list[str]
) -> None:
    loaded = load_text(text, "recipe.yaml").loaded
    assert loaded is not None
    assert spliced(loaded, [parse_override(a) for a in arguments]) is None


def test_a_new_key_no_line_can_hold_is_left_to_the_dump() -> None:
    loaded = load_text("name: x\n", "recipe.yaml").loaded
    assert loaded is not None
    assert spliced(loaded, [Override("new...", ("new", "a\u2028b"), 1)]) is None
    assert spliced(loaded, [Override("new...", ("new", "a", "b\x85"), 1)]) is None


def test_two_values_on_one_line_are_both_written_right_to_left() -> None:
    loaded = load_text("a: {x: 1, y: 2}\n", "recipe.yaml").loaded
    assert loaded is not None
    sets = [parse_override("a.x=10"), parse_override("a.y=20"), parse_override("a.x=30")]
    assert spliced(loaded, sets) == "a: {x: 30, y: 20}\n"  # the last --set of a key wins
