"""What was read from a tree, kept in the user's cache directory: named by the content
read, written whole or not at all, and never trusted when read back."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.automodel import cache, source, table, which
from automodel_launch.automodel.versions import KNOWN
from tests.automodel.standin import standin

Mutation = Callable[[dict[str, Any]], object]


@pytest.fixture
def package(tmp_path: Path) -> Path:
    standin(tmp_path / "fork", ", warmup_steps=0")
    return tmp_path / "fork" / "nemo_automodel"


@pytest.fixture
def entry(package: Path) -> cache.Entry:
    """What the stand-in's source gives, read (and stored in the test's cache directory)."""
    which._MEMO.clear()
    return which.read_tree(source.listing(package), None)


def key(package: Path) -> str:
    return cache.key(source.listing(package))


def step(package: Path) -> Path:
    return package / "components" / "training" / "step_scheduler.py"


# ------------------------------------------------------------------- the key: what was read
def test_the_key_is_the_same_for_the_same_files_and_other_files_do_not_count(
    package: Path,
) -> None:
    first = key(package)
    assert len(first) == 64 and key(package) == first
    (package / "README.md").write_text("not read\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.py").write_text("not read either\n")
    assert key(package) == first


@pytest.mark.parametrize("change", ["edit", "same size", "touch", "add", "remove", "rename"])
def test_any_change_to_a_python_file_is_another_key(package: Path, change: str) -> None:
    first = key(package)
    path = step(package)
    if change == "edit":
        path.write_text(path.read_text() + "# more\n")
    elif change == "same size":
        text = path.read_text()
        path.write_text(text.replace("max_steps", "max_stepz"))
        assert path.stat().st_size == len(text)
    elif change == "touch":
        os.utime(path, ns=(1, 1))
    elif change == "add":
        (package / "new.py").write_text("")
    elif change == "remove":
        path.unlink()
    else:
        path.rename(path.with_name("scheduler.py"))
    assert key(package) != first


def test_the_same_files_elsewhere_are_another_key(package: Path, tmp_path: Path) -> None:
    standin(tmp_path / "copy", ", warmup_steps=0")
    other = tmp_path / "copy" / "nemo_automodel"
    for path in sorted(other.rglob("*.py")):  # the very sizes and times
        twin = package / path.relative_to(other)
        os.utime(path, ns=(twin.stat().st_atime_ns, twin.stat().st_mtime_ns))
    assert [f[1:] for f in source.listing(other).files] == [
        f[1:] for f in source.listing(package).files
    ]
    assert key(other) != key(package)


# ------------------------------------------------------------------- where, written whole
@pytest.mark.parametrize("value", [None, "", "relative/cache", "/an/absolute/cache"])
def test_the_directory_is_platformdirs_user_cache_directory(
    monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    import platformdirs

    if value is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", value)
    expected = platformdirs.user_cache_path("automodel-launch") / "automodel"
    assert cache.directory() == expected
    if value == "/an/absolute/cache":
        assert expected == Path(value, "automodel-launch", "automodel")


def test_an_entry_is_written_and_read_back_as_it_was(entry: cache.Entry) -> None:
    folder = cache.directory()
    assert sorted(p.name for p in folder.iterdir()) == [f"{entry.key}.json"]
    assert folder.stat().st_mode & 0o777 == 0o700
    assert cache.load(entry.key) == entry
    assert entry.nearest == entry.table["version"] == "main"


def test_a_write_that_fails_leaves_no_part_and_the_entry_before_it(
    entry: cache.Entry, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = cache.directory()
    before = (folder / f"{entry.key}.json").read_bytes()
    changed = cache.Entry(entry.key, "0.8.0", {**entry.table, "version": "0.8.0"})

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    cache.store(changed)  # no error: the next run reads the tree again
    monkeypatch.undo()
    assert sorted(p.name for p in folder.iterdir()) == [f"{entry.key}.json"]
    assert (folder / f"{entry.key}.json").read_bytes() == before


def test_a_write_stopped_midway_leaves_no_part_and_stops(
    entry: cache.Entry, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = cache.directory()
    (folder / f"{entry.key}.json").unlink()

    def stopped(self: cache.Entry) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(cache.Entry, "as_json", stopped)
    with pytest.raises(KeyboardInterrupt):
        cache.store(entry)
    assert list(folder.iterdir()) == []


def test_only_the_newest_entries_are_kept(entry: cache.Entry, tmp_path: Path) -> None:
    folder = tmp_path / "kept"
    for n in range(cache.KEPT + 3):
        cache.store(cache.Entry(f"{n:064x}", entry.nearest, entry.table), folder)
        os.utime(folder / f"{n:064x}.json", (n, n))
    left = sorted(int(p.stem, 16) for p in folder.glob("*.json"))
    assert left == list(range(3, cache.KEPT + 3))


# ------------------------------------------------------------------- never trusted
def test_every_shipped_tables_facts_pass_the_check() -> None:
    for version in KNOWN:
        data = table.read_data(version)
        facts = {k: v for k, v in data.items() if k in cache._TABLE_KEYS}
        assert cache.checked(facts) is facts


def rewrite(entry: cache.Entry, mutate: Mutation) -> None:
    data = json.loads(entry.as_json())
    mutate(data)
    (cache.directory() / f"{entry.key}.json").write_text(json.dumps(data))


def _set(where: str, value: object) -> Mutation:
    """``where``: ``a/b/c`` inside the entry's JSON, set to ``value``."""

    def mutate(data: dict[str, Any]) -> None:
        *path, last = where.split("/")
        for part in path:
            data = data[part]
        data[last] = value

    return mutate


STEP = "nemo_automodel.components.training.step_scheduler.StepScheduler"
DAMAGES: dict[str, Mutation] = {
    "another format": _set("format", 2),
    "another key": _set("key", "0" * 64),
    "a field more": _set("extra", 1),
    "nearest not a release": _set("nearest", "anything"),
    "nearest not text": _set("nearest", 7),
    "nearest not the table's": _set("nearest", "0.7.0"),
    "a table field more": _set("table/digest", "x"),
    "the table's format": _set("table/format", 0),
    "version not text": _set("table/version", None),
    "covers not texts": _set("table/covers", [1]),
    "callables not a mapping": _set("table/callables", ["a"]),
    "a callable not text": _set(f"table/callables/{STEP}", ["global_batch_size"]),
    "sections not a mapping": _set("table/sections", []),
    "a section group": _set("table/sections/*", "x"),
    "a section without target": _set("table/sections/*", {"s": {"supplied": ""}}),
    "a section's choose": _set("table/sections/*", {"s": {"target": "t", "choose": 1}}),
    "a section's choices": _set("table/sections/*", {"s": {"target": "t", "choices": []}}),
    "typed not a mapping": _set("table/typed", []),
    "a typed config": _set("table/typed", {"model.backend": {"target": "t"}}),
    "a typed config's also": _set("table/typed", {"k": {"target": "t", "within": "w", "also": ""}}),
    "nemo_run_refuses": _set("table/nemo_run_refuses", "yes"),
    "not an object": lambda data: data.clear(),
}


@pytest.mark.parametrize("damage", DAMAGES, ids=list(DAMAGES))
def test_an_entry_not_what_it_claims_is_read_as_missing(entry: cache.Entry, damage: str) -> None:
    rewrite(entry, DAMAGES[damage])
    assert cache.load(entry.key) is None


def test_an_entry_whose_parts_disagree_is_never_used_and_the_tree_is_read_again(
    entry: cache.Entry, package: Path
) -> None:
    lying = copy.deepcopy(entry.table)
    lying["callables"][STEP] = "anything **"  # well-formed, but not of the release it names
    rewrite(entry, lambda data: data.update(nearest="0.7.0", table=lying))
    which._MEMO.clear()
    again = which.read_tree(source.listing(package), None)
    assert again == entry
    assert cache.load(entry.key) == entry


def test_a_link_an_oversized_entry_or_a_directory_is_not_read(
    entry: cache.Entry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = cache.directory() / f"{entry.key}.json"
    assert cache.load(entry.key) == entry
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", path.stat().st_size - 1)
    assert cache.load(entry.key) is None
    monkeypatch.undo()
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)  # whoever wrote the link chose what is read
    assert cache.load(entry.key) is None
    path.unlink()
    path.mkdir()
    assert cache.load(entry.key) is None
