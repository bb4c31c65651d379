"""automodel_launch/snapshot/git.py: what git says, read right, and each failure said."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from automodel_launch.snapshot import SnapshotError
from automodel_launch.snapshot.git import inspect_git
from tests.snapshot.gitrepo import GIT_ENV, git, repo

LIMIT = 10**6


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def test_status_entries_are_read_whatever_the_names(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, {"?? a.py": "a\n", "keep.py": "k\n", "t\tab.py": "t\n"})
    git(root, "mv", "?? a.py", "b.py")  # a rename: "R  b.py\0?? a.py\0"
    (root / "u").write_text("u\n")  # one character: "?? u"
    (root / "newdir").mkdir()
    (root / "newdir/x.py").write_text("x\n")
    tree = inspect_git(root, LIMIT)
    assert tree is not None and tree.changed
    assert sorted(tree.untracked) == ["newdir/x.py", "u"]
    assert tree.tracked == ["b.py", "keep.py", "t\tab.py"]


def test_the_diff_is_binary_safe_and_plain_whatever_the_users_config(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, {"a.py": "a\n"})
    (root / "blob.bin").write_bytes(bytes(range(256)))
    git(root, "add", "blob.bin")
    git(root, "commit", "-qm", "blob")
    (root / "blob.bin").write_bytes(bytes(range(255, -1, -1)))
    (root / "a.py").write_text("b\n")
    for key, value in {
        "color.diff": "always",
        "color.ui": "always",
        "diff.noprefix": "true",
        "diff.mnemonicPrefix": "true",
        "diff.relative": "false",
    }.items():
        git(root, "config", key, value)  # fmt: skip
    tree = inspect_git(root, LIMIT)
    assert tree is not None
    assert b"GIT binary patch" in tree.diff and b"\x1b[" not in tree.diff
    assert b"-a\n+b\n" in tree.diff


def test_a_clean_tree_with_a_detached_head(tmp_path: Path) -> None:
    head = repo(tmp_path / "r", {"a.py": "a\n"})
    git(tmp_path / "r", "checkout", "-q", "--detach")
    tree = inspect_git(tmp_path / "r", LIMIT)
    assert tree is not None
    assert (tree.commit, tree.branch, tree.changed, tree.diff) == (head, None, False, b"")


def test_a_subdirectory_lists_only_its_own_untracked_files(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    repo(root, {"other/a.py": "a\n", "mine/t.py": "t\n"})
    (root / "other/new.py").write_text("n\n")
    (root / "mine/new.py").write_text("n\n")
    tree = inspect_git(root / "mine", LIMIT)
    assert tree is not None and not tree.changed
    assert (tree.tracked, tree.untracked) == (["t.py"], ["new.py"])


def test_the_submitting_shells_git_variables_do_not_redirect_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo(tmp_path / "other", {"elsewhere.py": "e\n"})
    head = repo(tmp_path / "r", {"here.py": "h\n"})
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "other/.git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path / "other"))
    tree = inspect_git(tmp_path / "r", LIMIT)
    assert tree is not None and (tree.commit, tree.tracked) == (head, ["here.py"])


def test_a_directory_in_no_repository_is_none(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert inspect_git(tmp_path / "plain", LIMIT) is None


def test_no_commit_is_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    git(tmp_path / "r", "init", "-q")
    with pytest.raises(SnapshotError) as caught:
        inspect_git(tmp_path / "r", LIMIT)
    assert str(caught.value) == (
        f"{tmp_path / 'r'} is a git tree without a commit: the snapshot records the commit it "
        "was taken from"
    )
    assert caught.value.hint == "commit once, or submit with --no-snapshot to run the live tree"


def test_uncommitted_changes_over_the_limit_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    root = tmp_path / "r"
    repo(root, {"a.py": "a\n"})
    (root / "a.py").write_text("b" * 3_000_000)
    tree = inspect_git(root, 3_100_000)
    assert tree is not None and len(tree.diff) > 3_000_000
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, 2_500_000)
    assert str(caught.value) == (
        f"the uncommitted changes of {root} are 3.0 MB, over the snapshot's 2 MB"
    )
    assert caught.value.hint == (
        "commit them (or stash the large ones), or submit with --no-snapshot"
    )
    size = len(tree.diff)
    assert inspect_git(root, size) is not None  # exactly the limit is within it
    assert list((tmp_path / "tmp").iterdir()) == []  # the diff's temporary file is gone


def test_a_broken_repository_is_said_with_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, {"a.py": "a\n"})
    (root / ".git/index").write_bytes(b"not an index")
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, LIMIT)
    assert str(caught.value).startswith(f"cannot snapshot {root}: git ls-files said: ")
    assert "index" in str(caught.value)
    assert caught.value.hint == (
        "fix the repository, or submit with --no-snapshot to run the live tree"
    )


def test_no_git_is_said_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo(tmp_path / "r", {"a.py": "a\n"})
    (tmp_path / "plain").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert inspect_git(tmp_path / "plain", LIMIT) is None  # no .git above it: git not needed
    with pytest.raises(SnapshotError) as caught:
        inspect_git(tmp_path / "r", LIMIT)
    assert str(caught.value) == (
        f"cannot snapshot {tmp_path / 'r'}: cannot run git: No such file or directory"
    )
    assert caught.value.hint == "install git, or submit with --no-snapshot"


def test_a_conflicted_file_is_listed_once(tmp_path: Path) -> None:
    """``ls-files --stage`` lists a file in conflict once per stage (1, 2, 3)."""
    root = tmp_path / "r"
    repo(root, {"a.py": "base\n", "b.py": "base\n", "c.py": "c\n"})
    git(root, "checkout", "-q", "-b", "other")
    for name in ("a.py", "b.py"):
        (root / name).write_text("other\n")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "main")
    for name in ("a.py", "b.py"):
        (root / name).write_text("mine\n")
    git(root, "commit", "-qam", "mine")
    merged = subprocess.run(["git", "merge", "-q", "other"], cwd=root, capture_output=True)
    assert merged.returncode != 0  # in conflict: a.py and b.py at stages 1, 2 and 3
    tree = inspect_git(root, LIMIT)
    assert tree is not None and tree.changed
    assert tree.tracked == ["a.py", "b.py", "c.py"]


def test_a_dot_git_that_is_no_repository_is_a_plain_directory(tmp_path: Path) -> None:
    (tmp_path / "plain/.git").mkdir(parents=True)
    (tmp_path / "plain/a.py").write_text("a\n")
    assert inspect_git(tmp_path / "plain", LIMIT) is None


def test_the_sizes_in_the_refusal_are_rounded_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,050,000 bytes is 1.1 MB (not 1.0), a 1,500,000-byte limit 2 MB (not 1)."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    root = tmp_path / "r"
    repo(root, {"a.py": "a\n"})
    (root / "a.py").write_text("b" * 1000)
    tree = inspect_git(root, LIMIT)
    assert tree is not None
    overhead = len(tree.diff) - 1000
    (root / "a.py").write_text("b" * (1_050_000 - overhead))
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, 1_000_000)
    assert str(caught.value) == (
        f"the uncommitted changes of {root} are 1.1 MB, over the snapshot's 1 MB"
    )
    (root / "a.py").write_text("b" * (1_600_000 - overhead))
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, 1_500_000)
    assert str(caught.value).endswith("are 1.6 MB, over the snapshot's 2 MB")
