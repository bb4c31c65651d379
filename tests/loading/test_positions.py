from __future__ import annotations

import pytest

from automodel_launch.loading import load_text
from automodel_launch.loading.yaml import LoadedFile

TEXT = """\
base: &base
  nodes: 2
  time: "1:00:00"
slurm:
  <<: *base
  nodes: 4
  extra_mounts:
    - /a:/a
    - {source: /b, dest: /b}
  nodes: 8
"""


def loaded(text: str = TEXT) -> LoadedFile:
    result = load_text(text, "c.yaml")
    assert result.loaded is not None
    return result.loaded


def test_keys_and_values_where_they_are_written() -> None:
    file = loaded()
    assert file.keys[("slurm",)] == (4, 1)
    assert file.values[("slurm", "extra_mounts", 0)] == (8, 7)
    assert file.keys[("slurm", "extra_mounts", 1, "dest")] == (9, 20)
    assert file.values[("slurm", "extra_mounts", 1, "dest")] == (9, 26)


def test_a_repeated_key_is_its_first_occurrence() -> None:
    file = loaded()
    assert file.keys[("slurm", "nodes")] == (6, 3)
    assert file.data["slurm"]["nodes"] == 4


def test_a_merged_key_sits_where_it_is_written() -> None:
    file = loaded()
    assert file.keys[("slurm", "time")] == (3, 3)
    assert file.values[("slurm", "time")] == (3, 9)


@pytest.mark.parametrize(
    "loc",
    [("nope",), ("slurm", "extra_mounts", 5), ("slurm", "nodes", "deeper"), ("base", 0)],
)
def test_a_loc_the_file_does_not_have(loc: tuple[str | int, ...]) -> None:
    file = loaded()
    assert loc not in file.keys
    assert loc not in file.values
    with pytest.raises(KeyError):
        file.values[loc]


def test_a_list_item_has_no_key() -> None:
    assert ("slurm", "extra_mounts", 0) not in loaded().keys
