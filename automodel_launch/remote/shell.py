"""The one remote shell a command runs every Slurm command in: one SSH session.

A POSIX ``sh`` on the cluster is sent :data:`PREAMBLE`, then reads requests on its
standard input with ``read`` (a shell reading its script from a pipe may read ahead; its
``read`` takes one line and no more). A request is one line, in base64 (a word may hold a
newline), of

    __r TIMEOUT CWD INPUT LIMIT [NAME...] -- COMMAND [ARG...]

every word quoted for the shell. For each ``NAME`` (a credential the command needs in its
environment) one more line follows, the value in base64; then, when ``INPUT`` is 1, one
line with the command's standard input in base64. The shell keeps the values in its own
variables, exports them in the command's process only, and answers with three lines:
``@@ STATUS OUTBYTES ERRBYTES``, then the command's output and its error output, each in
base64 and cut at ``LIMIT`` bytes. So a credential is on no command line and in no file
on either side, and what a command prints can never pass for an answer (it is encoded).

``timeout`` on the cluster ends a command past its time, with KILL two seconds after TERM
for one that ignores TERM (exit 124, or 137 once its time is up: :class:`Unanswered`);
this side waits that long and a little more, then takes the connection for dropped.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence

from automodel_launch.launchers.slurm.cluster.client import Answer, NoSlurm, Unanswered
from automodel_launch.remote.ssh import quoted

SLACK = 15.0
"""Seconds this side waits beyond a command's own timeout before the connection is
taken for dropped."""
START = 30.0
"""Seconds the shell has to answer that it is ready."""
MAX_LINE_SLACK = 1024
TIMED_OUT = 124
"""``timeout``'s status when the command ended on TERM at the end of its time."""
KILLED = 128 + 9
"""``timeout``'s status when the command ignored TERM and was killed (``-k``) two seconds
later; before its time, a command killed by another hand."""
MAX_GREETING_LINES = 200
"""Lines a login file may print before the shell says it is ready."""
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")

PREAMBLE = r"""umask 077
__d=$(mktemp -d 2>/dev/null) || { echo '@@ missing mktemp'; exit 1; }
trap 'rm -rf "$__d"' EXIT
for __p in base64 timeout head wc tr; do
  command -v "$__p" >/dev/null 2>&1 || { echo "@@ missing $__p"; exit 1; }
done
__b() { base64 | tr -d '\n'; echo; }
__r() {
  __t=$1; __c=$2; __in=$3; __lim=$4; shift 4; __ns=
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
    case $1 in ''|[0-9]*|*[!A-Za-z0-9_]*) echo '@@ bad-name'; exit 1;; esac
    IFS= read -r __l || exit 0
    eval "__sv_$1=\$(printf '%s' \"\$__l\" | base64 -d)"
    __ns="$__ns $1"; shift
  done
  shift; __l=; __i=/dev/null
  if [ "$__in" = 1 ]; then
    IFS= read -r __l || exit 0
    printf '%s' "$__l" | base64 -d >"$__d/i"; __l=; __i=$__d/i
  fi
  (
    for __n in $__ns; do eval "export $__n=\"\$__sv_$__n\""; done
    if [ -n "$__c" ]; then cd -- "$__c" || exit 126; fi
    exec timeout -k 2 "$__t" "$@"
  ) <"$__i" >"$__d/o" 2>"$__d/e"
  __s=$?
  for __n in $__ns; do unset "__sv_$__n"; done
  printf '@@ %s %s %s\n' "$__s" "$(wc -c <"$__d/o")" "$(wc -c <"$__d/e")"
  head -c "$__lim" "$__d/o" | __b
  head -c "$__lim" "$__d/e" | __b
  rm -f "$__d/o" "$__d/e" "$__d/i"
}
echo '@@ ready'
while IFS= read -r __q; do eval "$(printf '%s' "$__q" | base64 -d)"; done
"""


class ShellLost(Exception):
    """The shell ended or stopped answering; ``said`` is what its stderr held (ssh's
    reason), for :func:`automodel_launch.remote.ssh.why`."""

    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


class RemoteShell:
    """A shell started by ``argv`` (``ssh ... HOST -- sh``, or ``sh`` itself in tests)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self.process: subprocess.Popen[bytes] | None = None
        self._out = bytearray()
        self._err = bytearray()
        self._known: dict[str, bool] = {}

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        """Start the shell and wait until it says it is ready; :class:`ShellLost`."""
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True,
        )  # fmt: skip
        self._send(PREAMBLE.encode())
        deadline = time.monotonic() + START
        for _ in range(MAX_GREETING_LINES):  # a login file may print a greeting first
            line = self._line(deadline, 4096)
            if line == "@@ ready":
                return
            if line.startswith("@@ missing "):
                self._lost()
                raise ShellLost(line)
            if line.startswith("@@ "):
                break
        self._lost()
        raise ShellLost(self.said() or line)

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            assert process.stdin is not None
            process.stdin.write(_b64(b"exit") + b"\n")  # a request, as every line it reads
            process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            _kill(process)
        for stream in (process.stdout, process.stderr):
            with contextlib.suppress(OSError):
                assert stream is not None
                stream.close()

    def said(self) -> str:
        return bytes(self._err[-16384:]).decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ requests
    def run(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        cwd: str | None = None,
        limit: int,
        name: str | None = None,
        stdin: bytes | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> Answer:
        """One command's answer, as :func:`~automodel_launch.launchers.slurm.cluster.commands.run`
        gives it;
        :class:`Unanswered` after ``timeout``, :class:`NoSlurm` when the program is not
        there, :class:`ShellLost` when the connection dropped."""
        if self.process is None:
            raise ShellLost("")
        names = sorted(secrets or {})
        for key in names:
            if not _NAME.fullmatch(key):
                raise ValueError(f"{key!r} is not a variable name")
        seconds = max(1, int(timeout + 0.999))
        words = ["__r", str(seconds), cwd or "", "1" if stdin is not None else "0", str(limit),
                 *names, "--", *command]  # fmt: skip
        lines = [_b64(quoted(words).encode())]
        lines += [_b64((secrets or {})[key].encode()) for key in names]
        if stdin is not None:
            lines.append(_b64(stdin))
        started = time.monotonic()
        self._send(b"\n".join(lines) + b"\n")
        deadline = started + seconds + SLACK
        head = self._line(deadline, 4096).split()
        if len(head) != 4 or head[0] != "@@" or not all(w.isdigit() for w in head[1:]):
            self._lost()
            raise ShellLost(self.said() or " ".join(head))
        status, out_bytes, err_bytes = (int(w) for w in head[1:])
        most = (limit + 2) // 3 * 4 + MAX_LINE_SLACK
        stdout = _unb64(self._line(deadline, most))
        stderr = _unb64(self._line(deadline, most))
        answer = Answer(
            status, _text(stdout), _text(stderr), out_bytes > limit or err_bytes > limit
        )
        if status == TIMED_OUT or (status == KILLED and time.monotonic() - started >= seconds):
            raise Unanswered(command, timeout, answer.stderr, name)
        if status in (126, 127) and "failed to run command" in answer.stderr:
            raise NoSlurm(f"cannot run {command[0]} on the cluster: {answer.said}")
        if status == 126 and cwd and not answer.stdout and "cd" in answer.stderr:
            raise NoSlurm(f"cannot run {command[0]} on the cluster: no directory {cwd} there")
        return answer

    def has(self, program: str, timeout: float = 10.0) -> bool:
        """``program`` is on the cluster's PATH (asked once)."""
        if program not in self._known:
            answer = self.run(["sh", "-c", 'command -v -- "$1" >/dev/null', "sh", program],
                              timeout=timeout, limit=4096)  # fmt: skip
            self._known[program] = answer.returncode == 0
        return self._known[program]

    # ------------------------------------------------------------------ wire
    def _send(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except OSError:
            self._lost()
            raise ShellLost(self.said()) from None

    def _line(self, deadline: float, most: int) -> str:
        """The next line of the shell's output (without its newline), at most ``most``
        bytes; :class:`ShellLost` at its end, past ``deadline``, or when it is longer."""
        process = self.process
        assert process is not None and process.stdout is not None and process.stderr is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            selector.register(process.stderr, selectors.EVENT_READ)
            while b"\n" not in self._out:
                if len(self._out) > most:
                    break
                left = deadline - time.monotonic()
                if left <= 0 or not selector.get_map():
                    break
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        if key.fileobj is process.stdout:
                            break
                    elif key.fileobj is process.stderr:
                        self._err.extend(chunk)
                        del self._err[:-65536]
                    else:
                        self._out.extend(chunk)
                if process.stdout not in {k.fileobj for k in selector.get_map().values()}:
                    break
        line, newline, rest = bytes(self._out).partition(b"\n")
        if not newline or len(line) > most:
            self._lost()
            raise ShellLost(self.said())
        self._out = bytearray(rest)
        return line.decode("ascii", errors="replace")

    def _lost(self) -> None:
        """The shell is gone or no longer trusted: what it said last is kept, it is killed."""
        process, self.process = self.process, None
        if process is None:
            return
        assert process.stderr is not None
        deadline = time.monotonic() + 2
        with selectors.DefaultSelector() as selector:
            selector.register(process.stderr, selectors.EVENT_READ)
            while (left := deadline - time.monotonic()) > 0 and selector.select(left):
                chunk = os.read(process.stderr.fileno(), 1 << 16)
                if not chunk:
                    break
                self._err.extend(chunk)
                del self._err[:-65536]
        _kill(process)


def _b64(data: bytes) -> bytes:
    return base64.b64encode(data)


def _unb64(line: str) -> bytes:
    try:
        return base64.b64decode(line, validate=True)
    except ValueError:
        raise ShellLost("the cluster's shell answered what is not base64") from None


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        process.wait(5)
