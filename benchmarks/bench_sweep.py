"""Time a 100-point Slurm sweep from the command line to its recorded jobs.

``automodel-launch submit RECIPE --sweep optimizer.lr=V1,...,V100 --max-parallel 10``
validates every point, renders each point's job config and the one array script, writes
the sweep's job directory, calls ``sbatch`` once and records 100 jobs in the registry.
``sbatch`` here is a stand-in on ``PATH`` that counts its calls and answers a job id (the
real scheduler's time is not ours); the registry is a fresh one in a temporary state
directory. Target: at most 5 s (median of the runs), exactly one ``sbatch`` call.

    python benchmarks/bench_sweep.py [--points 100] [--repeat 3] [--check]

``nox -s bench`` runs it after bench_validate.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from submit_bench import prepare, sbatch_calls, timed_submit

TARGET_SECONDS = 5.0


def one_run(python: Path, points: int, folder: Path) -> tuple[float, int]:
    """Seconds of one submit, and how many times sbatch was called."""
    prepare(folder)
    values = ",".join(f"{(i + 1) * 1e-6:.6g}" for i in range(points))
    seconds = timed_submit(
        python, folder, "--sweep", f"optimizer.lr={values}", "--max-parallel", "10",
        expect=f"recorded {points} points as sweep",
    )  # fmt: skip
    return seconds, sbatch_calls(folder)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--python", type=Path, default=Path(sys.executable))
    parser.add_argument("--points", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            runs.append(one_run(args.python, args.points, Path(folder)))
    median = statistics.median(seconds for seconds, _ in runs)
    calls = {count for _, count in runs}
    ok = median <= TARGET_SECONDS and calls == {1}
    print(f"{args.points}-point sweep, validate + render + submit + record: median "
          f"{median:.2f} s (runs: {', '.join(f'{s:.2f}' for s, _ in runs)}), sbatch calls per "
          f"submit: {sorted(calls)}; target <= {TARGET_SECONDS:g} s and 1 call: "
          f"{'PASS' if ok else 'MISS'}")  # fmt: skip
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
