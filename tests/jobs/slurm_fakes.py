"""Stand-ins for Slurm's commands, first (and alone) on PATH: each prints what a test put
in its files and records its arguments, one call a line, in ``calls``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CAPTURED = Path(__file__).parent / "captured"


class FakeSlurm:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.log = root / "calls"

    @property
    def path(self) -> str:
        """PATH holding the fakes only (the real Slurm commands are installed here too)."""
        return str(self.bin)

    def tool(self, name: str, body: str) -> None:
        """``name`` records its arguments, then runs ``body`` (POSIX shell, absolute paths)."""
        script = self.bin / name
        script.write_text(f'#!/bin/sh\nprintf "%s\\n" "{name} $*" >> "{self.log}"\n{body}\n')
        script.chmod(0o755)

    def answer(
        self, name: str, stdout: str | bytes = b"", stderr: str | bytes = b"", code: int = 0
    ) -> None:
        """``name`` prints ``stdout`` and ``stderr`` (any bytes) and exits with ``code``."""
        for stream, data in (("out", stdout), ("err", stderr)):
            raw = data.encode() if isinstance(data, str) else data
            (self.root / f"{name}.{stream}").write_bytes(raw)
        out, err = self.root / f"{name}.out", self.root / f"{name}.err"
        self.tool(name, f'/bin/cat "{out}"\n/bin/cat "{err}" >&2\nexit {code}')

    def squeue(self, *jobs: dict[str, Any], **document: Any) -> None:
        """squeue --json listing ``jobs`` (each a captured job with the fields given)."""
        base = json.loads((CAPTURED / "squeue.json").read_text())
        template = base["jobs"][2]
        listed = [{**template, **job} for job in jobs]
        self.answer("squeue", json.dumps({**base, "jobs": listed, **document}))

    def hang(self, name: str) -> None:
        self.tool(name, "exec /bin/sleep 30")

    @property
    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def called(self, name: str) -> list[str]:
        return [call for call in self.calls if call.split(" ")[0] == name]
