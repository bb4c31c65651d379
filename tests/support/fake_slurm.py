"""The one stand-in for Slurm's commands (and for any other program a test puts on PATH).

Each command is a script in :attr:`FakeSlurm.bin` that logs its words, then does what the
test said: runs a script (:meth:`~FakeSlurm.tool`), prints a fixed answer, by the words it
is given if the test says so (:meth:`~FakeSlurm.answer`), lists jobs as ``squeue --json``
(:meth:`~FakeSlurm.squeue`) or ``sacct -n -P`` (:meth:`~FakeSlurm.sacct`) does, never
answers (:meth:`~FakeSlurm.hang`), or cannot be started (:meth:`~FakeSlurm.unrunnable`).
:attr:`~FakeSlurm.calls` and :meth:`~FakeSlurm.argv` read the log: what was run, word for
word, in order.

Tests take it as the ``fake_slurm`` fixture (tests/conftest.py): the stand-ins alone on
PATH. A test file that writes its own fails tests/test_stand_ins.py.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

CAPTURED = Path(__file__).resolve().parent.parent / "jobs" / "captured"
"""squeue's answers as the test cluster gave them."""
SACCT_FIELDS = ("JobID", "State", "ExitCode", "Start", "End", "NodeList", "Timelimit", "Reason")
"""The fields of ``sacct -n -P -X -o``, in the order the tool asks for them."""


class FakeSlurm:
    """Stand-ins for Slurm's commands in ``root/bin``; their log is ``root/calls``.

    ``monkeypatch``: what :meth:`alone` and :meth:`in_front` set PATH with.
    """

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch | None = None) -> None:
        self.root = root
        self.bin = root / "bin"
        self.scripts = root / "scripts"
        self.log = root / "calls"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.scripts.mkdir(exist_ok=True)
        self._monkeypatch = monkeypatch
        self._behind = os.environ.get("PATH", "")
        self._answers: dict[str, list[tuple[str | None, str]]] = {}

    # ------------------------------------------------------------------ PATH
    @property
    def path(self) -> str:
        """PATH holding the stand-ins only (the real Slurm commands may be installed here)."""
        return str(self.bin)

    def alone(self) -> None:
        """This process's PATH is :attr:`path`: a program the test did not write is not on it."""
        self._patch().setenv("PATH", self.path)

    def in_front(self) -> None:
        """This process's PATH is the stand-ins, then the PATH the test began with (git,
        bash, python: what a command run as a user needs beside Slurm)."""
        self._patch().setenv("PATH", f"{self.bin}{os.pathsep}{self._behind}")

    def _patch(self) -> pytest.MonkeyPatch:
        if self._monkeypatch is None:
            raise RuntimeError("FakeSlurm sets PATH through the monkeypatch it was given")
        return self._monkeypatch

    # ------------------------------------------------------------------ what they do
    def tool(self, name: str, script: str) -> None:
        """``name`` runs ``script``: a whole script (``#!`` first line), or POSIX shell lines
        (absolute paths: the stand-ins may be alone on PATH). It runs as the command itself:
        the same process, arguments, environment and working directory."""
        self._answers.pop(name, None)
        self._install(name, script if script.startswith("#!") else f"#!/bin/sh\n{script}\n")

    def answer(
        self,
        name: str,
        stdout: str | bytes = b"",
        stderr: str | bytes = b"",
        code: int = 0,
        *,
        when: str | None = None,
    ) -> None:
        """``name`` prints ``stdout`` and ``stderr`` (any bytes) and exits with ``code``; the
        answer given without ``when`` is read from ``root/NAME.out`` and ``root/NAME.err`` at
        each call (a script of another command may change it: scancel empties squeue's list).

        With ``when``, only a call whose words (joined by spaces) match it gets this answer
        (``*`` is any text, the rest is as it is); the first matching answer given wins (one
        given again for the same ``when`` keeps its place). A call that matches none gets the
        answer given without ``when``; none given, it says nothing and exits 0.
        """
        stem = self._stem(name, when)
        out, err = self.root / f"{stem}.out", self.root / f"{stem}.err"
        for path, data in ((out, stdout), (err, stderr)):
            path.write_bytes(data.encode() if isinstance(data, str) else data)
        quoted = shlex.quote(str(out)), shlex.quote(str(err))
        self._answer(name, when, f"/bin/cat {quoted[0]}\n/bin/cat {quoted[1]} >&2\nexit {code}")

    def hang(self, name: str, *, when: str | None = None, seconds: float = 30) -> None:
        """``name`` answers nothing for ``seconds`` (past every timeout a test sets); ``when``
        as for :meth:`answer`."""
        self._answer(name, when, f"exec /bin/sleep {seconds}")

    def unrunnable(self, name: str) -> None:
        """``name`` is on PATH and executable, but no program: starting it fails with
        "Exec format error". Nothing is logged (nothing ran)."""
        self._answers.pop(name, None)
        path = self.bin / name
        path.write_text("not a script")
        path.chmod(0o755)

    def squeue(self, *jobs: Mapping[str, Any], **document: Any) -> None:
        """``squeue --json`` lists ``jobs`` (each a captured job with the fields given; none:
        no job), in the captured answer with ``document``'s fields."""
        base = json.loads((CAPTURED / "squeue.json").read_text())
        template = base["jobs"][2]
        listed = [{**template, **job} for job in jobs]
        self.answer("squeue", json.dumps({**base, "jobs": listed, **document}))

    def sacct(self, *rows: Mapping[str, str]) -> None:
        """``sacct -n -P -X -o`` :data:`SACCT_FIELDS` lists ``rows``: each its fields by name
        (``{"JobID": "3", "State": "TIMEOUT"}``), a field left out empty."""
        unknown = sorted({key for row in rows for key in row} - set(SACCT_FIELDS))
        if unknown:
            raise ValueError(f"sacct has no field {', '.join(unknown)} here: {SACCT_FIELDS}")
        lines = ("|".join(row.get(field, "") for field in SACCT_FIELDS) + "\n" for row in rows)
        self.answer("sacct", "".join(lines))

    # ------------------------------------------------------------------ what was run
    def argv(self, name: str | None = None) -> list[list[str]]:
        """Each call's words, the command's name first, in the order the calls were made (the
        calls of ``name`` alone, if given)."""
        if not self.log.exists():
            return []
        words = [os.fsdecode(word) for word in self.log.read_bytes().split(b"\0")[:-1]]
        calls, at = [], 0
        while at < len(words):
            count = int(words[at + 1])
            calls.append([words[at], *words[at + 2 : at + 2 + count]])
            at += 2 + count
        return [call for call in calls if name is None or call[0] == name]

    @property
    def calls(self) -> list[str]:
        """Each call as ``NAME ARGS`` (its words joined by spaces), in order."""
        return [" ".join(call) for call in self.argv()]

    def called(self, name: str) -> list[str]:
        """:attr:`calls` of ``name`` alone."""
        return [" ".join(call) for call in self.argv(name)]

    # ------------------------------------------------------------------ the scripts
    def _stem(self, name: str, when: str | None) -> str:
        """Where the answer of ``name`` to ``when`` is kept: ``root/NAME.out`` and
        ``root/NAME.err`` given without ``when``, else ``root/NAME.I.out`` ..."""
        if when is None:
            return name
        rules = [rule for rule, _ in self._answers.get(name, [])]
        return f"{name}.{rules.index(when) if when in rules else len(rules)}"

    def _answer(self, name: str, when: str | None, body: str) -> None:
        answers = self._answers.setdefault(name, [])
        rules = [rule for rule, _ in answers]
        if when in rules:
            answers[rules.index(when)] = (when, body)
        else:
            answers.append((when, body))
        cases = "".join(
            f"  {_pattern(rule)})\n{text}\n  ;;\n" for rule, text in answers if rule is not None
        )
        fallback = next((text for rule, text in answers if rule is None), "exit 0")
        script = f'#!/bin/sh\ncase "$*" in\n{cases}esac\n' if cases else "#!/bin/sh\n"
        self._install(name, script + fallback + "\n")

    def _install(self, name: str, script: str) -> None:
        program = self.scripts / name
        program.write_text(script, encoding="utf-8")
        program.chmod(0o755)
        logged = self.bin / name
        logged.write_text(
            "#!/bin/sh\n"
            f'printf \'%s\\0\' {shlex.quote(name)} "$#" "$@" >> {shlex.quote(str(self.log))}\n'
            f'exec {shlex.quote(str(program))} "$@"\n',
            encoding="utf-8",
        )
        logged.chmod(0o755)


def _pattern(when: str) -> str:
    """``when`` as a pattern of sh's ``case``: ``*`` any text, every other character itself."""
    return "*".join(shlex.quote(part) if part else "" for part in when.split("*")) or "''"
