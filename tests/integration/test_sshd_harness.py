"""The SSH test server itself, reached with the real ``ssh`` client.

What the tests of remote submission rely on: a command sees the server's environment
(PATH first of all), a key or host key the harness did not make is refused, and the
server's log counts connections and sessions, multiplexed ones included.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import unavailable
from tests.integration.sshd import Sshd, other_key, start_sshd, unknown_host_file

SLURM_CONF = "/etc/slurm-test/slurm.conf with space"
WRAPPERS = "/nonexistent/wrappers"
PATH = f"{WRAPPERS}:/usr/bin:/bin"


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    server = start_sshd(
        tmp_path_factory.mktemp("sshd"), environment={"SLURM_CONF": SLURM_CONF, "PATH": PATH}
    )
    if isinstance(server, str):
        unavailable(server)
    assert not isinstance(server, str)
    try:
        yield server
    finally:
        server.stop()


def ssh(
    sshd: Sshd, *command: str, options: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ssh", *(options if options is not None else sshd.ssh_options()),
         "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
         "-p", str(sshd.port), f"{sshd.user}@{sshd.host}", "--", *command],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_command_sees_the_servers_environment_and_its_path_first(sshd: Sshd) -> None:
    done = ssh(sshd, 'sh -c \'echo "$SLURM_CONF"; echo "$PATH"\'')
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [SLURM_CONF, PATH]


def test_a_key_the_server_does_not_know_is_refused(sshd: Sshd, tmp_path: Path) -> None:
    before = sshd.connections()
    done = ssh(sshd, "true", options=sshd.ssh_options(key=other_key(tmp_path)))
    assert done.returncode == 255
    assert "Permission denied (publickey)" in done.stderr
    assert sshd.connections() == before


def test_an_unknown_host_key_is_refused(sshd: Sshd, tmp_path: Path) -> None:
    before = sshd.connections()
    done = ssh(sshd, "true", options=sshd.ssh_options(known_hosts=unknown_host_file(tmp_path)))
    assert done.returncode == 255
    assert "Host key verification failed." in done.stderr
    assert sshd.connections() == before


def test_commands_through_one_master_count_one_connection_and_a_session_each(
    sshd: Sshd, tmp_path: Path
) -> None:
    control = [
        *sshd.ssh_options(),
        "-o", "ControlMaster=auto", "-o", f"ControlPath={tmp_path / 'cm'}",
        "-o", "ControlPersist=30",
    ]  # fmt: skip
    sessions, connections = sshd.sessions(), sshd.connections()
    try:
        first = ssh(sshd, "echo one", options=control)
        second = ssh(sshd, "echo two", options=control)
    finally:
        subprocess.run(
            ["ssh", *control, "-O", "exit", "-p", str(sshd.port), f"{sshd.user}@{sshd.host}"],
            capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert (first.stdout, second.stdout) == ("one\n", "two\n")
    assert sshd.sessions() - sessions == 2
    assert sshd.connections() - connections == 1
