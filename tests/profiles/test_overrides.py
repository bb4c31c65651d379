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


UNREADABLE = (
    "AutoModel's loader (PyYAML's safe loader) has no constructor for the tag {}: "
    "it stops on the job config"
)


@pytest.mark.parametrize(
    ("argument", "path", "message"),
    [
        (
            'model.x=!!python/object/apply:os.system ["true"]',
            "model.x",
            UNREADABLE.format("!!python/object/apply:os.system"),
        ),
        ("model.x=!custom x", "model.x", UNREADABLE.format("!custom")),
        ("optimizer=[1, {a: !foo b}]", "optimizer[1].a", UNREADABLE.format("!foo")),
        (
            "model.when=!!timestamp 2020-01-01",
            "model.when",
            "the tag !!timestamp would not reach the job config: it is written from the "
            "value of --set, without tags",
        ),
        (
            "model.names=!!set {a, b}",
            "model.names",
            "the tag !!set would not reach the job config: it is written from the "
            "value of --set, without tags",
        ),
    ],
)
def test_a_tag_on_a_recipe_value_is_refused_naming_the_argument(
    argument: str, path: str, message: str
) -> None:
    """The job config is written from the value: the tag would be dropped without a word."""
    override = parse_override(argument)
    assert override.value is None
    assert [(d.code, d.path, d.line, d.origin and d.origin.label) for d in override.problems] == [
        ("yaml-tag", path, 0, f"--set {argument}")
    ]
    assert override.problems[0].message == message
    assert override.problems[0].hint == (
        "remove the tag and write a plain value (quote it to keep it text)"
    )


@pytest.mark.parametrize("argument", ["model.x=!!str yes", "model.x=!!int '8'", "model.x=yes"])
def test_a_core_tag_is_read_not_refused(argument: str) -> None:
    assert parse_override(argument).problems == ()


def test_a_tag_on_a_launcher_field_is_left_to_the_tag_rule() -> None:
    override = parse_override("slurm.job_name=!custom x")
    assert (override.value, override.problems, override.tags) == ("x", (), {(): "!custom"})
