"""Time ``automodel-launch jobs`` on a registry of 10,000 jobs.

The registry is built in a temporary state directory (``AUTOMODEL_LAUNCH_STATE_DIR``)
with the tool's own :class:`~automodel_launch.jobs.registry.Registry`: Slurm jobs, 4 in 5
of them points of 100-point sweeps (tasks of one job array each), the others single jobs,
each with its job directory (a manifest, and an ``exit_code`` for half of them). Each
timed run is a new process, as a user starts it, with a stand-in ``squeue`` that answers
the newest :data:`RUNNING` single jobs as running and no other, and a ``sacct`` that
knows none (so every other job is read from its directory, the most work ``jobs`` does
per job) first on PATH; they record their calls, and the benchmark checks that each run
made one ``squeue`` and at most one ``sacct`` call. Each running job's log holds
:data:`LOG_STEPS` of AutoModel's step lines (about 2 MB): the PROGRESS column reads the
last step of those shown.

For scale, the same command on an empty registry (the floor: starting Python, importing
the CLI, opening SQLite) is timed in the same run, alternating with the full one.

Then ``status SWEEP`` of a 1,000-task array (one sweep, its oldest row, so ``jobs`` never
shows it) is run the same way: it must make one ``squeue`` call (and at most one
``sacct``) for all its tasks.

Target: the median at most 0.5 s. Exits 0 whatever the numbers unless ``--check`` (then
1 on a miss). ``nox -s bench`` runs it after the other benchmarks.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.5


ARRAY_SWEEP = f"{0xA11A:012x}"
ARRAY_TASKS = 1_000
RUNNING = 200
"""The newest single jobs squeue answers as running (``jobs`` shows the newest 50 rows)."""
LOG_STEPS = 10_000
CAPTURED = ROOT / "tests" / "jobs" / "captured" / "squeue.json"


def running(job_ids: list[tuple[str, str]]) -> str:
    """``squeue --json`` answering ``(id, name)`` as running: the captured running job's."""
    import json

    answer = json.loads(CAPTURED.read_text())
    template = next(job for job in answer["jobs"] if job["job_state"] == "RUNNING")
    answer["jobs"] = [{**template, "job_id": int(job_id), "name": name}
                      for job_id, name in job_ids]  # fmt: skip
    return json.dumps(answer)


def step_log(path: Path) -> None:
    line = ("[rank0]: step {} | epoch 0 | loss 2.3456 | grad_norm 0.8123 | lr 1.00e-04 | mem "
            "12.34 GiB | tps 2468.10(1234.05/gpu) | num_label_tokens 4096\n")  # fmt: skip
    path.write_text("".join(line.format(step) for step in range(1, LOG_STEPS + 1)))


def build(state: Path, jobs_root: Path, count: int) -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT))
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.registry import open_registry

    os.environ["AUTOMODEL_LAUNCH_STATE_DIR"] = str(state)
    made = []
    runs: list[tuple[str, str]] = []
    for task in range(ARRAY_TASKS):  # one old sweep: a 1,000-task array
        job_dir = jobs_root / f"array{task:04d}"
        job_dir.mkdir(parents=True)
        made.append(Manifest(
            id=f"{0xB0000 + task:012x}", name="array", launcher="slurm", job_dir=str(job_dir),
            submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.6e9)),
            config_path=str(job_dir / "job_config.yaml"), config_sha256="0" * 64,
            command_line=("automodel-launch", "submit", "recipe.yaml"), artifacts=(),
            scheduler_id=f"5000_{task}", details={"nodes": 1, "gpus_per_node": 8},
            sweep=ARRAY_SWEEP, point=task, values={"optimizer.lr": 1e-6 * (task + 1)},
        ))  # fmt: skip
        (job_dir / "manifest.json").write_text(made[-1].to_json())
    for n in range(count):
        job_dir = jobs_root / f"job{n:05d}"
        job_dir.mkdir(parents=True)
        swept = n % 5 != 0
        sweep, point = divmod(n, 100)
        fields = (
            {"sweep": f"{sweep:012x}", "point": point, "values": {"optimizer.lr": 1e-5 * point}}
            if swept else {}
        )  # fmt: skip
        manifest = Manifest(
            id=f"{n + 1:012x}", name=f"run{sweep}", launcher="slurm", job_dir=str(job_dir),
            submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.7e9 + n)),
            config_path=str(job_dir / "job_config.yaml"), config_sha256="0" * 64,
            command_line=("automodel-launch", "submit", "recipe.yaml"), artifacts=(),
            scheduler_id=f"{1000 + sweep}_{point}" if swept else str(900000 + n),
            details={"nodes": 2, "gpus_per_node": 8, "time": "04:00:00"}, **fields,
        )  # fmt: skip
        (job_dir / "manifest.json").write_text(manifest.to_json())
        if not swept and n >= count - 5 * RUNNING:
            runs.append((str(900000 + n), manifest.name))
            step_log(job_dir / f"{manifest.name}_{900000 + n}.out")
        elif n % 2:
            (job_dir / "exit_code").write_text("0\n")
        made.append(manifest)
    with open_registry(state / "jobs.sqlite") as registry, registry._db:  # one transaction
        for manifest in made:
            registry._db.execute(
                "INSERT INTO jobs (id, name, launcher, scheduler_id, job_dir, submitted_at,"
                " manifest, sweep) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (manifest.id, manifest.name, manifest.launcher, manifest.scheduler_id,
                 manifest.job_dir, manifest.submitted_at, manifest.model_dump_json(),
                 manifest.sweep),
            )  # fmt: skip
    return runs


def fakes(bin_dir: Path, calls: Path, answer: Path) -> None:
    bin_dir.mkdir()
    import shutil

    cat = shutil.which("cat") or "/bin/cat"  # PATH is the stand-ins' folder alone
    for name, body in (("squeue", f"'{cat}' '{answer}'"), ("sacct", "exit 0")):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "{name}" >> "{calls}"\n{body}\n')
        tool.chmod(0o755)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--python", default=sys.executable, help="the venv's interpreter")
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        started = time.perf_counter()
        runs = build(base / "state", base / "jobs", args.jobs)
        print(f"registry of {args.jobs:,} jobs built in {time.perf_counter() - started:.1f}s")
        calls = base / "calls"
        (base / "squeue.json").write_text(running(runs))
        fakes(base / "bin", calls, base / "squeue.json")
        env = {**os.environ, "AUTOMODEL_LAUNCH_STATE_DIR": str(base / "state"),
               "PATH": str(base / "bin"), "PYTHONPYCACHEPREFIX": str(base / "pycache")}  # fmt: skip
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        command = [args.python, "-m", "automodel_launch", "jobs"]
        warm = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if warm.returncode != 0:
            print(warm.stderr, file=sys.stderr)
            return 1
        rows = len(warm.stdout.splitlines()) - 1
        stepping = warm.stdout.count(f"{LOG_STEPS}  ")
        if stepping == 0:
            print("no running job's progress was shown:\n" + warm.stdout, file=sys.stderr)
            return 1
        empty = {**env, "AUTOMODEL_LAUNCH_STATE_DIR": str(base / "empty")}
        subprocess.run(command, env=empty, capture_output=True, check=True)
        times: list[float] = []
        floor: list[float] = []
        for _ in range(args.repeat):
            calls.unlink(missing_ok=True)
            started = time.perf_counter()
            subprocess.run(command, env=env, capture_output=True, check=True)
            times.append(time.perf_counter() - started)
            made = calls.read_text().split()
            if made.count("squeue") != 1 or made.count("sacct") > 1:
                print(f"scheduler calls of one run: {made}", file=sys.stderr)
                return 1
            started = time.perf_counter()
            subprocess.run(command, env=empty, capture_output=True, check=True)
            floor.append(time.perf_counter() - started)
        status = [args.python, "-m", "automodel_launch", "status", ARRAY_SWEEP]
        calls.unlink(missing_ok=True)
        started = time.perf_counter()
        shown = subprocess.run(status, env=env, capture_output=True, text=True, check=False)
        took = time.perf_counter() - started
        made = calls.read_text().split() if calls.exists() else []
        one_query = shown.returncode == 0 and made.count("squeue") == 1 and made.count("sacct") <= 1
        print(f"status of a {ARRAY_TASKS:,}-task array: {took * 1000:.0f} ms, scheduler calls "
              f"{made}: {'ok' if one_query else 'MISSED'}")  # fmt: skip
        if not one_query:
            print(shown.stderr[-2000:], file=sys.stderr)
            return 1
    median = statistics.median(times)
    verdict = "ok" if median <= TARGET_S else "MISSED"
    print(f"jobs: {rows:,} lines, {stepping} with their progress; median {median * 1000:.0f} "
          f"ms, min {min(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {args.repeat} runs; target <= "
          f"{TARGET_S * 1000:.0f} ms: {verdict}")  # fmt: skip
    print(f"floor (jobs on an empty registry): median {statistics.median(floor) * 1000:.0f} ms, "
          f"min {min(floor) * 1000:.0f} ms")  # fmt: skip
    return 1 if args.check and median > TARGET_S else 0


if __name__ == "__main__":
    sys.exit(main())
