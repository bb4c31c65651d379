"""automodel_launch/snapshot/reuse: a rerun's ``code/``, linked from the snapshot an
earlier job ran (written in process: the job directory is made by hand as submit makes it)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from automodel_launch.snapshot import SnapshotError
from automodel_launch.snapshot.record import CodeRecord
from automodel_launch.snapshot.reuse import Reused, reused

DIFF_SHA = "0" * 64


def old_job(tmp_path: Path) -> Path:
    """A first job's directory: ``code/`` with a package, an executable, a link to a file,
    a link to a folder (relative: ``lib -> pkg``), a ``__pycache__`` and ``code.diff``."""
    job = tmp_path / "old"
    code = job / "code"
    (code / "pkg/sub").mkdir(parents=True)
    (code / "pkg/__init__.py").write_text("")
    (code / "pkg/sub/deep.py").write_text("DEEP = 1\n")
    (code / "run.sh").write_bytes(b"#!/bin/sh\necho \xff\n")
    (code / "run.sh").chmod(0o755)
    (code / "train.py").write_text("print('first')\n")
    (code / "train.py").chmod(0o644)
    os.symlink("train.py", code / "entry.py")
    os.symlink("pkg", code / "lib")
    os.symlink("/nowhere/at/all", code / "gone")  # dangling: still a link
    (code / "__pycache__").mkdir()
    (code / "__pycache__/train.cpython-312.pyc").write_bytes(b"\0")
    (code / "pkg/__pycache__").mkdir()
    (code / "pkg/__pycache__/x.pyc").write_bytes(b"\0")
    (job / "code.diff").write_bytes(b"diff --git a/train.py b/train.py\n")
    return job


def record(job: Path, *, diff: bool = True) -> CodeRecord:
    return CodeRecord(
        root="/src/tree", snapshot=str(job / "code"), commit="a" * 40, dirty=diff,
        diff=str(job / "code.diff") if diff else None, diff_sha256=DIFF_SHA if diff else None,
        files=5, bytes=40,
    )  # fmt: skip


def new_job(tmp_path: Path) -> Path:
    (tmp_path / "new").mkdir()
    return tmp_path / "new"


EXPECTED = [
    "code/entry.py", "code/gone", "code/lib", "code/run.sh", "code/train.py",
    "code/pkg/__init__.py", "code/pkg/sub/deep.py", "code.diff",
]  # fmt: skip


def test_a_link_to_a_folder_stays_a_link_with_its_target(tmp_path: Path) -> None:
    old = old_job(tmp_path)
    new = new_job(tmp_path)
    names = Reused("J1", old / "code", record(old)).write_into(new)
    lib = new / "code/lib"
    assert lib.is_symlink() and os.readlink(lib) == "pkg"
    assert names == EXPECTED
    # reached through the link: the new job's own folder, not the old one's
    assert (lib / "sub/deep.py").read_text() == "DEEP = 1\n"
    assert lib.resolve() == (new / "code/pkg").resolve()
    assert sorted(p.name for p in lib.iterdir()) == ["__init__.py", "sub"]


def test_files_are_hard_links_and_file_links_stay_links(tmp_path: Path) -> None:
    old = old_job(tmp_path)
    new = new_job(tmp_path)
    Reused("J1", old / "code", record(old)).write_into(new)
    code = new / "code"
    for name in ("train.py", "run.sh", "pkg/sub/deep.py"):
        assert (code / name).stat().st_ino == (old / "code" / name).stat().st_ino
    assert (new / "code.diff").stat().st_ino == (old / "code.diff").stat().st_ino
    assert os.readlink(code / "entry.py") == "train.py"
    assert os.readlink(code / "gone") == "/nowhere/at/all"
    assert stat.S_IMODE(code.stat().st_mode) == 0o755
    assert stat.S_IMODE((code / "pkg").stat().st_mode) == 0o755
    assert stat.S_IMODE((code / "pkg/sub").lstat().st_mode) == 0o755
    # the first job's compiled files are not code
    assert not (code / "__pycache__").exists() and not (code / "pkg/__pycache__").exists()


def test_files_are_copied_when_they_cannot_be_linked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = old_job(tmp_path)
    new = new_job(tmp_path)

    def cross_device(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(os, "link", cross_device)
    names = Reused("J1", old / "code", record(old)).write_into(new)
    assert names == EXPECTED
    for name in ("code/train.py", "code/run.sh", "code/pkg/sub/deep.py", "code.diff"):
        copy, source = (new / name).lstat(), (old / name).lstat()
        assert (new / name).read_bytes() == (old / name).read_bytes()
        assert stat.S_ISREG(copy.st_mode)
        assert stat.S_IMODE(copy.st_mode) == stat.S_IMODE(source.st_mode)
        assert copy.st_ino != source.st_ino
    assert stat.S_IMODE((new / "code/run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((new / "code/train.py").stat().st_mode) == 0o644
    assert os.readlink(new / "code/lib") == "pkg"
    assert os.readlink(new / "code/entry.py") == "train.py"


def test_what_is_no_file_nor_link_is_left_out_and_not_listed(tmp_path: Path) -> None:
    old = old_job(tmp_path)
    os.mkfifo(old / "code/pipe")
    new = new_job(tmp_path)
    names = Reused("J1", old / "code", record(old)).write_into(new)
    assert names == EXPECTED
    assert not (new / "code/pipe").exists()


def test_the_diff_is_linked_only_when_the_record_names_one_and_it_is_a_file(
    tmp_path: Path,
) -> None:
    old = old_job(tmp_path)
    names = Reused("J1", old / "code", record(old, diff=False)).write_into(new_job(tmp_path))
    assert "code.diff" not in names and not (tmp_path / "new/code.diff").exists()
    (old / "code.diff").unlink()
    os.symlink("/etc/passwd", old / "code.diff")
    (tmp_path / "other").mkdir()
    names = Reused("J1", old / "code", record(old)).write_into(tmp_path / "other")
    assert "code.diff" not in names and not (tmp_path / "other/code.diff").is_symlink()
    (old / "code.diff").unlink()  # named by the record, but gone
    (tmp_path / "third").mkdir()
    names = Reused("J1", old / "code", record(old)).write_into(tmp_path / "third")
    assert names == EXPECTED[:-1] and not (tmp_path / "third/code.diff").exists()


def test_a_snapshot_with_too_many_files_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from automodel_launch.snapshot import reuse

    old = old_job(tmp_path)
    monkeypatch.setattr(reuse, "MAX_FILES", 7)  # the old snapshot holds 7 files and links
    Reused("J1", old / "code", record(old)).write_into(new_job(tmp_path))
    monkeypatch.setattr(reuse, "MAX_FILES", 6)
    (tmp_path / "other").mkdir()
    with pytest.raises(SnapshotError) as caught:
        Reused("J1", old / "code", record(old)).write_into(tmp_path / "other")
    assert str(caught.value) == (
        f"the snapshot of job J1 ({old}/code) holds more than 6 files: it is not one "
        "automodel-launch wrote"
    )


def test_the_record_names_the_new_copy(tmp_path: Path) -> None:
    old = old_job(tmp_path)
    snapshot = Reused("J1", old / "code", record(old))
    assert snapshot.dirty
    at = tmp_path / "new"
    assert snapshot.record(at, {"HF_TOKEN": "x"}) == record(old).model_copy(
        update={"snapshot": str(at / "code"), "diff": str(at / "code.diff")}
    )
    clean = Reused("J1", old / "code", record(old, diff=False))
    assert not clean.dirty
    assert clean.record(at, {}).diff is None
    assert clean.record(at, {}).snapshot == str(at / "code")


def test_reused_finds_the_snapshot_of_a_job_or_of_its_sweep(tmp_path: Path) -> None:
    old = old_job(tmp_path)
    assert reused("J1", old, None, point=False) is None
    found = reused("J1", old, record(old), point=False)
    assert found == Reused("J1", old / "code", record(old))
    point = old / "points/3"
    point.mkdir(parents=True)
    assert reused("J1", point, record(old), point=True) == Reused("J1", old / "code", record(old))


@pytest.mark.parametrize("kind", ["gone", "file", "link"])
def test_a_snapshot_that_is_gone_is_one_error(tmp_path: Path, kind: str) -> None:
    job = tmp_path / "old"
    job.mkdir()
    if kind == "file":
        (job / "code").write_text("")
    elif kind == "link":
        (tmp_path / "elsewhere").mkdir()
        os.symlink(tmp_path / "elsewhere", job / "code")
    with pytest.raises(SnapshotError) as caught:
        reused("J1", job, record(job), point=False)
    assert str(caught.value) == (
        f"job J1 ran a snapshot of /src/tree, but {job}/code is gone: its code cannot be run again"
    )
    assert caught.value.hint == (
        "submit the recipe again (a new snapshot of the tree as it is now)"
    )
