"""Inputs that crashed, hung or tracebacked the real CLI, run in a subprocess.

Each case must end within 5 seconds with an exit code of the documented set (see
automodel_launch/cli/errors.py), at most a line or two on stderr, no traceback, no
"Exception ignored" at shutdown, no death by signal (a segfault or core dump shows
as a negative return code) and no file left behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import RECIPE, ROOT, run_cli

BUDGET = 30.0
"""Seconds one command may take: the CLI on hostile input must not hang; a busy 2-core
machine starts it in a few seconds, a hang never ends."""
OFFLINE = ("--no-check-paths", "--no-check-env")
VALID = (ROOT / "examples" / "llm_finetune_slurm.yaml").read_text(encoding="utf-8")


def cli(
    *args: str,
    cwd: Path,
    stdout: int | None = subprocess.PIPE,
    shim: str = "",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The real entry point (``automodel_launch.cli.main``), after an optional shim."""
    code = f"import sys\n{shim}\nsys.argv = ['automodel-launch', *{list(args)!r}]\n"
    code += "from automodel_launch.cli import main\nmain()\n"
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={
            **os.environ,
            "COLUMNS": "200",
            "PYTHONPATH": str(ROOT),
            "HF_TOKEN": "set",
            **(env or {}),
        },
        timeout=BUDGET,
        check=False,
    )
    assert time.monotonic() - start < BUDGET
    assert_no_crash(result.returncode, result.stderr)
    return result


def assert_no_crash(code: int, stderr: str) -> None:
    assert code >= 0, f"killed by signal {-code}"
    assert code in (0, 1, 2, 3, 129, 130, 141, 143), (code, stderr)
    assert "Traceback" not in stderr, stderr
    assert "Exception ignored" not in stderr, stderr


def one_error_line(stderr: str) -> str:
    """The error line; a hint may follow it, nothing else."""
    lines = stderr.splitlines()
    assert 1 <= len(lines) <= 2, stderr
    assert lines[0].startswith("error: ") or lines[0] in ("interrupted", "terminated"), stderr
    assert all(line.startswith("    hint: ") for line in lines[1:]), stderr
    return lines[0]


# ------------------------------------------------------------------ nesting bombs
BOMBS = {
    "brackets-100k": "a: " + "[" * 100_000,
    "braces-1m": "a: " + "{a: " * 250_000,
    "dashes-1m": "- " * 500_000,
    "keys-1m": "? " * 500_000,
}


@pytest.mark.parametrize("text", BOMBS.values(), ids=BOMBS.keys())
def test_a_nesting_bomb_is_too_deep(tmp_path: Path, text: str) -> None:
    (tmp_path / "bomb.yaml").write_text(text)
    result = cli("validate", "bomb.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[too-deep]" in result.stdout
    assert result.stderr == ""


def test_a_10_mb_bomb_is_refused_by_its_size(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text("a: " + "[" * 10_000_000)
    result = cli("validate", "bomb.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[file-too-large]" in result.stdout


def test_a_directory_run_reports_the_other_files(tmp_path: Path) -> None:
    (tmp_path / "a_bomb.yaml").write_text("a: " + "[" * 100_000)
    (tmp_path / "b_good.yaml").write_text(VALID)
    (tmp_path / "c_bad.yaml").write_text("slurm:\n  time: 4h\n")
    result = cli("validate", *OFFLINE, ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "a_bomb.yaml:1:203: error[too-deep]" in result.stdout
    assert "c_bad.yaml:2:9: error[invalid-time]" in result.stdout
    assert result.stdout.endswith(
        "3 files checked against AutoModel 0.7.0 (installed here): 2 errors, 0 warnings; 2 failed\n"
    )


# ------------------------------------------------------------------ what is not a file
@pytest.mark.parametrize(
    ("name", "kind"),
    [("/dev/zero", "a device"), ("/dev/null", "a device"), ("pipe.yaml", "a named pipe")],
)
def test_only_regular_files_are_read(tmp_path: Path, name: str, kind: str) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    result = cli("validate", name, cwd=tmp_path)
    assert result.returncode == 1
    assert f"error[file-unreadable] cannot read {name}: it is {kind}" in result.stdout


@pytest.mark.parametrize("command", ["render", "submit"])
def test_a_directory_as_the_config(tmp_path: Path, command: str) -> None:
    result = cli(
        command, ".", "--dry-run" if command == "submit" else "--no-check-paths", cwd=tmp_path
    )
    assert result.returncode == 1
    assert "error[file-unreadable] cannot read .: Is a directory" in result.stderr


PERMISSION_SHIM = """
import os, pathlib
real_open, real_stat = os.open, os.stat
def locked(path):
    if "locked" in str(path):
        raise PermissionError(13, "Permission denied", str(path))
def fake_open(path, *a, **k):
    locked(path)
    return real_open(path, *a, **k)
def fake_stat(path, *a, **k):
    locked(path)
    return real_stat(path, *a, **k)
os.open, os.stat = fake_open, fake_stat
"""


def test_a_file_in_an_unsearchable_directory(tmp_path: Path) -> None:
    # root can read anything: the denial is simulated (the non-root test below is real)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.yaml").write_text(VALID)
    result = cli("validate", "locked/x.yaml", cwd=tmp_path, shim=PERMISSION_SHIM)
    assert result.returncode == 1
    assert "error[file-unreadable] cannot read locked/x.yaml: Permission denied" in result.stdout
    result = cli("render", "locked/x.yaml", cwd=tmp_path, shim=PERMISSION_SHIM)
    assert result.returncode == 1
    assert "error[file-unreadable] cannot read locked/x.yaml: Permission denied" in result.stderr


def test_a_really_unsearchable_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.yaml").write_text(VALID)
    locked.chmod(0)
    try:
        results = [
            run_cli(*args, cwd=tmp_path, user=True)
            for args in (("validate", "locked/x.yaml"), ("validate", "locked"))
        ]
    finally:
        locked.chmod(0o755)
    for result in results:
        assert_no_crash(result.returncode, result.stderr)
        assert result.returncode == 1
    assert results[0].stdout.splitlines()[0] == (
        "locked/x.yaml:1:1: error[file-unreadable] cannot read locked/x.yaml: Permission denied"
    )
    assert results[1].stdout.splitlines()[0].startswith("locked:1:1: error[file-unreadable]")


# ------------------------------------------------------------------ values that tracebacked
CASES = {
    "huge-int": ("slurm:\n  nodes: " + "1" * 5000 + "\n", "error[wrong-type] slurm.nodes"),
    "huge-hex": ("slurm:\n  nodes: 0x" + "f" * 5000 + "\n", "error[wrong-type] slurm.nodes"),
    "merge-list": ("a: &a {nodes: 2}\nslurm:\n  <<: [*a]\n  nodes: x\n", "slurm.nodes"),
    "merge-scalar": ("slurm:\n  <<: 5\n", "error[invalid-merge] slurm.<<"),
    "custom-tag": ("slurm:\n  container_image: !custom null\n", "error[yaml-tag]"),
    "bad-core-tag": ("slurm:\n  nodes: !!int abc\n", "error[yaml-tag]"),
}


@pytest.mark.parametrize(("text", "expected"), CASES.values(), ids=CASES.keys())
def test_values_that_used_to_traceback(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "c.yaml").write_text(text)
    for command in (("validate", *OFFLINE), ("render", "--no-check-paths")):
        result = cli(*command, "c.yaml", cwd=tmp_path)
        assert result.returncode == 1
        assert expected in result.stdout + result.stderr


# ------------------------------------------------------------------ output that fails
def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    for i in range(200):
        (tmp_path / f"c{i:03}.yaml").write_text("slurm:\n  time: 4h\n")
    (tmp_path / "one.yaml").write_text(VALID)
    for args in (("validate", "."), ("schema",), ("render", "--no-check-paths", "one.yaml")):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before the first byte
        try:
            result = cli(*args, cwd=tmp_path, stdout=write)
        finally:
            os.close(write)
        assert (result.returncode, result.stderr) == (141, ""), args


def test_a_reader_that_leaves_mid_output_ends_quietly(tmp_path: Path) -> None:
    # validate ... | head -1: the first line is read, then the reader goes away
    for i in range(2000):
        (tmp_path / f"c{i:04}.yaml").write_text("slurm:\n  time: 4h\n" + RECIPE)
    code = "import sys\nsys.argv = ['automodel-launch', 'validate', '.']\n"
    code += "from automodel_launch.cli import main\nmain()\n"
    writer = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert writer.stdout is not None and writer.stderr is not None
    first = writer.stdout.readline()
    writer.stdout.close()
    stderr = writer.stderr.read().decode()
    assert writer.wait(timeout=30) == 141
    assert first.decode().startswith("c0000.yaml:2:9: error[invalid-time]")
    assert stderr == ""


@pytest.mark.parametrize(
    "args", [("validate", "c.yaml"), ("schema",), ("render", "--no-check-paths", "c.yaml")]
)
def test_a_full_disk_is_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "c.yaml").write_text(VALID)
    with open("/dev/full", "w") as full:
        result = cli(*args, cwd=tmp_path, stdout=full.fileno())
    assert result.returncode == 3
    assert (
        one_error_line(result.stderr) == "error: cannot write the output: No space left on device"
    )


@pytest.mark.parametrize("redirect", [">&-", "2>&- >&-", "2>&- >/dev/full"])
def test_closed_streams(tmp_path: Path, redirect: str) -> None:
    (tmp_path / "c.yaml").write_text("slurm:\n  time: 4h\n")
    code = "from automodel_launch.cli import main; main()"
    shell = f'exec "$0" -c "{code}" validate c.yaml {redirect}'
    result = subprocess.run(
        ["sh", "-c", shell, sys.executable],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=BUDGET,
        check=False,
    )
    assert result.returncode == (3 if "full" in redirect else 1)
    assert result.stderr == ""


# ------------------------------------------------------------------ signals
SIGNAL_SHIM = """
import os, signal
import automodel_launch.validation as validation
real = validation.validate_path
calls = []
def patched(*args, **kwargs):
    calls.append(1)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.{name})
    return real(*args, **kwargs)
validation.validate_path = patched
"""


@pytest.mark.parametrize(
    ("name", "code", "line"),
    [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated"), ("SIGHUP", 129, "hung up")],
)
def test_a_signal_during_validate(tmp_path: Path, name: str, code: int, line: str) -> None:
    for i in range(3):
        (tmp_path / f"c{i}.yaml").write_text(VALID)
    result = cli("validate", *OFFLINE, ".", cwd=tmp_path, shim=SIGNAL_SHIM.format(name=name))
    assert (result.returncode, result.stderr, result.stdout) == (code, line + "\n", "")


WRITE_SHIM = """
import os, signal
import automodel_launch.jobdir as jobdir
real = os.replace
def interrupted_replace(*args, **kwargs):
    os.kill(os.getpid(), signal.{name})
    return real(*args, **kwargs)
jobdir.os.replace = interrupted_replace
"""


@pytest.mark.parametrize(
    ("name", "code", "line"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_a_signal_while_writing_the_job_directory(
    tmp_path: Path, name: str, code: int, line: str
) -> None:
    (tmp_path / "c.yaml").write_text(VALID)
    result = cli(
        "render", "--no-check-paths", "c.yaml", "--job-dir", "out/job",
        cwd=tmp_path, shim=WRITE_SHIM.format(name=name),
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (code, line + "\n")
    # neither the staging directory nor the parent the write created is left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


# ------------------------------------------------------------------ bugs
BUG_SHIM = """
import automodel_launch.validation as validation
def broken(*args, **kwargs):
    raise RuntimeError("a bug")
validation.validate_path = broken
"""


def test_a_bug_is_one_line_and_a_hint(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(VALID)
    result = cli("validate", "c.yaml", cwd=tmp_path, shim=BUG_SHIM)
    assert result.returncode == 3
    assert result.stderr == textwrap.dedent("""\
        error: unexpected RuntimeError (a bug in automodel-launch)
            hint: rerun with AUTOMODEL_LAUNCH_DEBUG=1 to see the traceback, and report it
    """)


def test_the_traceback_on_request(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(VALID)
    code = "\n".join(
        [
            "import sys",
            BUG_SHIM,
            "sys.argv = ['automodel-launch', 'validate', 'c.yaml']",
            "from automodel_launch.cli import main",
            "main()",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "AUTOMODEL_LAUNCH_DEBUG": "1"},
        timeout=BUDGET,
        check=False,
    )
    assert result.returncode == 3
    assert result.stderr.startswith("error: unexpected RuntimeError (a bug in automodel-launch)\n")
    assert "Traceback (most recent call last)" in result.stderr
    assert result.stderr.rstrip().endswith("RuntimeError: a bug")
