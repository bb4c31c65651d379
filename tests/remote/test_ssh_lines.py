"""What ssh is given and what its complaints become, with no connection: the command
lines of a :class:`Connection` whose private directory is set by hand, and :func:`why`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from automodel_launch.remote.clusters import Remote
from automodel_launch.remote.ssh import Connection, _short_tmp, quoted, why

LAB = Remote(name="lab", host="me@h", remote_dir="/r")
BASE = [
    "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "ControlPath=/s/master",
    "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
]  # fmt: skip


def test_options_share_the_master_check_host_keys_and_end_with_the_users() -> None:
    plain = Connection(LAB, directory=Path("/s"))
    assert plain.options() == BASE
    assert plain.command("squeue", "--me") == [
        "ssh", *BASE, "-o", "ControlMaster=no", "me@h", "--", "squeue", "--me",
    ]  # fmt: skip
    lab = Remote(name="lab", host="h", port=2222, ssh_options=["-i", "/k"], remote_dir="/r")
    assert Connection(lab, directory=Path("/s")).options() == [*BASE, "-p", "2222", "-i", "/k"]


def test_rsync_is_given_the_same_ssh_as_one_line() -> None:
    lab = Remote(
        name="lab", host="h", remote_dir="/r",
        ssh_options=["-i", "/my keys/k", "-oProxyJump=it's", '-oUser="me"', "-l\tx", "-X"],
    )  # fmt: skip
    line = Connection(lab, directory=Path("/s")).rsync_shell()
    assert line == (
        "ssh -o StrictHostKeyChecking=yes -o BatchMode=yes -o ControlPath=/s/master"
        " -o ConnectTimeout=15 -o ServerAliveInterval=5 -o ServerAliveCountMax=3"
        " -i '/my keys/k' \"-oProxyJump=it's\" '-oUser=\"me\"' '-l\tx' -X -o ControlMaster=no"
    )


def test_the_socket_directory_is_short(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", "/t" + "x" * 38)
    assert _short_tmp() == "/t" + "x" * 38
    monkeypatch.setattr(tempfile, "tempdir", "/t" + "x" * 39)
    assert _short_tmp() == "/tmp"


def test_quoted_keeps_each_word() -> None:
    assert quoted(["a", "b c", "it's"]) == "a 'b c' 'it'\"'\"'s'"


@pytest.mark.parametrize(
    "said",
    [
        "ssh: connect to host h port 22: Connection refused",
        "ssh: connect to host h port 22: No route to host",
        "ssh: connect to host h port 22: Connection timed out",
        "ssh: Could not resolve hostname h: Temporary failure",
        "ssh: h: Name or service not known",
        "ssh: connect to host h port 22: Network is unreachable",
        "Connection closed by 10.0.0.1 port 22",
        "Connection reset by 10.0.0.1 port 22",
        "client_loop: send disconnect: Broken pipe",
        "Timeout, server h not responding.",
        "rsync: connection unexpectedly closed (0 bytes received so far)",
    ],
)
def test_each_way_of_not_getting_through_is_named(said: str) -> None:
    reason = next(
        r
        for r in ("connection refused", "no route to host", "timed out", "could not resolve",
                  "name or service not known", "network is unreachable", "connection closed",
                  "connection reset", "broken pipe", "timeout, server", "unexpectedly closed")
        if r in said.lower()
    )  # fmt: skip
    assert why(LAB, said) == (
        f"cannot reach lab (me@h): {reason}; check the host, the port and the network"
    )
    assert why(LAB, said, "copying") == "the connection to lab (me@h) dropped while copying"


def test_host_keys_refused_keys_and_the_rest() -> None:
    unknown = (
        "cannot connect to lab (me@h): its host key is not in known_hosts, or it changed; "
        "check it and accept it once with `ssh me@h` (host keys are always checked)"
    )
    assert why(LAB, "Host key verification failed.") == unknown
    assert why(LAB, "No ED25519 host key is known for h and you have requested strict") == unknown
    refused = (
        "lab (me@h) refused the key: add a key the server accepts to ssh_options "
        "(-i KEY) or to your ssh agent"
    )
    assert why(LAB, "me@h: Permission denied (publickey).") == refused
    assert why(LAB, "Received disconnect: Too many authentication failures") == refused
    assert why(LAB, "no such thing\n") == "ssh to lab (me@h) failed: no such thing"
    assert why(LAB, "the host key is known") == "ssh to lab (me@h) failed: the host key is known"
    assert why(LAB, "  \n") == "the connection to lab (me@h) dropped while connect"
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    said = why(LAB, f"first\n\nsecond {token}\n  \n", "x")
    assert said == "ssh to lab (me@h) failed: second ***"
