"""The job directory's one reader and one writer, in process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from automodel_launch.jobs.files import (
    Reading,
    Unreadable,
    cancelled_marker,
    exit_status,
    read_job_chunk,
    read_job_file,
    write_job_file,
)


def test_a_regular_file_is_read_and_decoded_with_replacement(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"ok \xff\n")
    assert read_job_file(tmp_path, "f", 10) == "ok \ufffd\n"
    assert read_job_file(tmp_path, "missing", 10) is None
    assert read_job_file(tmp_path / "no-dir", "f", 10) is None
    assert read_job_file(tmp_path / "f", "x", 10) is None  # the "directory" is a file


@pytest.mark.parametrize(
    ("make", "reason"),
    [(lambda p: os.mkfifo(p), "it is a named pipe, not a file"),
     (lambda p: p.symlink_to("/dev/zero"), "it is a symbolic link, not a file"),
     (lambda p: p.symlink_to("other"), "it is a symbolic link, not a file"),
     (lambda p: p.symlink_to("nowhere"), "it is a symbolic link, not a file"),
     (lambda p: p.mkdir(), "it is a directory, not a file"),
     (lambda p: p.write_bytes(b"x" * 11), "11 bytes is more than the 10 it may hold")],
)  # fmt: skip
def test_what_is_no_file_is_refused(tmp_path: Path, make: object, reason: str) -> None:
    (tmp_path / "other").write_text("the target\n")
    make(tmp_path / "f")  # type: ignore[operator]
    with pytest.raises(Unreadable) as raised:
        read_job_file(tmp_path, "f", 10)
    assert str(raised.value) == f"cannot read {tmp_path / 'f'}: {reason}"
    assert raised.value.reason == reason
    if reason != "it is a directory, not a file" and "bytes" not in reason:
        with pytest.raises(Unreadable):
            read_job_chunk(tmp_path, "f", 0, 10)


def test_names_are_one_component() -> None:
    for name in ("", ".", "..", "a/b", "/etc/passwd"):
        with pytest.raises(ValueError, match="is not a file name in a job directory"):
            read_job_file(Path("/tmp"), name, 10)
        with pytest.raises(ValueError):
            write_job_file(Path("/tmp"), name, "x")


def test_chunks_from_an_offset(tmp_path: Path) -> None:
    (tmp_path / "log").write_bytes(b"0123456789")
    assert read_job_chunk(tmp_path, "log", 0, 4) == b"0123"
    assert read_job_chunk(tmp_path, "log", 8, 4) == b"89"
    assert read_job_chunk(tmp_path, "log", 20, 4) == b""
    assert read_job_chunk(tmp_path, "nothing", 0, 4) is None


def test_an_unopenable_directory(tmp_path: Path) -> None:
    """As a user (root opens any directory): a child without the override capabilities."""
    import subprocess
    import sys

    from tests.conftest import ROOT, as_a_user

    (tmp_path / "d").mkdir(mode=0)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from automodel_launch.jobs.files import Unreadable, read_job_file\n"
        "try:\n"
        "    read_job_file(Path(sys.argv[1]), 'f', 10)\n"
        "except Unreadable as exc:\n"
        "    print('Unreadable:', exc)\n"
    )
    done = subprocess.run(
        as_a_user([sys.executable, "-c", code, str(tmp_path / "d")]),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Unreadable: ")
    assert "its directory cannot be opened" in done.stdout


@pytest.mark.parametrize(
    ("content", "value"),
    [(b"0\n", 0), (b"3", 3), (b" 137 \r\n", 137), (b"-15\n", -15), (b"255\n", 255),
     (b"-255", -255), (b"256\n", None), (b"--5\n", None), ("\u00b2\n".encode(), None),
     ("\u0663".encode(), None), (b"1 2\n", None), (b"", None), (b"\xff", None),
     (b"0x1", None), (b"+1", None), (b"1000", None), (b"\n", None)],
)  # fmt: skip
def test_exit_status(tmp_path: Path, content: bytes, value: int | None) -> None:
    (tmp_path / "exit_code").write_bytes(content)
    expected = Reading(value, None if value is not None else "exit_code holds no exit status")
    assert exit_status(tmp_path) == expected


def test_exit_status_unknown_and_why(tmp_path: Path) -> None:
    assert exit_status(tmp_path) == Reading(None, None)
    (tmp_path / "exit_code").write_text("0" * 4097)
    assert exit_status(tmp_path) == Reading(
        None, "exit_code is not read: 4097 bytes is more than the 4096 it may hold"
    )
    (tmp_path / "exit_code").unlink()
    (tmp_path / "exit_code").symlink_to("/dev/zero")
    assert exit_status(tmp_path).note == "exit_code is not read: it is a symbolic link, not a file"


def test_the_cancelled_marker(tmp_path: Path) -> None:
    assert cancelled_marker(tmp_path) == Reading(False, None)
    (tmp_path / "cancelled").write_text("anything\n")
    assert cancelled_marker(tmp_path) == Reading(True, None)
    (tmp_path / "cancelled").unlink()
    os.mkfifo(tmp_path / "cancelled")
    assert cancelled_marker(tmp_path) == Reading(
        False, "cancelled is not read: it is a named pipe, not a file"
    )


def test_the_writer_replaces_a_link_and_never_writes_through_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    (job_dir / "cancelled").symlink_to(victim)
    write_job_file(job_dir, "cancelled", "now\n")
    assert victim.read_text() == "keep\n"
    assert not (job_dir / "cancelled").is_symlink()
    assert (job_dir / "cancelled").read_text() == "now\n"
    assert sorted(p.name for p in job_dir.iterdir()) == ["cancelled"]  # no temporary left
    assert (job_dir / "cancelled").stat().st_mode & 0o777 == 0o644 & ~_umask()
    write_job_file(job_dir, "cancelled", "\u00e9" * 3)
    assert (job_dir / "cancelled").read_bytes() == "\u00e9".encode() * 3


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("old")
    (tmp_path / "f.d").mkdir()
    with pytest.raises(OSError):
        write_job_file(tmp_path / "missing", "f", "new")
    with pytest.raises(IsADirectoryError):
        write_job_file(tmp_path, "f.d", "new")  # cannot rename a file over a directory
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "f.d"]
    assert (tmp_path / "f").read_text() == "old"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
