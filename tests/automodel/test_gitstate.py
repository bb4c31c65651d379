"""A checkout's commit and whether its AutoModel files differ from it, read from git's
files (git is run here only to make the trees and to say what it would answer)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from automodel_launch.automodel import gitstate, source
from tests.automodel.standin import standin
from tests.snapshot.gitrepo import git, repo


def state(root: Path) -> gitstate.State:
    return gitstate.state(source.listing(root / "nemo_automodel"))


@pytest.fixture
def checkout(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "checkout"
    return root, repo(root, standin(tmp_path / "scratch"))


def step(root: Path) -> Path:
    return root / "nemo_automodel" / "components" / "training" / "step_scheduler.py"


def test_a_clean_checkout_is_at_its_commit_and_a_touch_is_no_change(
    checkout: tuple[Path, str],
) -> None:
    root, head = checkout
    assert state(root) == gitstate.State(head, False)
    assert state(root).label() == head[:7]
    os.utime(step(root), (1, 1))  # same content, another time: git's own check agrees
    assert git(root, "status", "--porcelain") == ""
    assert state(root) == gitstate.State(head, False)


@pytest.mark.parametrize("change", ["edit", "add", "remove"])
def test_a_changed_added_or_removed_file_is_dirty(checkout: tuple[Path, str], change: str) -> None:
    root, head = checkout
    if change == "edit":
        step(root).write_text(step(root).read_text() + "# more\n")
    elif change == "add":
        (root / "nemo_automodel" / "new.py").write_text("")
    else:
        step(root).unlink()
    assert state(root) == gitstate.State(head, True)
    assert state(root).label() == f"{head[:7]}, dirty"


def test_other_files_than_the_packages_python_do_not_count(checkout: tuple[Path, str]) -> None:
    root, head = checkout
    (root / "README.md").write_text("changed\n")
    (root / "nemo_automodel" / "notes.txt").write_text("not python\n")
    assert state(root) == gitstate.State(head, False)


def test_index_version_4_packed_refs_and_a_detached_head(checkout: tuple[Path, str]) -> None:
    root, head = checkout
    git(root, "update-index", "--index-version", "4")
    git(root, "pack-refs", "--all")
    assert not (root / ".git" / "refs" / "heads" / "main").exists()
    assert state(root) == gitstate.State(head, False)
    git(root, "checkout", "-q", "--detach")
    assert state(root) == gitstate.State(head, False)


def test_a_worktree_names_its_git_directory(checkout: tuple[Path, str], tmp_path: Path) -> None:
    root, head = checkout
    git(root, "worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    assert (tmp_path / "wt" / ".git").is_file()
    assert state(tmp_path / "wt") == gitstate.State(head, False)


def test_no_repository_or_an_unreadable_index_claims_nothing(
    checkout: tuple[Path, str], tmp_path: Path
) -> None:
    standin(tmp_path / "plain")
    assert state(tmp_path / "plain") == gitstate.State(None, None)
    root, head = checkout
    (root / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x09")  # a version git never wrote
    assert state(root) == gitstate.State(head, None)
    assert state(root).label() == head[:7]
