"""``init``'s splice, in process: the exact text written into the user's recipe."""

from __future__ import annotations

import re

import pytest

from automodel_launch.loading import load_text
from automodel_launch.scaffold import Added, InitError, add_section, dump_section, section_values

MODELINE = "# yaml-language-server: $schema=schema.json"


def add(
    text: str,
    section: str | None,
    values: dict[str, object],
    *,
    force: bool = False,
    note: str | None = None,
) -> Added:
    loaded = load_text(text, "r.yaml").loaded
    assert loaded is not None
    return add_section(loaded, section, values, modeline=MODELINE, force=force, note=note)


def test_the_section_goes_at_the_end_with_every_value_as_yaml_11_reads_it() -> None:
    values = section_values(
        "slurm",
        {"nodes": 2, "time": "1:00:00", "extra_mounts": ["/a", "no"], "account": "",
         "env_vars": {"A": "on", "B": "x"}, "qos": "a:b", "setup": "x " * 50 + "y"},
    )  # fmt: skip
    added = add("model: {}\n", "slurm", values)
    assert added == Added(
        f"{MODELINE}\n"
        "model: {}\n"
        "slurm:\n"
        "  nodes: 2\n"  # the profile's value over the starter's
        "  ntasks_per_node: 8\n"
        '  time: "1:00:00"\n'
        "  extra_mounts:\n"
        "    - /a\n"
        '    - "no"\n'
        '  account: ""\n'
        "  env_vars:\n"
        '    A: "on"\n'
        "    B: x\n"
        '  qos: "a:b"\n'
        f"  setup: {'x ' * 50}y\n",  # one line, however long
        replaced=False,
    )


def test_section_values_are_the_starters_under_the_profile() -> None:
    assert section_values("skypilot", None) == {
        "cloud": "aws", "accelerators": "H100:8", "num_nodes": 1,
    }  # fmt: skip
    assert section_values("skypilot", {"cloud": "gcp", "zone": "z"}) == {
        "cloud": "gcp", "accelerators": "H100:8", "num_nodes": 1, "zone": "z",
    }  # fmt: skip
    assert section_values("slurm", {}) == {"nodes": 1, "ntasks_per_node": 8, "time": "04:00:00"}


def test_the_note_goes_above_the_section() -> None:
    assert dump_section("slurm", {"a": 1}, "values of profile eos (p.yaml)") == (
        "# values of profile eos (p.yaml)\nslurm:\n  a: 1\n"
    )
    assert dump_section("slurm", {"a": 1}) == "slurm:\n  a: 1\n"


def test_a_replaced_section_and_the_note_init_wrote_make_room_for_the_new_one() -> None:
    text = "model: {}\n# values of profile eos (p)\nslurm:\n  nodes: 1\nafter: 1\n"
    added = add(text, "slurm", {"nodes": 3}, force=True, note="values of profile gcp (q)")
    assert added == Added(
        f"{MODELINE}\nmodel: {{}}\n# values of profile gcp (q)\nslurm:\n  nodes: 3\nafter: 1\n",
        replaced=True,
    )


def test_a_section_on_the_first_line_is_replaced_in_place() -> None:
    """Nothing above it: the last line (a note-like comment) is not taken for its note."""
    text = "slurm:\n  nodes: 1\nmodel: {}\n# values of profile x\n"
    added = add(text, "skypilot", {"cloud": "aws"}, force=True)
    assert (
        added.text == f"{MODELINE}\nskypilot:\n  cloud: aws\nmodel: {{}}\n# values of profile x\n"
    )


def test_a_file_without_a_last_line_end_gets_one_before_the_section() -> None:
    assert add("model: {}", "slurm", {"nodes": 1}).text == (
        f"{MODELINE}\nmodel: {{}}\nslurm:\n  nodes: 1\n"
    )
    assert add("model: {}\r\n", "slurm", {"nodes": 1}).text == (
        f"{MODELINE}\r\nmodel: {{}}\r\nslurm:\r\n  nodes: 1\r\n"
    )
    assert add("a: 1\rmodel: {}\r", None, {}).text == f"{MODELINE}\na: 1\rmodel: {{}}\r"


@pytest.mark.parametrize(
    ("first", "kept"),
    [
        ("# yaml-language-server: $schema=../s.json", True),
        ("# $schema: ../s.json", True),
        ("# a comment", False),
    ],
)
def test_a_modeline_is_added_unless_the_first_line_has_one(first: str, kept: bool) -> None:
    text = f"{first}\nmodel: {{}}\n"
    added = add(text, None, {}).text
    assert added == (text if kept else f"{MODELINE}\n{text}")
    second = add(f"model: {{}}\n{first}\n", None, {}).text
    assert second == f"{MODELINE}\nmodel: {{}}\n{first}\n"  # only the first line counts


def test_no_launcher_leaves_the_recipe_and_adds_the_modeline() -> None:
    assert add("model: {}\n", None, {}) == Added(f"{MODELINE}\nmodel: {{}}\n", replaced=False)


def test_a_section_there_or_a_flow_style_file_is_refused_with_what_to_do() -> None:
    with pytest.raises(InitError, match=re.escape("r.yaml already has skypilot:; --force")):
        add("skypilot: {cloud: aws}\n", "slurm", {})
    flow = "{model: {}, slurm: {nodes: 1}}\n"
    with pytest.raises(InitError) as raised:
        add(flow, "slurm", {}, force=True)
    assert str(raised.value) == "r.yaml is written in flow style ({...}); edit it by hand"
    assert add("{model: {}}\n", "slurm", {"nodes": 1}).text == (
        f"{MODELINE}\n{{model: {{}}}}\nslurm:\n  nodes: 1\n"
    )


def test_a_list_of_mappings_is_indented_under_its_dash() -> None:
    mounts = [{"source": "/a", "dest": "/b"}, "/c"]
    assert dump_section("slurm", {"extra_mounts": mounts}) == (
        "slurm:\n  extra_mounts:\n    - source: /a\n      dest: /b\n    - /c\n"
    )


def test_the_note_init_wrote_goes_with_its_section_wherever_it_is() -> None:
    text = "a: 1\nb: 2\n# values of profile eos (p)\nslurm:\n  nodes: 1\nc: 3\n"
    added = add(text, "slurm", {"nodes": 2}, force=True)
    assert added.text == f"{MODELINE}\na: 1\nb: 2\nslurm:\n  nodes: 2\nc: 3\n"
    other = "a: 1\n# a comment of the user's\nslurm:\n  nodes: 1\n"
    assert add(other, "slurm", {"nodes": 2}, force=True).text == (
        f"{MODELINE}\na: 1\n# a comment of the user's\nslurm:\n  nodes: 2\n"
    )


def test_two_launcher_sections_both_make_way_for_the_new_one() -> None:
    text = "a: 1\nslurm:\n  nodes: 1\nb: 2\nskypilot:\n  cloud: aws\nc: 3\n"
    added = add(text, "slurm", {"nodes": 2}, force=True)
    assert added.text == f"{MODELINE}\na: 1\nslurm:\n  nodes: 2\nb: 2\nc: 3\n"
