"""The remote shell's side of the wire, against a stand-in that answers what a test
wrote beforehand and keeps what it was sent: every request's exact lines, and every
answer that cannot be trusted."""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from automodel_launch.launchers.slurm.cluster.commands import Answer, NoSlurm, Unanswered
from automodel_launch.remote import shell as module
from automodel_launch.remote.shell import PREAMBLE, RemoteShell, ShellLost


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


class Canned:
    """A shell that says ready, then the answers given, and keeps what it is sent (its
    standard error closed: a shell lost is not waited for)."""

    def __init__(self, folder: Path) -> None:
        self.answers = folder / "answers"
        self.sent = folder / "sent"
        self.answers.write_text("@@ ready\n")
        script = 'exec 2>&-; cat "$1"; cat >"$2"'
        self.shell = RemoteShell(["sh", "-c", script, "sh", str(self.answers), str(self.sent)])

    def answer(self, *lines: str) -> RemoteShell:
        with self.answers.open("a") as file:
            file.write("".join(f"{line}\n" for line in lines))
        self.shell.start()
        return self.shell

    def requests(self) -> list[str]:
        """The lines sent after the preamble (the shell closed first)."""
        self.shell.close()
        text = self.sent.read_text()
        assert text.startswith(PREAMBLE)
        return text[len(PREAMBLE) :].splitlines()


@pytest.fixture
def canned(tmp_path: Path) -> Iterator[Canned]:
    made = Canned(tmp_path)
    yield made
    made.shell.close()


def test_a_request_is_its_words_then_each_credential_then_the_input(canned: Canned) -> None:
    shell = canned.answer("@@ 0 3 1", b64("out"), b64("e"), "@@ 0 0 0", "", "")
    answer = shell.run(
        ["squeue", "--me", "a b"], timeout=2.2, cwd="/w", limit=7, stdin=b"in\n",
        secrets={"B_2": "two", "A": "one"},
    )  # fmt: skip
    assert answer == Answer(0, "out", "e", False)
    assert shell.run(["true"], timeout=0, limit=5, stdin=b"") == Answer(0, "", "", False)
    assert canned.requests() == [
        b64("__r 3 /w 1 7 A B_2 -- squeue --me 'a b'"), b64("one"), b64("two"), b64("in\n"),
        b64("__r 1 '' 1 5 -- true"), "",
        b64("exit"),
    ]  # fmt: skip


def test_a_program_is_looked_for_once(canned: Canned) -> None:
    shell = canned.answer("@@ 0 0 0", "", "", "@@ 1 0 0", "", "")
    assert shell.has("sbatch") and shell.has("sbatch")
    assert not shell.has("scontrol", timeout=3)
    look = "'command -v -- \"$1\" >/dev/null'"
    assert canned.requests() == [
        b64(f"__r 10 '' 0 4096 -- sh -c {look} sh sbatch"),
        b64(f"__r 3 '' 0 4096 -- sh -c {look} sh scontrol"),
        b64("exit"),
    ]


@pytest.mark.parametrize(
    ("head", "truncated"),
    [("@@ 0 4 4", False), ("@@ 0 5 0", True), ("@@ 0 0 5", True)],
)
def test_output_past_the_limit_is_said_to_be_cut(
    canned: Canned, head: str, truncated: bool
) -> None:
    shell = canned.answer(head, b64("abcd"), b64("efgh"))
    assert shell.run(["x"], timeout=1, limit=4).truncated is truncated


@pytest.mark.parametrize(
    "head", ["@@ 0 0", "@@ 0 0 0 0", "## 0 0 0", "@@ 0 x 0", "@@ -1 0 0", "@@ 0 0 0x"]
)
def test_an_answer_out_of_shape_loses_the_shell(canned: Canned, head: str) -> None:
    shell = canned.answer(head, "", "")
    with pytest.raises(ShellLost) as caught:
        shell.run(["x"], timeout=1, limit=4)
    assert caught.value.said == head
    assert shell.process is None
    with pytest.raises(ShellLost) as caught:
        shell.run(["x"], timeout=1, limit=4)
    assert caught.value.said == ""


def test_output_that_is_not_base64_loses_the_shell(canned: Canned) -> None:
    shell = canned.answer("@@ 0 3 0", "!!!!", "")
    with pytest.raises(ShellLost, match=r"^the cluster's shell answered what is not base64$"):
        shell.run(["x"], timeout=1, limit=4)


@pytest.mark.parametrize("limit", [300, 301])
def test_an_output_line_is_bounded_by_the_limit(tmp_path: Path, limit: int) -> None:
    most = (limit + 2) // 3 * 4 + 1024
    fits = Canned(tmp_path)
    shell = fits.answer("@@ 0 1 0", "A" * most, "")
    assert len(shell.run(["x"], timeout=1, limit=limit).stdout) == most // 4 * 3
    shell.close()
    (tmp_path / "more").mkdir()
    longer = Canned(tmp_path / "more")
    shell = longer.answer("@@ 0 1 0", "A" * (most + 4), "")
    with pytest.raises(ShellLost):
        shell.run(["x"], timeout=1, limit=limit)


def test_the_answers_first_line_is_bounded(canned: Canned) -> None:
    shell = canned.answer("@@ 0 0 " + "0" * 4089, "", "", "@@ 0 0 " + "0" * 4090, "", "")
    assert shell.run(["x"], timeout=1, limit=4).returncode == 0
    with pytest.raises(ShellLost):
        shell.run(["x"], timeout=1, limit=4)


def test_a_command_past_its_time_is_unanswered(canned: Canned) -> None:
    shell = canned.answer("@@ 124 0 4", "", b64("slow"))
    with pytest.raises(Unanswered) as caught:
        shell.run(["sleep", "9"], timeout=2.5, limit=10, name="sleep")
    assert str(caught.value) == "sleep did not answer within 2.5s"
    assert (caught.value.command, caught.value.stderr) == (("sleep", "9"), "slow")


@pytest.mark.parametrize("status", [126, 127])
def test_a_program_that_cannot_run_is_no_slurm(canned: Canned, status: int) -> None:
    said = "timeout: failed to run command 'sq': No such file"
    shell = canned.answer(f"@@ {status} 0 9", "", b64(said))
    with pytest.raises(NoSlurm) as caught:
        shell.run(["sq", "-h"], timeout=1, limit=100)
    assert str(caught.value) == f"cannot run sq on the cluster: {said}"


@pytest.mark.parametrize(
    ("status", "out", "err", "cwd"),
    [
        (125, "", "failed to run command", None),
        (127, "", "sq: not found", None),
        (126, "", "sh: cd: can't cd to /w", None),
        (126, "x", "sh: cd: can't cd to /w", "/w"),
        (126, "", "permission denied", "/w"),
        (1, "", "sh: cd: can't cd to /w", "/w"),
    ],
)
def test_other_failures_are_answers(
    canned: Canned, status: int, out: str, err: str, cwd: str | None
) -> None:
    shell = canned.answer(f"@@ {status} 1 1", b64(out), b64(err))
    assert shell.run(["sq"], timeout=1, limit=100, cwd=cwd) == Answer(status, out, err, False)


def test_a_missing_directory_is_named(canned: Canned) -> None:
    shell = canned.answer("@@ 126 0 9", "", b64("sh: 1: cd: can't cd to /w"))
    with pytest.raises(NoSlurm) as caught:
        shell.run(["sq"], timeout=1, limit=100, cwd="/w")
    assert str(caught.value) == "cannot run sq on the cluster: no directory /w there"


def test_closing_asks_the_shell_to_exit() -> None:
    shell = RemoteShell(["sh"])
    shell.start()
    process = shell.process
    shell.close()
    assert process is not None and process.returncode == 0
    assert process.stdout is not None and process.stdout.closed
    assert process.stderr is not None and process.stderr.closed
    assert shell.process is None
    shell.close()


def test_a_shell_that_says_something_else_is_named_by_it() -> None:
    shell = RemoteShell(["sh", "-c", "echo '@@ hello'; exec 2>&-; cat >/dev/null"])
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert caught.value.said == "@@ hello"


def test_what_the_shell_says_last_is_kept_when_it_is_lost() -> None:
    shell = RemoteShell(
        ["sh", "-c", "echo '@@ junk'; sleep 0.3; echo late >&2; exec 2>&-; sleep 30"]
    )
    began = time.monotonic()
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert caught.value.said == "late\n"
    assert time.monotonic() - began < 1.5
    assert shell.process is None


def test_only_the_end_of_what_it_said_is_kept() -> None:
    shell = RemoteShell(["sh", "-c", "head -c 20000 /dev/zero | tr '\\0' x >&2; echo y >&2"])
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert caught.value.said == "x" * 16382 + "y\n"


def test_a_shell_that_stops_reading_is_lost() -> None:
    shell = RemoteShell(
        ["sh", "-c", 'read -r x; echo "@@ ready"; exec 0<&-; echo gone >&2; exec 2>&- >&-; sleep 9']
    )
    shell.start()
    time.sleep(0.3)  # it has stopped reading: the request cannot be sent
    began = time.monotonic()
    with pytest.raises(ShellLost) as caught:
        shell.run(["x"], timeout=1, limit=4)
    assert caught.value.said == "gone\n"
    assert time.monotonic() - began < 1.5


def test_a_name_with_a_newline_is_no_variable_name(canned: Canned) -> None:
    shell = canned.answer()
    with pytest.raises(ValueError, match="is not a variable name"):
        shell.run(["true"], timeout=1, limit=4, secrets={"A\n": "x"})


def test_what_is_not_text_is_replaced(canned: Canned) -> None:
    shell = canned.answer("@@ 0 1 1", b64(b"\xff"), b64(b"e\xfe"), "@@ 0 0 0\xe9", "", "")
    assert shell.run(["x"], timeout=1, limit=4) == Answer(0, "\ufffd", "e\ufffd", False)
    with pytest.raises(ShellLost):
        shell.run(["x"], timeout=1, limit=4)


def test_an_answer_that_does_not_come_loses_the_shell(
    canned: Canned, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "SLACK", 0.5)
    shell = canned.answer()
    began = time.monotonic()
    with pytest.raises(ShellLost):
        shell.run(["x"], timeout=0, limit=4)
    assert 1.4 < time.monotonic() - began < 4


def test_a_shell_that_never_says_ready_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "START", 0.5)
    shell = RemoteShell(["sh", "-c", "exec 2>&-; cat >/dev/null"])
    began = time.monotonic()
    with pytest.raises(ShellLost):
        shell.start()
    assert 0.4 < time.monotonic() - began < 3


def test_a_line_longer_than_it_may_be_is_not_waited_for(tmp_path: Path) -> None:
    (tmp_path / "many").write_text("A" * 5000)
    shell = RemoteShell(
        ["sh", "-c", 'exec 2>&-; echo "@@ ready"; echo "@@ 0 1 0"; cat "$1"; cat >/dev/null',
         "sh", str(tmp_path / "many")]
    )  # fmt: skip
    shell.start()
    began = time.monotonic()
    with pytest.raises(ShellLost):
        shell.run(["x"], timeout=10, limit=3)
    assert time.monotonic() - began < 3


def test_a_line_as_long_as_it_may_be_is_waited_for(tmp_path: Path) -> None:
    (tmp_path / "most").write_text("A" * 1028)
    shell = RemoteShell(
        ["sh", "-c", 'exec 2>&-; echo "@@ ready"; echo "@@ 0 1 0"; sleep 0.3; cat "$1"; '
         "sleep 0.3; printf '\\n\\n'; cat >/dev/null", "sh", str(tmp_path / "most")]
    )  # fmt: skip
    shell.start()
    assert len(shell.run(["x"], timeout=10, limit=3).stdout) == 771
    shell.close()


def test_what_is_not_text_on_its_error_output_is_replaced() -> None:
    shell = RemoteShell(["sh", "-c", "printf 'no \\377\\n' >&2; exit 1"])
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert caught.value.said == "no \ufffd\n"


def test_a_line_too_long_by_less_than_a_quantum_is_too_long(canned: Canned) -> None:
    # 299 bytes take 400 characters of base64: 1424 with the slack, not 1425
    shell = canned.answer("@@ 0 1 0", "A" * 1425, "")
    with pytest.raises(ShellLost) as caught:
        shell.run(["x"], timeout=1, limit=299)
    assert caught.value.said == ""


def test_a_lost_shell_is_given_two_seconds_to_say_why(tmp_path: Path) -> None:
    pid = tmp_path / "pid"
    shell = RemoteShell(["sh", "-c", 'echo $$ >"$1"; echo "@@ junk"; sleep 30', "sh", str(pid)])
    began = time.monotonic()
    with pytest.raises(ShellLost):
        shell.start()
    assert 1.9 < time.monotonic() - began < 2.9
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid.read_text()), 0)


def test_a_lost_shell_that_stops_talking_is_ended(tmp_path: Path) -> None:
    pid = tmp_path / "pid"
    shell = RemoteShell(
        ["sh", "-c", 'echo $$ >"$1"; echo "@@ junk"; exec 2>&-; sleep 30', "sh", str(pid)]
    )
    with pytest.raises(ShellLost):
        shell.start()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid.read_text()), 0)


def test_closing_a_shell_that_stopped_reading() -> None:
    shell = RemoteShell(["sh", "-c", 'read -r x; echo "@@ ready"; exec 0<&- 2>&-; sleep 0.5'])
    shell.start()
    time.sleep(0.2)  # it has closed its standard input: telling it to exit fails
    process = shell.process
    shell.close()
    assert process is not None and process.returncode == 0


def test_what_a_lost_shell_keeps_saying_is_read_for_two_seconds() -> None:
    shell = RemoteShell(["sh", "-c", "echo '@@ junk'; while :; do echo tick >&2; sleep 0.25; done"])
    began = time.monotonic()
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert 1.9 < time.monotonic() - began < 2.9
    assert caught.value.said.count("tick") >= 6


def test_a_shell_not_started_answers_nothing() -> None:
    shell = RemoteShell(["sh"])
    shell.close()
    with pytest.raises(ShellLost) as caught:
        shell.run(["true"], timeout=1, limit=4)
    assert caught.value.said == ""


def test_digits_of_other_scripts_are_no_answer(canned: Canned) -> None:
    shell = canned.answer("@@ 0 0 \u0663", "", "")
    with pytest.raises(ShellLost):
        shell.run(["x"], timeout=1, limit=4)


def test_a_first_line_too_long_is_not_repeated() -> None:
    shell = RemoteShell(["sh", "-c", "printf '%4097s\\n' x; exec 2>&-; cat >/dev/null"])
    with pytest.raises(ShellLost) as caught:
        shell.start()
    assert caught.value.said == ""


def test_a_shell_that_will_not_exit_is_killed_when_closed() -> None:
    """Told to exit, given five seconds, then killed with its process group."""
    shell = RemoteShell(["sh", "-c", "echo '@@ ready'; exec sleep 60"])
    shell.start()
    process = shell.process
    began = time.monotonic()
    shell.close()
    assert process is not None and process.returncode == -9
    assert time.monotonic() - began < 30  # not the minute the shell would sleep


@pytest.mark.parametrize(("length", "ready"), [(4096, True), (4097, False)])
def test_a_greeting_line_is_at_most_4096_bytes(length: int, ready: bool) -> None:
    shell = RemoteShell(["sh", "-c", f"printf '%s\\n' {'x' * length}; exec sh"])
    try:
        if ready:
            shell.start()
            assert shell.run(["echo", "hi"], timeout=5, limit=10).stdout == "hi\n"
        else:
            with pytest.raises(ShellLost):
                shell.start()
    finally:
        shell.close()


def test_a_missing_tool_is_named_whatever_the_shell_said_before() -> None:
    """What the login said on standard error is not the reason: the tool is."""
    bare = RemoteShell(["sh", "-c", "echo 'Welcome' >&2; PATH=/nonexistent; exec /bin/sh"])
    with pytest.raises(ShellLost) as caught:
        bare.start()
    assert caught.value.said == "@@ missing mktemp"
