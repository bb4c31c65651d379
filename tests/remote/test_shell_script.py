"""The script the cluster's shell runs (:data:`~automodel_launch.remote.shell.PREAMBLE`),
run for real by a local ``sh``: its private scratch directory, removed at the end; what
it keeps of a request (nothing: the input file, the output files, the credentials' values
go once answered); the cut of each output at its bound; a command past its time ended,
even one that ignores the polite signal; the tools it needs; a name that is no variable.

Most tests send the whole conversation at once and read what the shell printed: every
line the shell reads is evaluated, so a line that is not a request (``ls -A "$__d"``)
shows the shell's own state between two requests."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from automodel_launch.launchers.slurm.cluster.commands import Unanswered
from automodel_launch.remote.shell import PREAMBLE, RemoteShell, ShellLost
from automodel_launch.remote.ssh import quoted

TOOLS = ("base64", "timeout", "head", "wc", "tr")


def line(data: str | bytes) -> bytes:
    return base64.b64encode(data.encode() if isinstance(data, str) else data) + b"\n"


def request(
    *command: str, secrets: dict[str, str] | None = None, stdin: bytes | None = None,
    limit: int = 1000, names: list[str] | None = None,
) -> bytes:  # fmt: skip
    """One request as :class:`RemoteShell` sends it (``names``: as written, unchecked)."""
    secrets = secrets or {}
    given = names if names is not None else sorted(secrets)
    words = ["__r", "5", "", "0" if stdin is None else "1", str(limit), *given, "--", *command]
    sent = line(quoted(words)) + b"".join(line(secrets.get(n, "")) for n in given)
    return sent + (b"" if stdin is None else line(stdin))


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """The shell's TMPDIR: where its private directory is made."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


def converse(scratch: Path, *sent: bytes) -> tuple[int, list[str]]:
    """The script; once the shell is ready, ``sent`` and the end of its input (as the
    other side does: a shell reading its script from a pipe may read ahead of it): the
    shell's exit status and the lines it printed."""
    shell = subprocess.Popen(
        ["sh"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(scratch)},
    )  # fmt: skip
    assert shell.stdin is not None and shell.stdout is not None
    shell.stdin.write(PREAMBLE.encode())
    shell.stdin.flush()
    ready = shell.stdout.readline()
    out, _ = shell.communicate(b"".join(sent), timeout=60)
    return shell.returncode, (ready + out).decode().splitlines()


def answers(printed: list[str]) -> list[tuple[str, str, str]]:
    """Each answer's head, output and error output (decoded), in order."""
    found = []
    for at, text in enumerate(printed):
        if text.startswith("@@ ") and text != "@@ ready":
            out, err = (base64.b64decode(printed[at + i]).decode() for i in (1, 2))
            found.append((text, out, err))
    return found


def test_the_scratch_directory_is_private_and_gone_at_the_end(scratch: Path) -> None:
    status, printed = converse(
        scratch, request("sh", "-c", 'ls -ld "$TMPDIR"/*; umask'), line('echo "$__d"')
    )
    ((head, out, _),) = answers(printed)
    assert status == 0 and head.startswith("@@ 0 ")
    mode, *_, folder = out.splitlines()[0].split()
    assert (mode, out.splitlines()[1]) == ("drwx------", "0077")  # and what it makes: 0600
    assert printed[-1] == folder and Path(folder).parent == scratch
    assert list(scratch.iterdir()) == []  # the trap removed it at the end of the input


def test_the_scratch_directory_is_gone_when_the_shell_is_closed(scratch: Path) -> None:
    shell = RemoteShell(["env", f"TMPDIR={scratch}", "sh"])
    shell.start()
    try:
        made = shell.run(["sh", "-c", 'echo "$TMPDIR"/*'], timeout=5, limit=1000)
        assert Path(made.stdout.strip()).is_dir()
    finally:
        shell.close()
    assert list(scratch.iterdir()) == []


def test_nothing_of_a_request_is_kept_once_answered(scratch: Path) -> None:
    """No input file, no output file, no credential's value, no line read."""
    status, printed = converse(
        scratch,
        request("sh", "-c", 'printf %s "$A"; cat', secrets={"A": "first"}, stdin=b"typed\n"),
        line('ls -A "$__d"; echo "[${__sv_A-}][$__l]"'),
        request("sh", "-c", 'printf %s "${A-unset}"; cat', secrets={"B": "second"}),
        line('ls -A "$__d"; echo "[${__sv_B-}][$__l]"'),
    )
    first, second = answers(printed)
    assert (status, first[1], second[1]) == (0, "firsttyped\n", "unset")
    assert (len(printed), printed[4], printed[8]) == (9, "[][]", "[][]")  # ls showed nothing


def test_a_command_reads_no_request_as_its_input(scratch: Path) -> None:
    """Without input a command reads nothing (not the requests after its own)."""
    _, printed = converse(scratch, request("cat"), request("echo", "next"))
    assert [(head, out) for head, out, _ in answers(printed)] == [
        ("@@ 0 0 0", ""), ("@@ 0 5 0", "next\n"),
    ]  # fmt: skip


def test_each_output_is_cut_at_its_bound_and_said_to_be(scratch: Path) -> None:
    shell = RemoteShell(["sh"])
    shell.start()
    try:
        noisy = shell.run(["sh", "-c", "head -c 5000 /dev/zero | tr '\\0' e >&2"], timeout=5,
                          limit=10)  # fmt: skip
        assert (noisy.stdout, noisy.stderr, noisy.truncated) == ("", "e" * 10, True)
        long = shell.run(["head", "-c", "3000", "/dev/zero"], timeout=5, limit=3000)
        assert (len(long.stdout), long.truncated) == (3000, False)  # one line, however long
    finally:
        shell.close()


def test_a_command_that_ignores_the_end_of_its_time_is_killed(scratch: Path) -> None:
    """``timeout`` sends TERM at the end of its time, and KILL two seconds later: a command
    that ignores TERM ends all the same, and the shell answers for it."""
    shell = RemoteShell(["sh"])
    shell.start()
    try:
        stubborn = 'trap "" TERM; echo started; while :; do sleep 1; done'
        start = time.monotonic()
        with pytest.raises(Unanswered) as caught:
            shell.run(["sh", "-c", stubborn], timeout=1, limit=100, name="stubborn")
        assert time.monotonic() - start >= 3  # TERM at 1 s, KILL 2 s after: never sooner
        assert str(caught.value) == "stubborn did not answer within 1s"
        assert shell.run(["echo", "alive"], timeout=5, limit=100).stdout == "alive\n"
    finally:
        shell.close()


def test_a_command_killed_before_its_time_is_an_answer(scratch: Path) -> None:
    """Status 137 before the time is up: killed by another hand, not by ``timeout``."""
    shell = RemoteShell(["sh"])
    shell.start()
    try:
        killed = shell.run(["sh", "-c", "kill -9 $$"], timeout=30, limit=100)
        assert (killed.returncode, killed.stdout) == (137, "")
    finally:
        shell.close()


@pytest.mark.parametrize("missing", TOOLS)
def test_a_tool_the_shell_needs_is_named(tmp_path: Path, missing: str) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("mktemp", "rm", *TOOLS):
        found = shutil.which(tool)
        assert found is not None
        if tool != missing:
            (folder / tool).symlink_to(found)
    shell = RemoteShell(["env", f"PATH={folder}", "/bin/sh"])
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert caught.value.said == f"@@ missing {missing}"


@pytest.mark.parametrize("name", ["", "1A", "A-B", "A;id"])
def test_a_name_that_is_no_variable_ends_the_shell(scratch: Path, name: str) -> None:
    """The other side checks the names first; the shell checks them again."""
    status, printed = converse(
        scratch, request("true", names=[name]), line("x"), line("echo still-here")
    )
    assert (status, printed) == (1, ["@@ ready", "@@ bad-name"])
    assert list(scratch.iterdir()) == []
