"""A job's own notifier, written into its job directory as ``notify.py`` (``slurm.notify``).

    python3 notify.py EVENT [--exit-code N] [--wait SECONDS]

The job's script runs it from its traps (docs/notifications.md): standard library only,
for whatever ``python3`` the node has (3.7 or later). It reads ``notify.json`` beside it,
the job's log and torch's error files (bounded tails, no link followed), builds one JSON
message, and POSTs it to the URL held by the variable ``webhook_env`` names and/or gives
it to ``command`` on its standard input. Each destination gets one retry; the whole
notification ends within ``timeout_seconds``. It always exits 0 and prints one line, which
never holds the URL (an exception's text may: only its class is printed).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

TAIL_BYTES = 64 * 1024
ERROR_FILE_BYTES = 256 * 1024
MAX_ERROR_FILES = 64
MIN_MASKED = 8
MASK = "***"
MAX_TEXT = 300
STATES = {"start": "RUNNING", "end": "COMPLETED", "fail": "FAILED", "requeue": "REQUEUED",
          "time_limit_near": "RUNNING"}  # fmt: skip
_MARKS = (
    ("time-limit", re.compile(r"CANCELLED AT \S+ DUE TO TIME LIMIT")),
    ("preempted", re.compile(r"CANCELLED AT \S+ DUE TO PREEMPTION")),
    ("node-failure", re.compile(r"CANCELLED AT \S+ DUE TO NODE FAILURE")),
)
"""What Slurm writes in the job's log when it stops the job."""
_CAUSES = (
    ("oom-gpu", re.compile(r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory"
                           r"|HIP out of memory|CUBLAS_STATUS_ALLOC_FAILED")),
    ("oom-host", re.compile(r"\bMemoryError\b|Cannot allocate memory|oom[-_]kill"
                            r"|Out of memory: Kill|OOM Killed", re.IGNORECASE)),
    ("nccl", re.compile(r"\bNCCL (?:error|timeout|WARN)|nccl\w*Error\b"
                        r"|Watchdog caught collective operation")),
    ("import-error", re.compile(r"\b(?:ModuleNotFoundError|ImportError)\b")),
)  # fmt: skip
"""The failure's kind, in the words of ``status``'s ``failure.cause``."""
_RANK = re.compile(r"^\[rank(\d+)\]:")
_EXCEPTION = re.compile(
    r"^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure)): ?(.*)$"
)
_ROOT_CAUSE = re.compile(
    r"Root Cause \(first observed failure\):.*?time\s*:\s*(\S+).*?rank\s*:\s*(\d+).*?"
    r"exitcode\s*:\s*(-?\d+)",
    re.DOTALL,
)
_PROGRESS = re.compile(r"(?<![\w\]])step (\d+) \| epoch (\d+) \| loss ([-+0-9.eE]+|nan|inf)\b")
_AGENT_ERRORS = ("ChildFailedError",)
"""torchrun's own report of a failed rank: the rank's error says more."""


def read_tail(path: str, limit: int = TAIL_BYTES) -> str | None:
    """The last ``limit`` bytes of a regular file, never through a link; None if unreadable."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        start = max(0, info.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        chunks, size = [], 0
        while size < limit:
            chunk = os.read(fd, limit - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    text = b"".join(chunks).decode("utf-8", "replace")
    return text.partition("\n")[2] if start else text


def log_name(environ: dict[str, str]) -> str:
    """The job's log, as the script's ``--output`` names it."""
    name = environ.get("SLURM_JOB_NAME", "job")
    task = environ.get("SLURM_ARRAY_TASK_ID")
    if task is not None and environ.get("SLURM_ARRAY_JOB_ID"):
        return f"{name}_{environ['SLURM_ARRAY_JOB_ID']}_{task}.out"
    return f"{name}_{environ.get('SLURM_JOB_ID', '')}.out"


def job_id(environ: dict[str, str]) -> str | None:
    task = environ.get("SLURM_ARRAY_TASK_ID")
    if task is not None and environ.get("SLURM_ARRAY_JOB_ID"):
        return f"{environ['SLURM_ARRAY_JOB_ID']}_{task}"
    return environ.get("SLURM_JOB_ID")


def error_file_messages(job_dir: str) -> list[str]:
    """The first line of each node agent's error file (``errors/node*.json``), earliest first."""
    folder = os.path.join(job_dir, "errors")
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return []
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        return []
    found = []
    for name in names[:MAX_ERROR_FILES]:
        text = read_tail(os.path.join(folder, name), ERROR_FILE_BYTES)
        try:
            document = json.loads(text) if text else None
        except ValueError:
            continue
        message = document.get("message") if isinstance(document, dict) else None
        stamp = 0
        if isinstance(message, dict):
            extra = message.get("extraInfo")
            stamp_text = str(extra.get("timestamp") if isinstance(extra, dict) else "")
            stamp = int(stamp_text) if stamp_text.isdigit() else 0
            message = message.get("message")
        if isinstance(message, str) and message.strip():
            found.append((stamp, message.strip().splitlines()[-1]))
    return [message for _, message in sorted(found, key=lambda item: item[0])]


def progress(lines: list[str]) -> dict[str, object]:
    """The last training step rank 0 logged (AutoModel's ``step N | epoch E | loss X``)."""
    for line in reversed(lines):
        rank = _RANK.match(line)
        if (rank and rank.group(1) != "0") or "[val]" in line:
            continue
        found = _PROGRESS.search(line)
        if found:
            loss: float | None = float(found.group(3))
            if loss != loss or abs(loss or 0.0) == float("inf"):
                loss = None  # NaN or infinite: no number JSON can carry
            return {"step": int(found.group(1)), "epoch": int(found.group(2)), "loss": loss}
    return {"step": None, "epoch": None, "loss": None}


def exception_line(lines: list[str], rank: int | None) -> str | None:
    """The last exception line, of ``rank``'s lines when it is known."""
    fallback = None
    for line in reversed(lines):
        tagged = _RANK.match(line)
        text = line[tagged.end() :].strip() if tagged else line.strip()
        found = _EXCEPTION.match(text)
        if not found or found.group(1).rpartition(".")[2] in _AGENT_ERRORS:
            continue
        if rank is None or (tagged and int(tagged.group(1)) == rank):
            return text
        fallback = fallback or text
    return fallback


def first_root(roots: list[tuple[str, str, str]]) -> tuple[int | None, int | None]:
    """Of each node's agent's root cause (time, rank, exit code), the first failure: a rank
    that exited on its own before one a signal stopped (Slurm stops the other nodes' ranks
    once one failed), then the earliest."""
    if not roots:
        return None, None
    _, rank, code = min(roots, key=lambda root: (int(root[2]) < 0, root[0]))
    return int(rank), int(code)


def failure(job_dir: str, log: str, exit_code: int | None) -> dict[str, object]:
    """``cause`` (a kind, as ``status`` names it), ``summary`` (one sentence), ``error``
    (the exception line) and ``rank`` (the first that failed) of a failed run."""
    lines = log.splitlines()
    rank, code = first_root(_ROOT_CAUSE.findall(log))
    errors = error_file_messages(job_dir)
    error = errors[0] if errors else exception_line(lines, rank)
    cause = next((kind for kind, mark in _MARKS if mark.search(log)), None)
    if cause is None and error is not None:
        cause = next((kind for kind, pattern in _CAUSES if pattern.search(error)), None)
    if cause is None:
        cause = "exit-code" if rank is not None or exit_code else "unknown"
    why = f": {error}" if error else ": its last lines say why."
    if rank is not None:
        summary = f"Rank {rank} exited with code {code}{why}"
    elif cause in ("time-limit", "preempted", "node-failure"):
        summary = "Slurm stopped the job: " + cause.replace("-", " ") + "."
    else:
        summary = f"The job exited with code {exit_code}{why}"
    return {"cause": cause, "summary": summary, "error": error, "rank": rank}


def describe(message: dict[str, object], near_minutes: int) -> str:
    """The ``text`` line chat services show as it is."""
    who = f"Job {message['job_name']} ({message['job_id']})"
    event = message["event"]
    where = ""
    if message["step"] is not None:
        where = f" at step {message['step']}"
        if message["loss"] is not None:
            where += f", loss {message['loss']:.4g}"
    if event == "start":
        again = f" (run {int(str(message['restart'])) + 1})" if message["restart"] else ""
        return f"{who} started on {message['host']}{again}."
    if event == "end":
        return f"{who} completed{where}."
    if event == "fail":
        return f"{who} failed (exit {message['exit_code']}){where}: {message['summary']}"
    if event == "requeue":
        return f"{who} was requeued{where}; it resumes from its latest checkpoint."
    return f"{who} is {near_minutes} minutes from its time limit{where}."


def build(event: str, exit_code: int | None, job_dir: str, config: dict[str, object],
          environ: dict[str, str]) -> dict[str, object]:  # fmt: skip
    log = read_tail(os.path.join(job_dir, log_name(environ))) or ""
    restart = environ.get("SLURM_RESTART_COUNT", "0")
    message: dict[str, object] = {
        "event": event,
        "state": STATES[event],
        "job_id": job_id(environ),
        "job_name": environ.get("SLURM_JOB_NAME"),
        "restart": int(restart) if restart.isdigit() else 0,
        "host": socket.gethostname(),
        "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "job_dir": job_dir,
        "exit_code": exit_code,
        "cause": None, "summary": None, "error": None, "rank": None,
    }  # fmt: skip
    if event == "fail":
        message.update(failure(job_dir, log, exit_code))
    message.update(progress(log.splitlines()))
    near = config.get("time_limit_near_minutes")
    message["text"] = describe(message, near if isinstance(near, int) else 0)
    return message


def masked(message: dict[str, object], values: list[str]) -> dict[str, object]:
    """Every text with the credentials' values masked, and cut to a chat line's length."""
    out: dict[str, object] = {}
    for key, value in message.items():
        if isinstance(value, str):
            for secret in values:
                value = value.replace(secret, MASK)
            if key != "job_dir" and len(value) > MAX_TEXT:
                value = value[: MAX_TEXT - 3] + "..."
        out[key] = value
    return out


def _why(exc: BaseException) -> str:
    """What went wrong, without the exception's text (a URL can be in it)."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}"
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return "no answer in time"
        return type(reason).__name__ if isinstance(reason, BaseException) else "URLError"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "no answer in time"
    return type(exc).__name__


def post(url: str, body: bytes, seconds: float) -> str | None:
    """None when the receiver took it (2xx), else why not."""
    try:  # a malformed URL fails already here, its text in the exception
        request = urllib.request.Request(
            url, data=body, method="POST",
            headers={"Content-Type": "application/json", "User-Agent": "automodel-launch-notify"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=max(seconds, 0.1)) as answer:
            status = answer.status
    except Exception as exc:  # every failure is reported, none raised
        return _why(exc)
    return None if 200 <= status < 300 else f"HTTP {status}"


def run_command(argv: list[str], body: bytes, seconds: float) -> str | None:
    """None when the command took it (exit 0), else why not; its output is discarded."""
    try:
        child = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        return type(exc).__name__
    try:
        child.communicate(body, timeout=max(seconds, 0.1))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        return "no answer in time"
    except OSError as exc:
        return type(exc).__name__
    return None if child.returncode == 0 else f"exit {child.returncode}"


def deliver(send: object, deadline: float) -> str:
    """One attempt, and one retry when it fails, both before ``deadline``."""
    said = []
    for attempt in (1, 2):
        left = deadline - time.monotonic()
        if left <= 0.05:
            said.append("no time left")
            break
        try:
            why = send(left / 2 if attempt == 1 else left)  # type: ignore[operator]
        except Exception as exc:  # reported by its class: its text may hold the URL
            why = type(exc).__name__
        if why is None:
            return "sent" + (" on the retry" if attempt == 2 else "")
        said.append(why)
        if attempt == 1:
            time.sleep(min(0.5, max(0.0, (deadline - time.monotonic()) / 4)))
    return "not sent (" + "; retry: ".join(said) + ")"


def notify(argv: list[str], environ: dict[str, str], job_dir: str, settings: str) -> str:
    """Send one notification (``settings``: the path of its JSON); the line to print."""
    event = argv[0] if argv else ""
    # no zip(strict=), nor anything else newer than the node's python3 may be
    options = {argv[i]: argv[i + 1] for i in range(1, len(argv) - 1, 2)}
    if event not in STATES:
        return f"automodel-launch: notify: unknown event {event[:40]!r}"
    text = read_tail(settings)
    config = json.loads(text) if text else {}
    if not isinstance(config, dict) or event not in (config.get("events") or []):
        return ""
    wait = options.get("--wait", "")
    if wait.isdigit():
        time.sleep(int(wait))
    bound = config.get("timeout_seconds")
    deadline = time.monotonic() + (bound if isinstance(bound, int) and bound > 0 else 10)
    code = options.get("--exit-code", "")
    exit_code = int(code) if code.lstrip("-").isdigit() else None
    name = config.get("webhook_env")
    url = environ.get(name, "") if isinstance(name, str) else ""
    names = [n for n in config.get("mask") or [] if isinstance(n, str)]
    secrets = [environ[n] for n in names if len(environ.get(n, "")) >= MIN_MASKED]
    secrets = sorted({*secrets, *([url] if url else [])}, key=len, reverse=True)
    message = masked(build(event, exit_code, job_dir, config, environ), secrets)
    body = json.dumps(message).encode("utf-8")
    sends: list[tuple[str, object]] = []
    said: list[str] = []
    if isinstance(name, str):
        if not url:
            said.append(f"webhook: {name} is not set")
        elif not url.lower().startswith(("http://", "https://")):
            said.append(f"webhook: {name} does not hold an http(s) URL")
        else:
            sends.append(("webhook", lambda s: post(url, body, s)))
    command = config.get("command")
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        sends.append(("command", lambda s: run_command(command, body, s)))
    results: dict[str, str] = {}
    threads = [
        threading.Thread(target=lambda n=n, s=s: results.update({n: deliver(s, deadline)}),
                         daemon=True)
        for n, s in sends
    ]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()) + 0.5)
    said += [f"{n}: {results.get(n, 'not sent (no answer in time)')}" for n, _ in sends]
    return f"automodel-launch: notify {event}: " + ("; ".join(said) or "nowhere to send")


def main() -> None:
    # an exception in a sending thread is never printed (its traceback may hold the URL)
    threading.excepthook = lambda args: None
    try:
        here = os.path.abspath(__file__)
        # the settings are beside this file, of its name: notify.py reads notify.json
        line = notify(sys.argv[1:], dict(os.environ), os.path.dirname(here),
                      os.path.splitext(here)[0] + ".json")  # fmt: skip
        if line:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
    except BaseException as exc:  # a notification never fails the job
        with contextlib.suppress(BaseException):
            sys.stderr.write(f"automodel-launch: notify: {type(exc).__name__}\n")
            sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
