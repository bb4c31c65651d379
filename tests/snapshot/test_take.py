"""automodel_launch/snapshot: which files a snapshot holds, its limits, its record."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from automodel_launch.snapshot import CodeOptions, SnapshotError
from automodel_launch.snapshot.take import copy_file, take
from tests.snapshot.gitrepo import GIT_ENV, git, repo

FILES = {"pkg/__init__.py": "", "pkg/train.py": "print('v1')\n", "README.md": "hi\n"}


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def staged(tmp_path: Path) -> Path:
    """The job directory's staging directory, as write_job_dir gives it."""
    (tmp_path / "job").mkdir()
    return tmp_path / "job"


def written(snapshot_dir: Path) -> dict[str, str]:
    return {
        p.relative_to(snapshot_dir).as_posix(): p.read_text()
        for p in sorted(snapshot_dir.rglob("*")) if p.is_file()
    }  # fmt: skip


def test_a_clean_tree_gives_head_and_a_record_without_diff(tmp_path: Path) -> None:
    head = repo(tmp_path / "r", FILES)
    snapshot = take(tmp_path / "r", CodeOptions())
    names = snapshot.write_into(staged(tmp_path))
    assert sorted(names) == ["code/README.md", "code/pkg/__init__.py", "code/pkg/train.py"]
    assert written(tmp_path / "job/code") == FILES
    record = snapshot.record(tmp_path / "job", {})
    assert record.model_dump() == {
        "root": str(tmp_path / "r"), "snapshot": str(tmp_path / "job/code"), "commit": head,
        "branch": "main", "dirty": False, "diff": None, "diff_sha256": None, "untracked": (),
        "untracked_included": False, "skipped": (), "more_names": 0, "files": 3,
        "bytes": 15,
    }  # fmt: skip


def test_uncommitted_changes_are_copied_and_their_diff_kept_beside(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, FILES)
    (root / "pkg/train.py").write_text("print('v2')\n")  # unstaged
    (root / "new.py").write_text("x = 1\n")
    git(root, "add", "new.py")  # staged, never committed: tracked
    (root / "README.md").unlink()  # deleted
    (root / "scratch.txt").write_text("notes\n")  # untracked
    snapshot = take(root, CodeOptions())
    snapshot.write_into(staged(tmp_path))
    assert written(tmp_path / "job/code") == {
        "new.py": "x = 1\n", "pkg/__init__.py": "", "pkg/train.py": "print('v2')\n",
    }  # fmt: skip
    diff = (tmp_path / "job/code.diff").read_bytes()
    assert b"+print('v2')" in diff and b"+x = 1" in diff and b"deleted file" in diff
    record = snapshot.record(tmp_path / "job", {})
    assert record.dirty and record.untracked == ("scratch.txt",)
    assert record.diff == str(tmp_path / "job/code.diff")
    assert record.diff_sha256 == hashlib.sha256(diff).hexdigest()
    # the diff applied to HEAD gives the snapshot
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    git(clone, "apply", str(tmp_path / "job/code.diff"))
    assert (clone / "pkg/train.py").read_text() == "print('v2')\n"
    assert not (clone / "README.md").exists() and (clone / "new.py").read_text() == "x = 1\n"


def test_untracked_files_are_copied_only_when_asked(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, {**FILES, ".gitignore": "*.log\n"})
    (root / "extra.py").write_text("y = 2\n")
    (root / "run.log").write_text("ignored\n")
    snapshot = take(root, CodeOptions(untracked=True))
    snapshot.write_into(staged(tmp_path))
    assert (tmp_path / "job/code/extra.py").read_text() == "y = 2\n"
    assert not (tmp_path / "job/code/run.log").exists()
    record = snapshot.record(tmp_path / "job", {})
    assert record.untracked == ("extra.py",) and record.untracked_included and record.dirty
    assert record.diff is None  # nothing tracked changed


def test_require_clean_refuses_a_dirty_tree_and_a_plain_directory(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, FILES)
    (root / "scratch.txt").write_text("untracked does not make it dirty\n")
    assert not take(root, CodeOptions(require_clean=True)).dirty
    (root / "pkg/train.py").write_text("print('v2')\n")
    with pytest.raises(SnapshotError) as caught:
        take(root, CodeOptions(require_clean=True))
    assert str(caught.value) == (
        f"--require-clean: {root} has uncommitted changes (git status lists them)"
    )
    assert caught.value.hint == "commit or stash them, or submit without --require-clean"
    git(root, "checkout", "pkg/train.py")
    assert not take(root, CodeOptions(require_clean=True)).dirty
    with pytest.raises(SnapshotError) as caught:
        take(root, CodeOptions(require_clean=True, untracked=True))
    assert str(caught.value) == (
        f"--require-clean: {root} has untracked files, which --snapshot-untracked copies "
        "(1, git status lists them)"
    )
    assert caught.value.hint == "commit or remove them, or submit without --snapshot-untracked"
    (tmp_path / "plain").mkdir()
    with pytest.raises(SnapshotError) as caught:
        take(tmp_path / "plain", CodeOptions(require_clean=True))
    assert str(caught.value) == (
        f"--require-clean: {tmp_path / 'plain'} is not a git tree, so whether it is clean is "
        "unknown"
    )
    assert caught.value.hint == "submit it from a git checkout, or without --require-clean"


def test_a_subdirectory_of_a_repository_is_snapshotted_alone(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    repo(root, {"other/a.py": "a\n", "Automodel/pkg/t.py": "t\n"})
    (root / "Automodel/pkg/t.py").write_text("t2\n")
    (root / "other/a.py").write_text("a2\n")
    (root / "Automodel/u.py").write_text("u\n")
    snapshot = take(root / "Automodel", CodeOptions())
    snapshot.write_into(staged(tmp_path))
    assert written(tmp_path / "job/code") == {"pkg/t.py": "t2\n"}
    diff = (tmp_path / "job/code.diff").read_text()
    assert "a/pkg/t.py" in diff and "other" not in diff
    assert snapshot.record(tmp_path / "job", {}).untracked == ("u.py",)


def test_large_files_submodules_and_job_directories_are_left_out(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, {**FILES, "big.bin": "x" * 2000, "jobs/old_1/manifest.json": "{}",
                "jobs/old_1/job_config.yaml": "a: 1\n", "web/manifest.json": "{}"})  # fmt: skip
    sub = tmp_path / "sub"
    repo(sub, {"s.py": "s\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor")
    (root / "mine/jobs_here").mkdir(parents=True)
    (root / "mine/jobs_here/x.py").write_text("x\n")
    git(root, "add", "mine")
    snapshot = take(root, CodeOptions(max_file_bytes=1000), [root / "mine"])
    assert sorted(snapshot.files) == [".gitmodules", "README.md", "pkg/__init__.py",
                                      "pkg/train.py", "web/manifest.json"]  # fmt: skip
    assert snapshot.skipped == ["vendor/ (a submodule)", "jobs/old_1/ (a job directory)",
                                "mine/ (a job directory)", "big.bin (0.0 MB)"]  # fmt: skip
    record = snapshot.record(tmp_path / "job", {})
    assert record.skipped == tuple(snapshot.skipped) and record.more_names == 0


def test_a_snapshot_over_the_limit_is_refused_naming_the_fix(tmp_path: Path) -> None:
    repo(tmp_path / "r", {"a.py": "a" * 600, "b.py": "b" * 600})
    with pytest.raises(SnapshotError) as caught:
        take(tmp_path / "r", CodeOptions(max_bytes=1000))
    assert str(caught.value) == (
        f"the snapshot of {tmp_path / 'r'} would be 0.0 MB, over the limit of 0 MB"
    )
    assert caught.value.hint == (
        "ignore the large files the job does not need (.gitignore), or submit with "
        "--no-snapshot to run the live tree"
    )
    with pytest.raises(SnapshotError) as caught:
        take(tmp_path / "r", CodeOptions(max_files=1))
    assert str(caught.value) == f"{tmp_path / 'r'} holds 2 files to snapshot, over the limit of 1"
    assert caught.value.hint == (
        "ignore what the job does not need (.gitignore), or submit with --no-snapshot to run "
        "the live tree"
    )
    # exactly at each limit is within it
    exact = take(tmp_path / "r", CodeOptions(max_files=2, max_bytes=1200, max_file_bytes=600))
    assert exact.files == ["a.py", "b.py"] and exact.size == 1200 and exact.skipped == []


def test_a_plain_directory_honours_its_gitignore_and_keeps_links(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    for name in ("a.py", "data/x.bin", "sub/data/y.py", "out/z.py", "notes.log", "keep/out",
                 "__pycache__/a.pyc", ".venv/lib.py", "b.pyc", "# comment", "!keep.txt",
                 "docs/a.md", "x/docs/b.md", "deep/er/q.py", "real/r.py"):  # fmt: skip
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    (root / ".gitignore").write_bytes(
        b"# comment\n*.log\n/data\nout/\n!notes.log\n!keep.txt\n\n  \ndocs/*.md\nq.py\n\xff\n"
    )
    os.symlink("a.py", root / "link.py")
    os.symlink("real", root / "linkdir")
    os.mkfifo(root / "pipe")
    snapshot = take(root, CodeOptions())
    assert snapshot.git is None
    assert snapshot.files == [
        "!keep.txt", "# comment", ".gitignore", "a.py", "keep/out", "link.py", "linkdir",
        "real/r.py", "sub/data/y.py", "x/docs/b.md",
    ]  # fmt: skip
    assert snapshot.skipped == ["pipe (not a file)"]
    snapshot.write_into(staged(tmp_path))
    assert os.readlink(tmp_path / "job/code/link.py") == "a.py"
    record = snapshot.record(tmp_path / "job", {})
    assert (record.commit, record.branch, record.dirty, record.diff) == (None, None, False, None)


def test_a_folder_its_repository_does_not_track_is_a_plain_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo(home, {".gitignore": "work/\n", "dotfile": "x\n"})
    (home / "work/Automodel").mkdir(parents=True)
    (home / "work/Automodel/a.py").write_text("a\n")
    snapshot = take(home / "work/Automodel", CodeOptions())
    assert snapshot.git is None and snapshot.files == ["a.py"]


def test_a_repository_without_a_commit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    git(tmp_path / "r", "init", "-q")
    with pytest.raises(SnapshotError, match="is a git tree without a commit"):
        take(tmp_path / "r", CodeOptions())


def test_names_in_the_record_hold_no_credential(tmp_path: Path) -> None:
    token = "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB"
    root = tmp_path / "r"
    repo(root, FILES, branch=f"fix-{token}")
    (root / f"{token}.txt").write_text("untracked\n")
    (root / "secret-in-env.txt").write_text("x\n")
    snapshot = take(root, CodeOptions())
    record = snapshot.record(tmp_path / "job", {"MY_API_KEY": "secret-in-env"})
    text = record.model_dump_json()
    assert token not in text and "secret-in-env" not in text
    assert record.branch == "fix-***"
    assert sorted(record.untracked) == ["***.txt", "***.txt"]


def test_executable_bits_are_kept(tmp_path: Path) -> None:
    root = tmp_path / "r"
    repo(root, {"run.sh": "#!/bin/sh\n", "lib/a.py": "a\n"})
    (root / "run.sh").chmod(0o700)
    (root / "lib/a.py").chmod(0o600)
    git(root, "add", "run.sh")
    old = os.umask(0o002)
    try:
        take(root, CodeOptions()).write_into(staged(tmp_path))
    finally:
        os.umask(old)
    modes = {p.relative_to(tmp_path / "job/code").as_posix(): p.stat().st_mode & 0o777
             for p in (tmp_path / "job/code").rglob("*")}  # fmt: skip
    assert modes == {"run.sh": 0o755, "lib": 0o755, "lib/a.py": 0o644}
    assert (tmp_path / "job/code").stat().st_mode & 0o777 == 0o755
    assert subprocess.run([str(tmp_path / "job/code/run.sh")], check=False).returncode == 0


def test_a_file_replaced_since_it_was_listed_is_not_copied(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")  # never opened for writing: a blocking open would hang
    with pytest.raises(OSError) as caught:
        copy_file(tmp_path / "fifo", tmp_path / "copy")
    assert str(caught.value) == f"{tmp_path / 'fifo'} is no longer a regular file"
    (tmp_path / "real").write_text("r")
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(OSError):  # a link is not followed
        copy_file(tmp_path / "link", tmp_path / "copy2")
    assert not (tmp_path / "copy").exists() and not (tmp_path / "copy2").exists()


def test_sizes_in_megabytes_of_a_million_bytes(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "big.bin").write_bytes(b"x" * 2_350_000)
    snapshot = take(root, CodeOptions(max_file_bytes=2_000_000))
    assert snapshot.skipped == ["big.bin (2.4 MB)"]
    with pytest.raises(SnapshotError) as caught:
        take(root, CodeOptions(max_bytes=1_500_000))
    assert str(caught.value) == f"the snapshot of {root} would be 2.4 MB, over the limit of 2 MB"


def test_names_past_the_records_list_are_counted(tmp_path: Path) -> None:
    from automodel_launch.snapshot.git import GitTree
    from automodel_launch.snapshot.record import MAX_NAMES
    from automodel_launch.snapshot.take import Snapshot

    git_tree = GitTree("4f2a9c1e07b3d2f8a6c5e4b3a2f1e0d9c8b7a6f5", "main",
                       untracked=[f"u{i}" for i in range(MAX_NAMES + 1)])  # fmt: skip
    skipped = [f"s{i} (not a file)" for i in range(MAX_NAMES + 3)]
    snapshot = Snapshot(tmp_path, [], 0, git_tree, skipped=skipped)
    record = snapshot.record(tmp_path / "job", {})
    assert (len(record.untracked), len(record.skipped), record.more_names) == (
        MAX_NAMES, MAX_NAMES, 4
    )  # fmt: skip


def test_job_directories_of_several_bases(tmp_path: Path) -> None:
    """The root itself given as a base (its job directories are found by their files)
    does not end the look at the bases after it."""
    root = tmp_path / "plain"
    for name in ("a.py", "runs/x/out.txt", "jobs/old/manifest.json", "jobs/old/job_config.yaml"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    snapshot = take(root, CodeOptions(), [root, root / "runs"])
    assert snapshot.files == ["a.py"]
    assert snapshot.skipped == ["jobs/old/ (a job directory)", "runs/ (a job directory)"]


def test_a_copy_never_writes_through_what_is_there(tmp_path: Path) -> None:
    """The copy is created, never opened: a link put where it goes is not followed."""
    (tmp_path / "a.py").write_text("a\n")
    os.symlink(tmp_path / "elsewhere.py", tmp_path / "copy.py")
    with pytest.raises(FileExistsError):
        copy_file(tmp_path / "a.py", tmp_path / "copy.py")
    assert not (tmp_path / "elsewhere.py").exists()


def test_a_file_that_shrank_since_it_was_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What it holds now is copied, with the mode of its kind whatever the umask."""
    source = tmp_path / "run.sh"
    source.write_text("echo hi\n")
    source.chmod(0o700)
    measured = os.fstat

    def larger(fd: int) -> os.stat_result:
        info = list(measured(fd))
        info[6] += 100  # st_size: what it held when it was listed
        return os.stat_result(info)

    monkeypatch.setattr(os, "fstat", larger)
    old = os.umask(0o077)
    try:
        copy_file(source, tmp_path / "copy.sh")
    finally:
        os.umask(old)
    assert (tmp_path / "copy.sh").read_text() == "echo hi\n"
    assert (tmp_path / "copy.sh").stat().st_mode & 0o777 == 0o755
