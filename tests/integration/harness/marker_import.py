"""A rank that imports ``marker`` (from PYTHONPATH) once GATE exists, and prints its MARKER
(and the environment's LABEL and AGAIN, ``-`` when unset).

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
    where = Path(marker.__file__).parent
    label, again = os.environ.get("LABEL", "-"), os.environ.get("AGAIN", "-")
    os.write(1, f"marker={marker.MARKER} from={where} label={label} again={again}\n".encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
