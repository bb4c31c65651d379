"""A checkout's commit and whether its AutoModel files differ from it, read from git's
files (git is run here only to make the trees and to say what it would answer)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from automodel_launch.automodel import gitstate, source
from automodel_launch.validation import validate_path
from tests.automodel.standin import standin
from tests.conftest import offline_settings
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


# ------------------------------------------------------------------- hostile git directories
class Waited(Exception):
    """Not an OSError: the code under test cannot take it for a file it could not read."""


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """A wait longer than ``seconds`` (a FIFO opened for reading) fails the test."""

    def late(*args: object) -> None:
        raise Waited(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("where", ["HEAD", "index", "refs/heads/main", "packed-refs"])
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_where_git_keeps_a_file_is_never_waited_on(
    checkout: tuple[Path, str], where: str, kind: str
) -> None:
    root, head = checkout
    git(root, "pack-refs", "--all")  # packed-refs there, the loose ref gone
    path = root / ".git" / where
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")  # endless, if read
    with within(10):
        found = state(root)
    expected = {"HEAD": (None, None), "index": (head, None)}.get(where, (head, False))
    if where == "packed-refs":
        expected = (None, None)  # the branch is nowhere else
    assert (found.commit, found.dirty) == expected


def test_an_index_cut_short_anywhere_claims_nothing(checkout: tuple[Path, str]) -> None:
    root, head = checkout
    git(root, "update-index", "--index-version", "4")
    whole = (root / ".git" / "index").read_bytes()
    for end in range(12, len(whole)):
        (root / ".git" / "index").write_bytes(whole[:end])
        found = state(root)
        assert found.commit == head and found.dirty is not True, end


@pytest.mark.parametrize("ref", ["../outside", "refs/../../outside", "{root}/outside", "refs/"])
def test_head_naming_a_file_outside_refs_is_not_read(checkout: tuple[Path, str], ref: str) -> None:
    root, _ = checkout
    outside = "0123456789abcdef0123456789abcdef01234567"  # a file that looks like a commit
    (root / "outside").write_text(outside + "\n")
    (root / ".git" / "HEAD").write_text(f"ref: {ref.format(root=root)}\n")
    assert state(root) == gitstate.State(None, None)


def test_validate_runs_nothing_the_repository_names(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    head = repo(root, standin(tmp_path / "scratch", ", warmup_steps=0"))
    canary = tmp_path / "ran"
    command = f"touch {canary}"
    hook = root / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\n{command}\n")
    hook.chmod(0o755)
    git(root, "config", "core.fsmonitor", command)
    git(root, "config", "core.pager", command)
    (root / ".gitattributes").write_text("*.py filter=run\n")
    git(root, "config", "filter.run.clean", command)
    step(root).write_text(step(root).read_text() + "# an edit\n")
    job = tmp_path / "job.yaml"
    job.write_text(
        "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
        "step_scheduler:\n  global_batch_size: 8\n  warmup_steps: 10\n"
        f"slurm:\n  nodes: 1\n  repo_root: {root}\n"
    )
    report = validate_path(job, offline_settings())
    assert (report.automodel_why, report.diagnostics) == (
        f"slurm.repo_root at {head[:7]}, dirty", []
    )  # fmt: skip
    assert not canary.exists()


def test_a_package_the_repository_does_not_track_has_no_label(
    checkout: tuple[Path, str], tmp_path: Path
) -> None:
    root, _ = checkout
    venv = root / ".venv" / "lib" / "site-packages"
    standin(venv)  # an installed AutoModel in an ignored virtualenv of the checkout
    (root / ".gitignore").write_text(".venv/\n")
    assert gitstate.state(source.listing(venv / "nemo_automodel")) == gitstate.State(None, None)
