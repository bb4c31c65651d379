"""``--set KEY=VALUE``: the KEY's path, the VALUE read as the file would read it."""

from __future__ import annotations

import pytest

from automodel_launch.profiles.overrides import OverrideError, parse_key, parse_override


def test_keys_are_dotted_paths_with_list_items() -> None:
    assert parse_key("slurm.nodes") == ("slurm", "nodes")
    assert parse_key("slurm.extra_mounts[0].source") == ("slurm", "extra_mounts", 0, "source")
    for bad in ("", ".x", "a..b", "[0]", "a.", "a b"):
        with pytest.raises(OverrideError):
            parse_key(bad)


@pytest.mark.parametrize(
    ("argument", "value", "plain"),
    [
        ("slurm.nodes=4", 4, "4"),
        ("slurm.time=1:00:00", "1:00:00", "1:00:00"),  # YAML 1.2 text; 1.1 checks the plain
        ('slurm.time="1:00:00"', "1:00:00", None),
        ("skypilot.use_spot=yes", "yes", "yes"),
        ("slurm.account=", None, ""),
        ('slurm.extra_mounts=[/a, "/b:/c"]', ["/a", "/b:/c"], None),
        ("slurm.setup=echo a=b", "echo a=b", "echo a=b"),
    ],
)
def test_values_read_as_yaml(argument: str, value: object, plain: str | None) -> None:
    override = parse_override(argument)
    assert override.value == value
    assert override.plain.get(()) == plain
    assert override.problems == ()


def test_a_value_yaml_cannot_read_is_a_diagnostic_naming_the_argument() -> None:
    override = parse_override("slurm.setup=a: b")
    assert [(d.code, d.line, d.origin and d.origin.label) for d in override.problems] == [
        ("yaml-syntax", 0, "--set slurm.setup=a: b")
    ]


def test_a_bad_value_names_the_field_as_every_diagnostic_does() -> None:
    (problem,) = parse_override("slurm.extra_mounts[0]=[unclosed").problems
    assert (problem.code, problem.path) == ("yaml-syntax", "slurm.extra_mounts[0]")
    (problem,) = parse_override(" slurm.extra_mounts[1] =a: b").problems
    assert problem.path == "slurm.extra_mounts[1]"


@pytest.mark.parametrize("argument", ["slurm.nodes", "=4", "slurm.setup=a\nb", "x=\x1b[2J"])
def test_usage_errors(argument: str) -> None:
    with pytest.raises(OverrideError):
        parse_override(argument)
