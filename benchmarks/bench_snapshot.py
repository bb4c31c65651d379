"""Time what the code snapshot adds to ``submit``, on a checkout the size of AutoModel's.

A synthetic git tree stands in for the checkout (nothing is fetched): ``--files`` files
(default 1,500) in nested packages, ``--megabytes`` in all (default 20 MB: most files a
few KB of Python, a few of them larger, as AutoModel's tree is), committed, then 20
tracked files changed and 10 untracked ones added (a dirty tree: the diff is taken too).
``submit RECIPE`` (its ``slurm.repo_root`` that tree) is timed with the snapshot and with
``--no-snapshot``, alternating, in new processes; ``sbatch`` is a stand-in on ``PATH``
that answers a job id. Target: the snapshot adds at most 1 s (difference of the medians).

    python benchmarks/bench_snapshot.py [--files 1500] [--megabytes 20] [--repeat 5] [--check]

``nox -s bench`` runs it after bench_sweep.py.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from submit_bench import prepare, timed_submit

TARGET_SECONDS = 1.0
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def checkout(root: Path, files: int, megabytes: float) -> int:
    """A dirty git tree of ``files`` files, ``megabytes`` in all; its size in bytes."""
    rng = random.Random(19)
    total = int(megabytes * 1e6)
    large = max(1, files // 100)  # 1 in 100 files holds half the bytes (notebooks, data)
    sizes = [total // 2 // large] * large
    small = files - large
    sizes += [
        max(1, int(rng.expovariate(1 / ((total - sum(sizes)) / small)))) for _ in range(small)
    ]
    written = 0
    for index, size in enumerate(sizes):
        path = root / f"pkg{index % 12}" / f"sub{index % 37}" / f"module_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        line = f"# module {index}: {'x' * 60}\n"
        path.write_text((line * (size // len(line) + 1))[:size])
        written += size
    env = {**os.environ, **GIT_ENV}
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *command], cwd=root, env=env, check=True, capture_output=True)
    for index in range(20):
        with (root / f"pkg{index % 12}" / f"sub{index % 37}" / f"module_{index}.py").open("a") as f:
            f.write("CHANGED = True\n")
    for index in range(10):
        (root / f"scratch_{index}.py").write_text("scratch = 1\n")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--python", type=Path, default=Path(sys.executable))
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--megabytes", type=float, default=20.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "checkout").mkdir()
        size = checkout(folder / "checkout", args.files, args.megabytes)
        prepare(folder, f"  repo_root: {folder / 'checkout'}\n")
        with_snapshot, live = [], []
        for _ in range(args.repeat):
            with_snapshot.append(timed_submit(args.python, folder, expect="recorded as job"))
            live.append(
                timed_submit(args.python, folder, "--no-snapshot", expect="recorded as job")
            )
    added = statistics.median(with_snapshot) - statistics.median(live)
    ok = added <= TARGET_SECONDS
    print(f"submit with a snapshot of {args.files} files ({size / 1e6:.1f} MB, dirty): median "
          f"{statistics.median(with_snapshot):.2f} s (runs: "
          f"{', '.join(f'{s:.2f}' for s in with_snapshot)}); --no-snapshot: median "
          f"{statistics.median(live):.2f} s; the snapshot adds {added:.2f} s; target <= "
          f"{TARGET_SECONDS:g} s: {'PASS' if ok else 'MISS'}")  # fmt: skip
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
