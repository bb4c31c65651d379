"""The program every job of the contract suite runs (``--entry "work.py {config}"``), on
any launcher: it says which learning rate its config holds, waits until ``release``
appears in its job directory (holding the exit status to end with), says so and ends.

A scheduler the suite stands in for (Slurm, SkyPilot) runs it itself, with ``release``
already there, for the output the job would have left."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

WAIT_SECONDS = 600
"""A job nobody releases ends by itself (exit 99): no test leaves a process behind."""


def main(config: Path) -> int:
    found = re.search(r"^\s+lr:\s*(\S+)", config.read_text(), re.MULTILINE)
    print(f"started with lr {found.group(1) if found else 'none'}", flush=True)
    release = config.parent / "release"
    deadline = time.monotonic() + WAIT_SECONDS
    while not release.exists():
        if time.monotonic() > deadline:
            return 99
        time.sleep(0.05)
    code = int(release.read_text())
    print(f"ended with {code}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
