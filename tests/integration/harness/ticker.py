"""A rank that prints a few lines, slowly, then exits with a chosen code.

    ticker.py TICKS SECONDS EXIT_CODE

Each line is ``rank=R tick=I``, one write() each (lines of ranks sharing one stdout
do not interleave mid-line). No process group: it needs no rendezvous partner.
"""

import os
import sys
import time


def main() -> int:
    ticks, seconds, code = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    rank = os.environ.get("RANK", "?")
    for tick in range(ticks):
        os.write(1, f"rank={rank} tick={tick}\n".encode())
        time.sleep(seconds)
    return code


if __name__ == "__main__":
    sys.exit(main())
