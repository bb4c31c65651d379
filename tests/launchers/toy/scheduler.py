"""The toy scheduler: ``toy-submit``, ``toy-queue`` and ``toy-cancel``, one program (the
command is its first argument; :func:`install` writes the three commands).

Its jobs are real processes: ``toy-submit SCRIPT`` starts ``bash SCRIPT`` in the current
directory as a process group of its own, its output in ``toy-ID.log`` there, and
prints the job's id (``t1``, ``t2`` ...). What it knows of its jobs is kept in
``$TOY_HOME/jobs/ID/``: ``pid`` (the group), ``code`` (the exit status, once the job has
ended), ``cancelled`` (``toy-cancel`` was asked). ``toy-queue [ID...]`` prints one line a
job, ``ID STATE CODE`` (``-`` for no code yet), STATE one of ``RUNNING``, ``DONE``,
``CANCELLED``, ``LOST`` (gone, no exit status) or ``NONE`` (no such job).

Standard library only: it runs as a command, outside the tests' process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = ("submit", "queue", "cancel")
LEADER = 'bash "$1" > "$2" 2>&1; code=$?; printf "%s\\n" "$code" > "$3.new"; mv "$3.new" "$3"'
"""The job's leader: runs the script, then records its exit status (renamed into place,
so a reader never sees half of it)."""


def install(bin_dir: Path, home: Path) -> None:
    """``toy-submit``, ``toy-queue`` and ``toy-cancel`` in ``bin_dir``, keeping their jobs
    under ``home``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    for command in COMMANDS:
        path = bin_dir / f"toy-{command}"
        path.write_text(
            f'#!/bin/sh\nTOY_HOME="{home}" exec "{sys.executable}" "{__file__}" {command} "$@"\n'
        )
        path.chmod(0o755)


def _jobs() -> Path:
    return Path(os.environ["TOY_HOME"]) / "jobs"


def submit(args: list[str]) -> int:
    if len(args) != 1:
        print("usage: toy-submit SCRIPT", file=sys.stderr)
        return 2
    script = Path(args[0])
    if not script.is_file():
        print(f"toy-submit: no script {script}", file=sys.stderr)
        return 1
    _jobs().mkdir(parents=True, exist_ok=True)
    number = 1
    while True:  # the first free id, claimed by making its directory
        record = _jobs() / f"t{number}"
        try:
            record.mkdir()
            break
        except FileExistsError:
            number += 1
    job_id = record.name
    leader = subprocess.Popen(
        ["sh", "-c", LEADER, "toy-job", str(script), f"toy-{job_id}.log", str(record / "code")],
        env={**os.environ, "TOY_JOB_ID": job_id},
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    (record / "pid").write_text(f"{leader.pid}\n")
    print(job_id)
    return 0


def _alive(group: int) -> bool:
    """A process of the group still runs (a zombie left for init to reap does not)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


def _state(job_id: str) -> tuple[str, str]:
    record = _jobs() / job_id
    if not job_id or "/" in job_id or not (record / "pid").is_file():
        return "NONE", "-"
    code = (record / "code").read_text().strip() if (record / "code").is_file() else "-"
    if (record / "cancelled").exists():
        return "CANCELLED", code
    if code != "-":
        return "DONE", code
    if _alive(int((record / "pid").read_text())):
        return "RUNNING", code
    if (record / "code").is_file():  # it wrote its code and ended between the two looks
        return "DONE", (record / "code").read_text().strip()
    return "LOST", code


def queue(args: list[str]) -> int:
    known = sorted(p.name for p in _jobs().iterdir()) if _jobs().is_dir() else []
    for job_id in args or known:
        state, code = _state(job_id)
        print(f"{job_id} {state} {code}")
    return 0


def cancel(args: list[str]) -> int:
    for job_id in args:
        state, _ = _state(job_id)
        if state != "RUNNING":
            print(f"toy-cancel: {job_id} is {state}", file=sys.stderr)
            continue
        record = _jobs() / job_id
        (record / "cancelled").write_text("")
        group = int((record / "pid").read_text())
        os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _alive(group) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(group):
            os.killpg(group, signal.SIGKILL)
        print(f"cancelled {job_id}")
    return 0


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    sys.exit({"submit": submit, "queue": queue, "cancel": cancel}[command](rest))
