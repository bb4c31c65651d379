"""automodel_launch/loading/tags.py: explicit tags read as PyYAML reads them, or refused.

Tags used to be ignored: ``!custom null`` rendered ``--container-image=null`` and
``!!bool "yes"`` was false where PyYAML (AutoModel's loader) reads true.
"""

from __future__ import annotations

import pytest

from automodel_launch.loading import load_text
from tests.conftest import Validate, brief


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('!!bool "yes"', True),
        ("!!bool Off", False),
        ('!!int "0x10"', 16),
        ('!!int "010"', 8),
        ("!!int 1:30", 90),
        ('!!float "1"', 1.0),
        ("!!null anything", None),
        ("!!str yes", "yes"),
        ("!!str 010", "010"),
    ],
)
def test_core_tags_construct_what_pyyaml_constructs(text: str, value: object) -> None:
    result = load_text(f"a: {text}\n")
    assert result.diagnostics == []
    assert result.loaded is not None
    assert result.loaded.data == {"a": value}
    assert type(result.loaded.data["a"]) is type(value)


def test_an_explicit_str_is_no_yaml11_trap(validate: Validate) -> None:
    assert validate("slurm:\n  account: !!str yes\n  nodes: !!int '2'\n") == []


@pytest.mark.parametrize(
    ("text", "kind"), [("!!bool maybe", "bool"), ("!!int abc", "int"), ('!!float ""', "float")]
)
def test_text_its_core_tag_cannot_read_is_an_error_anywhere(text: str, kind: str) -> None:
    result = load_text(f"model:\n  x: {text}\n")
    assert brief(result.diagnostics) == ["2:6 error[yaml-tag] model.x"]
    assert result.diagnostics[0].message == (
        f"this value is not a YAML 1.1 {kind}, as its tag !!{kind} says: "
        "AutoModel's loader (PyYAML) stops on it"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("!custom null", "!custom"),
        ("!!timestamp 2020-01-01", "!!timestamp"),
        ("!foo {a: 1}", "!foo"),
        ("!!set {a, b}", "!!set"),
    ],
)
def test_other_tags_are_refused_in_launcher_sections(
    validate: Validate, value: str, shown: str
) -> None:
    diags = validate(f"slurm:\n  container_image: {value}\n")
    assert brief(diags)[0] == "2:20 error[yaml-tag] slurm.container_image"
    assert diags[0].message == (
        f"the tag {shown} is not understood here: launcher fields take plain YAML values"
    )
    assert diags[0].hint == "remove the tag (quote the value to keep it text)"


def test_recipe_sections_carry_the_tags_pyyamls_safe_loader_constructs(
    validate: Validate,
) -> None:
    text = (
        "model:\n  when: !!timestamp 2020-01-01\n  blob: !!binary aGVsbG8=\n"
        "  names: !!set {a, b}\n  order: !!omap [a: 1]\n  pairs: !!pairs [a: 1]\n"
    )
    assert validate(text) == []


@pytest.mark.parametrize(
    ("value", "shown", "column"),
    [
        ('!!python/object/apply:os.system ["true"]', "!!python/object/apply:os.system", 6),
        ("!custom x", "!custom", 6),
        ("!foo {a: 1}", "!foo", 6),
        ("!!python/str x", "!!python/str", 6),
        ("!!set [a, b]", "!!set", 6),  # a set is a mapping to PyYAML
        ("!!omap {a: 1}", "!!omap", 6),  # an omap a list of one-key mappings
        ("!!timestamp {a: 1}", "!!timestamp", 6),
        ("[1, !!python/name:os.system x]", "!!python/name:os.system", 10),
    ],
)
def test_a_tag_pyyamls_safe_loader_stops_on_is_an_error_in_recipe_sections_too(
    validate: Validate, value: str, shown: str, column: int
) -> None:
    """AutoModel reads the job config with yaml.safe_load: it stops on any other tag."""
    diags = validate(f"model:\n  x: {value}\n")
    assert len(diags) == 1
    assert brief(diags)[0].startswith(f"2:{column} error[yaml-tag] model.x")
    assert diags[0].message == (
        f"AutoModel's loader (PyYAML's safe loader) has no constructor for the tag {shown}: "
        "it stops on the job config"
    )
    assert diags[0].hint == "remove the tag and write a plain value (quote it to keep it text)"
