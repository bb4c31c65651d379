"""A rank that imports ``marker`` (from PYTHONPATH) once GATE exists, and prints its MARKER.

    marker_import.py GATE

The import waits for the gate, so the test can change the tree after ``submit`` returned
and before the job reads any of it, however fast the job starts (15 minutes at most).
"""

import importlib
import os
import sys
import time
from pathlib import Path


def main() -> int:
    gate = Path(sys.argv[1])
    give_up = time.monotonic() + 900
    while not gate.exists() and time.monotonic() < give_up:
        time.sleep(0.1)
    marker = importlib.import_module("marker")
    os.write(1, f"marker={marker.MARKER} from={Path(marker.__file__).parent}\n".encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
