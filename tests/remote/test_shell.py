"""The remote shell's protocol, against a real local ``sh`` (the same one SSH starts)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from automodel_launch.launchers.slurm.cluster.commands import NoSlurm, Unanswered
from automodel_launch.remote.shell import RemoteShell, ShellLost


@pytest.fixture
def shell() -> Iterator[RemoteShell]:
    started = RemoteShell(["sh"])
    started.start()
    yield started
    started.close()


def test_answers_carry_status_output_and_errors(shell: RemoteShell) -> None:
    answer = shell.run(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout=10, limit=100)
    assert (answer.returncode, answer.stdout, answer.stderr, answer.truncated) == (
        3, "out\n", "err\n", False,
    )  # fmt: skip


def test_output_that_looks_like_an_answer_is_only_output(shell: RemoteShell) -> None:
    fake = "@@ 0 0 0\n\n\n"
    answer = shell.run(["printf", "%s", fake], timeout=10, limit=100)
    assert answer.stdout == fake
    assert shell.run(["echo", "next"], timeout=10, limit=100).stdout == "next\n"


def test_credentials_reach_the_command_environment_only(shell: RemoteShell) -> None:
    value = "hf_a b\n'\"$x`y`"
    answer = shell.run(
        ["sh", "-c", 'printf %s "$HF_TOKEN"; printf "|%s" "$(ps -o args= -p $$)"'],
        timeout=10, limit=1000, secrets={"HF_TOKEN": value},
    )  # fmt: skip
    shown, _, args = answer.stdout.partition("|")
    assert shown == value.rstrip("\n") or shown == value
    assert "hf_a" not in args
    after = shell.run(["sh", "-c", 'printf %s "${HF_TOKEN-unset}"'], timeout=10, limit=100)
    assert after.stdout == "unset"


def test_standard_input_and_working_directory(shell: RemoteShell, tmp_path) -> None:  # type: ignore[no-untyped-def]
    answer = shell.run(["sh", "-c", "pwd; cat"], timeout=10, limit=1000, cwd=str(tmp_path),
                       stdin=b"line one\nline two\n")  # fmt: skip
    assert answer.stdout == f"{tmp_path}\nline one\nline two\n"


def test_output_is_cut_at_the_limit(shell: RemoteShell) -> None:
    answer = shell.run(["head", "-c", "5000", "/dev/zero"], timeout=10, limit=10)
    assert (len(answer.stdout), answer.truncated) == (10, True)


def test_timeout_missing_program_and_directory(shell: RemoteShell) -> None:
    with pytest.raises(Unanswered, match="did not answer within 1s"):
        shell.run(["sleep", "30"], timeout=1, limit=10, name="sleep")
    with pytest.raises(NoSlurm, match="cannot run no-such-program on the cluster"):
        shell.run(["no-such-program"], timeout=5, limit=1000)
    with pytest.raises(NoSlurm, match="no directory /no/such/dir there"):
        shell.run(["ls"], timeout=5, limit=1000, cwd="/no/such/dir")
    assert shell.has("sh") and not shell.has("no-such-program")


def test_bad_credential_names_are_refused(shell: RemoteShell) -> None:
    with pytest.raises(ValueError, match="is not a variable name"):
        shell.run(["true"], timeout=5, limit=10, secrets={"A;rm -rf /": "x"})


def test_a_shell_that_ends_is_lost(shell: RemoteShell) -> None:
    with pytest.raises(ShellLost):
        shell.run(["sh", "-c", "kill -9 $(ps -o ppid= -p $PPID)"], timeout=5, limit=10)
    with pytest.raises(ShellLost):
        shell.run(["true"], timeout=5, limit=10)


def test_a_shell_that_never_starts_says_why() -> None:
    broken = RemoteShell(
        ["sh", "-c", "echo 'ssh: connect to host x port 22: Connection refused' >&2; exit 255"]
    )
    with pytest.raises(ShellLost) as caught:
        broken.start()
    assert "Connection refused" in caught.value.said


def test_a_greeting_before_the_shell_is_ready_is_skipped() -> None:
    greeted = RemoteShell(["sh", "-c", "echo 'Welcome to the cluster'; echo; exec sh"])
    greeted.start()
    try:
        assert greeted.run(["echo", "hi"], timeout=5, limit=100).stdout == "hi\n"
    finally:
        greeted.close()


def test_a_shell_missing_a_tool_says_which() -> None:
    bare = RemoteShell(["sh", "-c", "PATH=/nonexistent; exec /bin/sh"])
    with pytest.raises(ShellLost) as caught:
        bare.start()
    assert caught.value.said == "@@ missing mktemp"
