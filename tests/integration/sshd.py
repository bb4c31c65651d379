"""A real OpenSSH server on 127.0.0.1 for the tests: the "remote" cluster is this machine.

``start_sshd`` writes everything the server and its one client need into a directory
(host key, client key pair, ``authorized_keys``, ``known_hosts``, ``sshd_config``) and
starts ``sshd -D`` as the test's own child. ``SetEnv`` gives every command run through it
the test's environment (``SLURM_CONF``, ``PATH``): sshd applies it after its own default
``PATH``, so the given ``PATH`` replaces it. Two things stand in the way, both handled here:

- sshd keeps only the first ``SetEnv`` line, so every variable goes on one line;
- the remote command runs as ``$SHELL -c COMMAND``, and Debian's bash then reads
  ``~/.bashrc`` (it does so for commands run by sshd), which may put other directories
  (pyenv's shims, cargo's bin) before the given ``PATH``. ``HOME`` is therefore set to an
  empty directory of the harness (``DIRECTORY/home``) unless ``environment`` names one;
  the remote command's working directory stays the user's own home.

The server's log (``LogLevel VERBOSE``) is how a test counts what reached it: one
``Accepted publickey`` line per authenticated connection, one ``Starting session:`` line
per session channel, so commands multiplexed over one ControlMaster connection count
one connection and one session each.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")
PRIVSEP_DIR = Path("/run/sshd")
SETUP = Path(__file__).parent / "harness" / "setup_test_env.sh"
HOST = "127.0.0.1"
START_TIMEOUT = 30.0
BIND_ATTEMPTS = 5
LOG_TAIL = 20
SESSION_LINE = "Starting session:"
CONNECTION_LINE = "Accepted publickey"
BIND_FAILURES = ("Address already in use", "Cannot bind any address")


@dataclass
class Sshd:
    host: str
    port: int
    user: str
    key: Path
    known_hosts: Path
    log: Path
    process: subprocess.Popen[bytes]

    def ssh_options(self, *, key: Path | None = None, known_hosts: Path | None = None) -> list[str]:
        """The client options that reach this server with its key, checking its host key.

        ``key`` and ``known_hosts`` replace the harness's own (a refused key, an unknown
        host key)."""
        return [
            "-i", str(key or self.key),
            "-o", f"UserKnownHostsFile={known_hosts or self.known_hosts}",
            "-o", "IdentitiesOnly=yes",
            "-o", "IdentityAgent=none",
        ]  # fmt: skip

    def sessions(self) -> int:
        """Session channels started so far (multiplexed ones included)."""
        return self._count(SESSION_LINE)

    def connections(self) -> int:
        """Connections authenticated so far."""
        return self._count(CONNECTION_LINE)

    def stop(self) -> None:
        """Stop the listener's process group and the connections it forked, then reap it."""
        if self.process.poll() is None:
            # each connection's sshd starts its own session: it is not in the group
            for child in _children(self.process.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGTERM)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def _count(self, marker: str) -> int:
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return sum(marker in line for line in text.splitlines())


def start_sshd(directory: Path, *, environment: Mapping[str, str]) -> Sshd | str:
    """A listening sshd whose commands see ``environment``, or the reason there is none."""
    missing = _install()
    if missing:
        return missing
    if os.geteuid() == 0:
        PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)
    directory.mkdir(parents=True, exist_ok=True)
    host_key = _keygen(directory / "host_ed25519")
    key = _keygen(directory / "client_ed25519")
    authorized = directory / "authorized_keys"
    authorized.write_text(_public(key) + "\n", encoding="utf-8")
    log = directory / "sshd.log"
    home = directory / "home"
    home.mkdir(exist_ok=True)
    environment = {"HOME": str(home.resolve()), **environment}
    reason = ""
    for _ in range(BIND_ATTEMPTS):
        port = _free_port()
        config = directory / "sshd_config"
        config.write_text(
            _config(directory, port, host_key, authorized, environment), encoding="utf-8"
        )
        log.unlink(missing_ok=True)
        process = subprocess.Popen(
            [str(SSHD), "-D", "-f", str(config), "-E", str(log)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        reason = _wait_listening(process, port, log)
        if not reason:
            known_hosts = directory / "known_hosts"
            known_hosts.write_text(f"[{HOST}]:{port} {_public(host_key)}\n", encoding="utf-8")
            user = "root" if os.geteuid() == 0 else getpass.getuser()
            return Sshd(HOST, port, user, key, known_hosts, log, process)
        if not any(failure in reason for failure in BIND_FAILURES):
            break
    return reason


def other_key(directory: Path) -> Path:
    """A second client key pair, unknown to the server (its private key's path)."""
    directory.mkdir(parents=True, exist_ok=True)
    return _keygen(directory / "other_ed25519")


def unknown_host_file(directory: Path) -> Path:
    """An empty known_hosts: the server's host key is unknown to a client using it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "empty_known_hosts"
    path.write_text("", encoding="utf-8")
    return path


def _install() -> str:
    """Empty when sshd is there (installed now if this is root), else why it is not."""
    if SSHD.exists():
        return ""
    if os.geteuid() != 0:
        return (
            "the OpenSSH server is not installed and this is not root"
            " (apt-get install openssh-server)"
        )
    done = subprocess.run(["bash", str(SETUP)], capture_output=True, text=True, timeout=600)
    if SSHD.exists():
        return ""
    return "installing the OpenSSH server failed:\n" + (done.stdout + done.stderr)[-3000:]


def _keygen(path: Path) -> Path:
    for old in (path, path.with_name(path.name + ".pub")):
        old.unlink(missing_ok=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-N", "", "-t", "ed25519", "-C", path.name, "-f", str(path)],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    return path


def _public(private: Path) -> str:
    """``ssh-ed25519 AAAA...``: the public key without its comment."""
    fields = private.with_name(private.name + ".pub").read_text(encoding="utf-8").split()
    return " ".join(fields[:2])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _config(
    directory: Path, port: int, host_key: Path, authorized: Path, environment: Mapping[str, str]
) -> str:
    lines = [
        f"ListenAddress {HOST}",
        f"Port {port}",
        f"HostKey {host_key.resolve()}",
        f"AuthorizedKeysFile {authorized.resolve()}",
        f"PidFile {directory.resolve() / 'sshd.pid'}",
        "UsePAM no",
        "StrictModes no",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PermitRootLogin prohibit-password",
        "LogLevel VERBOSE",
        "MaxSessions 10",
        "MaxStartups 50",
        "Subsystem sftp internal-sftp",
    ]
    if environment:
        # one line: sshd keeps only the first SetEnv line (its directives are first-match-wins)
        lines.append("SetEnv " + " ".join(_setenv_word(n, v) for n, v in environment.items()))
    return "\n".join(lines) + "\n"


def _setenv_word(name: str, value: str) -> str:
    """``NAME=VALUE`` as one word of sshd_config (double-quoted, which it reads as one)."""
    if not name or not (name[0].isalpha() or name[0] == "_") or not name.replace("_", "").isalnum():
        raise ValueError(f"not an environment variable name for SetEnv: {name!r}")
    if any(c in value for c in '"\\\n\r') or not value.isprintable():
        raise ValueError(f"SetEnv cannot carry the value of {name}: {value!r}")
    return f'"{name}={value}"'


def _wait_listening(process: subprocess.Popen[bytes], port: int, log: Path) -> str:
    """Empty once the server accepts TCP connections on ``port``, else why it does not."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"sshd exited with {process.returncode}:\n{_tail(log)}"
        # its own "Server listening" line: a connect alone may reach a port's other owner
        if f"Server listening on {HOST} port {port}." in _tail(log):
            with socket.socket() as sock:
                sock.settimeout(1)
                if sock.connect_ex((HOST, port)) == 0:
                    return ""
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    return f"sshd did not listen on {HOST}:{port} within {START_TIMEOUT:g}s:\n{_tail(log)}"


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return "(no log)"
    return "\n".join(lines[-LOG_TAIL:])


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(entry.name))
    return found
