"""Time ``validate`` checking a recipe against the AutoModel source that will run.

The tree is AutoModel 0.7.0's own sources (its wheel, downloaded with ``pip download
--no-deps`` into ``build/wheels`` when missing, unpacked into a temporary checkout), or
``--tree DIR`` (a directory holding ``nemo_automodel/``). Two measures, in new processes:

1. **cold**: ``validate --automodel-source TREE FILE`` with an empty cache directory each
   run (after one untimed run that compiles the tool's bytecode): every Python file
   listed, read and parsed. Target: reading adds at most 2 s, the cold median less the
   cached one below (the whole cold ``validate`` is printed beside it).
2. **cached**: the same with the cache it wrote, interleaved with the floor
   (``floor_peer.py``: import pydantic, load the file with libyaml, validate one model)
   and ``check-jsonschema`` after one untimed warm-up each, as ``bench_validate.py`` does.
   Targets: at most 1.3x the floor's median, at least 1.6x faster than check-jsonschema.

FILE is ``bench_validate.py``'s one config. ``nox -s bench`` runs it; ``--check`` exits 1
on a miss.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from bench_validate import (
    CORPUS,
    FLOOR,
    FLOOR_TARGET,
    ONE_FILE,
    ROOT,
    SCHEMA,
    Case,
    Timing,
    compare,
    console_script,
    print_table,
    run,
    script_python,
)

COLD_TARGET = 2.0
"""Reading a checkout of AutoModel's size, cold: at most this many seconds more than a
cached run."""
PEER_TARGET = 1.6
"""With the cache: at least this many times faster than check-jsonschema."""
RELEASE = "0.7.0"


def wheel(directory: Path) -> Path:
    found = directory / f"nemo_automodel-{RELEASE}-py3-none-any.whl"
    if not found.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q",
             f"nemo-automodel=={RELEASE}", "-d", str(directory)],
            check=True,
        )  # fmt: skip
    return found


def checkout(into: Path) -> Path:
    with zipfile.ZipFile(wheel(ROOT / "build" / "wheels")) as archive:
        names = [n for n in archive.namelist() if n.startswith("nemo_automodel/")]
        archive.extractall(into, names)
    return into


def cold(argv: list[str], env: dict[str, str], repeat: int, scratch: Path) -> Timing:
    timing = Timing("automodel-launch", [], [])
    for n in range(repeat):
        fresh = {**env, "XDG_CACHE_HOME": str(scratch / f"cold-{n}")}
        wall, cpu = run(argv, fresh)
        timing.wall.append(wall)
        timing.cpu.append(cpu)
    return timing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--python", type=Path, default=Path(sys.executable))
    parser.add_argument("--tree", type=Path, help="a directory holding nemo_automodel/")
    parser.add_argument("--repeat", type=int, default=10, help="cached runs (default 10)")
    parser.add_argument("--repeat-cold", type=int, default=5, help="cold runs (default 5)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args, _ = parser.parse_known_args(argv)  # nox passes bench_validate.py's options too
    python = Path(os.path.abspath(args.python))
    one = args.corpus.resolve() / ONE_FILE
    ours = [*console_script(python, "automodel-launch", "automodel_launch"), "validate"]
    peer = [*console_script(python, "check-jsonschema", "check_jsonschema"),
            "--schemafile", str(SCHEMA), str(one)]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-automodel-") as scratch_dir:
        scratch = Path(scratch_dir)
        tree = args.tree.resolve() if args.tree else checkout(scratch / "checkout")
        files = sorted((tree / "nemo_automodel").rglob("*.py"))
        size = sum(p.stat().st_size for p in files) / 1e6
        print(f"tree: {tree} ({len(files)} Python files, {size:.1f} MB); file: {one}")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        command = [*ours, "--no-check-paths", "--automodel-source", str(tree), str(one)]
        cold(command, env, 1, scratch / "compiling")  # bytecode written, untimed
        first = cold(command, env, args.repeat_cold, scratch)
        env["XDG_CACHE_HOME"] = str(scratch / "warm")
        floor = [str(script_python(ours, python)), str(FLOOR), str(one)]
        mine, peers = compare(command, {"floor": floor, "check-jsonschema": peer}, args.repeat, env)
    cases = [
        Case("cached vs floor", mine, peers["floor"], FLOOR_TARGET, within=True),
        Case("cached vs peer", mine, peers["check-jsonschema"], PEER_TARGET),
    ]
    print_table(cases)
    cold_median = statistics.median(first.wall)
    cached_median = statistics.median(mine.wall)
    reading = cold_median - cached_median
    cold_ok = reading <= COLD_TARGET
    print(
        f"{'PASS' if cold_ok else 'MISS'}  cold read: a cold validate's median "
        f"{cold_median:.2f} s wall ({statistics.median(first.cpu):.2f} s CPU), a cached one's "
        f"{cached_median:.2f} s: reading adds {reading:.2f} s (target at most {COLD_TARGET:g} s)"
    )
    for case in cases:
        what = (
            f"{case.cost:.2f}x the floor's time (target at most {case.target:g}x)"
            if case.within
            else f"{case.speedup:.2f}x faster than check-jsonschema (target {case.target:g}x)"
        )
        print(f"{case.verdict}  {case.name}: {what}")
    missed = not cold_ok or not all(case.passed for case in cases)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
