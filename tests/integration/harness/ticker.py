"""A rank that prints a few lines, slowly, then exits with a chosen code.

    ticker.py TICKS SECONDS EXIT_CODE [GATE]

Each line is ``rank=R tick=I``, one write() each (lines of ranks sharing one stdout
do not interleave mid-line). No process group: it needs no rendezvous partner. With
GATE, a path, the rank waits after its last tick until that file exists (15 minutes at
most: a failed test leaves no rank behind for long), then exits: the test keeps the job
running for as long as it looks at it, however slow the machine.
"""

import os
import sys
import time
from pathlib import Path


def main() -> int:
    ticks, seconds, code = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    gate = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    rank = os.environ.get("RANK", "?")
    for tick in range(ticks):
        os.write(1, f"rank={rank} tick={tick}\n".encode())
        time.sleep(seconds)
    give_up = time.monotonic() + 900
    while gate is not None and not gate.exists() and time.monotonic() < give_up:
        time.sleep(0.1)
    return code


if __name__ == "__main__":
    sys.exit(main())
