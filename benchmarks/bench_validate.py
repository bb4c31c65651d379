"""Time ``automodel-launch validate`` against ``check-jsonschema`` in one run.

Both tools run as fresh subprocesses, interleaved (validate, check-jsonschema,
validate, ...) after one untimed warm-up each, so machine noise hits both alike;
every ratio is against the peer measured in the same run:

1. one config (a real corpus recipe with a ``skypilot:`` section), ``--repeat`` times;
2. 200 corpus configs in one process, ``--repeat-many`` times.

The speed-up is check-jsonschema's median wall time divided by validate's. Targets:
at least 2x on one file and 5x on 200 files. The script also lists the heaviest
imports (``python -X importtime``) of the one-file validate run and checks that the
validate path never imports ``sky``, ``torch`` or ``jsonschema``.

Run it as ``nox -s bench`` or ``python benchmarks/bench_validate.py [--check]``; it
exits 0 whatever the numbers, unless ``--check`` is given (then 1 on a miss).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schemas" / "automodel-launch.schema.json"
CORPUS = ROOT.parent / "shared" / "corpus"
ONE_FILE = Path("automodel-head/llm_finetune/llama3_2/llama3_2_1b_squad_skypilot.yaml")
FORBIDDEN = ("sky", "torch", "jsonschema")
ONE_FILE_TARGET = 2.0
MANY_FILES_TARGET = 5.0

_SELECT = """
import sys
from ruamel.yaml import YAML
yaml = YAML(typ="safe", pure=False)
for name in sys.stdin.read().splitlines():
    try:
        with open(name, encoding="utf-8") as f:
            data = yaml.load(f)
    except Exception:
        continue
    if isinstance(data, dict):
        print(name)
"""
"""Run under ``--python``: print the paths (read on stdin) that load as a YAML mapping."""

_YAML_PARSER = """
from ruamel.yaml import YAML
parser = YAML(typ="safe", pure=False).Parser
print("C (ruamel.yaml.clib)" if "clib" in parser.__module__ else "pure Python")
"""
"""Which parser ``YAML(typ='safe', pure=False)`` (what check-jsonschema uses) gets."""

_PROFILE = """
import cProfile, io, os, pstats, sys
top = int(os.environ["BENCH_TOP"])
sys.argv = ["automodel-launch", *sys.argv[1:]]
profile = cProfile.Profile()
real, sys.stdout = sys.stdout, io.StringIO()
profile.enable()
try:
    from automodel_launch.cli import main
    main()
except SystemExit:
    pass
profile.disable()
sys.stdout = real
pstats.Stats(profile, stream=real).sort_stats("tottime").print_stats(top)
"""
"""Profile ``main()`` in-process (imports included), validate's own output discarded."""


@dataclass
class Timing:
    """Wall and CPU (user + system) seconds of one command, run several times."""

    label: str
    wall: list[float]
    cpu: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def best(self) -> float:
        return min(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


@dataclass
class Case:
    """One comparison: validate against check-jsonschema on the same files."""

    name: str
    ours: Timing
    peer: Timing
    target: float

    @property
    def speedup(self) -> float:
        return self.peer.median / self.ours.median

    @property
    def best_speedup(self) -> float:
        return self.peer.best / self.ours.best

    @property
    def passed(self) -> bool:
        return self.speedup >= self.target


@dataclass
class Import:
    """One line of ``-X importtime``: microseconds of the module itself and with children."""

    module: str
    self_us: int
    cumulative_us: int


def console_script(python: Path, name: str, module: str) -> list[str]:
    """The console script installed next to ``python``, else ``python -m module``."""
    script = python.parent / name
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [str(python), "-m", module]


def script_python(argv: Sequence[str], default: Path) -> Path:
    """The interpreter a console script runs under (its ``#!`` line)."""
    first = Path(argv[0])
    if first.name.startswith("python"):
        return first
    try:
        with first.open("rb") as f:
            shebang = f.readline().decode(errors="replace")
    except OSError:
        return default
    if shebang.startswith("#!") and "python" in shebang:
        return Path(shebang[2:].split()[0])
    return default


def run(
    argv: Sequence[str], env: Mapping[str, str], ok: Sequence[int] = (0, 1)
) -> tuple[float, float]:
    """Wall and CPU seconds of one subprocess; output is discarded, exit codes checked."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(env), check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        detail = proc.stderr.decode(errors="replace").strip()[-2000:]
        raise SystemExit(f"{argv[0]} exited {proc.returncode}:\n{detail}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def compare(
    name: str,
    ours: Sequence[str],
    peer: Sequence[str],
    repeat: int,
    target: float,
    env: Mapping[str, str],
) -> Case:
    """Run both commands ``repeat`` times, interleaved, after one untimed warm-up each."""
    run(ours, env)
    run(peer, env)
    mine = Timing("automodel-launch", [], [])
    theirs = Timing("check-jsonschema", [], [])
    for _ in range(repeat):
        for timing, argv in ((mine, ours), (theirs, peer)):
            wall, cpu = run(argv, env)
            timing.wall.append(wall)
            timing.cpu.append(cpu)
    return Case(name, mine, theirs, target)


def select_files(python: Path, corpus: Path, count: int) -> list[Path]:
    """``count`` corpus configs that load as a YAML mapping, spread evenly over sorted paths."""
    found = sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    proc = subprocess.run(
        [str(python), "-c", _SELECT],
        input="\n".join(str(p) for p in found),
        capture_output=True,
        text=True,
        check=True,
    )
    parsed = [Path(line) for line in proc.stdout.splitlines() if line]
    if len(parsed) < count:
        raise SystemExit(f"only {len(parsed)} configs under {corpus} parse; need {count}")
    return [parsed[i * len(parsed) // count] for i in range(count)]


def yaml_parser(python: Path) -> str:
    proc = subprocess.run(
        [str(python), "-c", _YAML_PARSER], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or "unknown"


def import_times(python: Path, argv: Sequence[str], env: Mapping[str, str]) -> list[Import]:
    """The imports of one ``python -X importtime ...`` run, in the order they finished."""
    proc = subprocess.run(
        [str(python), "-X", "importtime", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(env),
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"validate under -X importtime exited {proc.returncode}:\n{proc.stderr}")
    out: list[Import] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, module = line.removeprefix("import time:").split("|", 2)
        out.append(Import(module.strip(), int(self_us), int(cumulative_us)))
    return out


def forbidden_imports(imports: Sequence[Import]) -> list[str]:
    return sorted({i.module for i in imports if i.module.split(".")[0] in FORBIDDEN})


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def print_table(cases: Sequence[Case]) -> None:
    header = (
        f"{'case':<10} {'tool':<17} {'median':>9} {'min':>9} {'cpu med':>9}   "
        f"{'speed-up med (min)':<19} {'target':>6}  result"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        for timing in (case.ours, case.peer):
            print(
                f"{case.name:<10} {timing.label:<17} {ms(timing.median):>9} "
                f"{ms(timing.best):>9} {ms(timing.cpu_median):>9}"
            )
        ratio = f"{case.speedup:.2f}x ({case.best_speedup:.2f}x)"
        verdict = "PASS" if case.passed else "MISS"
        print(
            f"{case.name:<10} {'':<17} {'':>9} {'':>9} {'':>9}   {ratio:<19} "
            f"{f'{case.target:g}x':>6}  {verdict}"
        )
    print()


def print_imports(imports: Sequence[Import], top: int, wall: float) -> None:
    total = sum(i.self_us for i in imports) / 1e6
    print(
        f"python -X importtime, one-file validate: {len(imports)} modules, {ms(total)} "
        f"importing (median wall time {ms(wall)}); top {top} by cumulative time:"
    )
    for i in sorted(imports, key=lambda i: i.cumulative_us, reverse=True)[:top]:
        print(f"  {i.cumulative_us / 1000:7.1f} ms  (self {i.self_us / 1000:5.1f} ms)  {i.module}")
    print()


def profile(python: Path, argv: Sequence[str], top: int, env: Mapping[str, str]) -> None:
    """cProfile of one in-process validate run (imports included), top ``top`` by own time."""
    print(f"cProfile of validate on the {len(argv) - 3} files, top {top} by own time:")
    sys.stdout.flush()
    subprocess.run(
        [str(python), "-c", _PROFILE, *argv], env={**env, "BENCH_TOP": str(top)}, check=False
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--python",
        type=Path,
        default=Path(sys.executable),
        help="interpreter whose environment holds both tools (default: this one)",
    )
    parser.add_argument(
        "--peer",
        type=Path,
        help="check-jsonschema to compare with (default: the one next to --python), "
        "e.g. a standalone install without ruamel.yaml.clib",
    )
    parser.add_argument("--repeat", type=int, default=10, help="one-file runs (default 10)")
    parser.add_argument(
        "--repeat-many", type=int, default=5, help="runs on the 200 files (default 5)"
    )
    parser.add_argument("--files", type=int, default=200, help="corpus files (default 200)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="default: ../shared/corpus")
    parser.add_argument("--top", type=int, default=10, help="imports to list (default 10)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also print the top N functions of a cProfile of validate on the files",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    python = Path(os.path.abspath(args.python))  # not resolve(): keep the venv's bin/
    corpus: Path = args.corpus.resolve()
    one = corpus / ONE_FILE
    if not one.is_file():
        raise SystemExit(f"no corpus config at {one}; pass --corpus")
    ours = [*console_script(python, "automodel-launch", "automodel_launch"), "validate"]
    checker = (
        [str(Path(os.path.abspath(args.peer)))]
        if args.peer
        else console_script(python, "check-jsonschema", "check_jsonschema")
    )
    peer = [*checker, "--schemafile", str(SCHEMA)]
    many = select_files(python, corpus, args.files)
    # Both tools read compiled bytecode, as an installed wheel does, even where
    # PYTHONDONTWRITEBYTECODE is set or the tree is read-only; the cache lives in a
    # temporary folder, never in the work tree.
    cache = tempfile.TemporaryDirectory(prefix="bench-pycache-")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache.name

    print(f"machine: {os.cpu_count()} cores; python: {python}")
    print(f"validate: {ours[0]}")
    peer_python = script_python(checker, python)
    print(f"peer:     {checker[0]} (YAML parser: {yaml_parser(peer_python)})")
    print(f"one file: {one}")
    print(f"{len(many)} files: sorted corpus configs that parse, evenly spaced, from {corpus}")
    print()

    with cache:
        cases = [
            compare(
                "1 file",
                [*ours, "--no-check-paths", str(one)],
                [*peer, str(one)],
                args.repeat,
                ONE_FILE_TARGET,
                env,
            ),
            compare(
                f"{len(many)} files",
                [*ours, "--no-check-paths", "--no-check-env", *map(str, many)],
                [*peer, *map(str, many)],
                args.repeat_many,
                MANY_FILES_TARGET,
                env,
            ),
        ]
        print_table(cases)
        entry = ours[1:-1] if ours[0] == str(python) else ours[:1]  # -m ... or the script
        imports = import_times(
            script_python(ours, python), [*entry, "validate", "--no-check-paths", str(one)], env
        )
        print_imports(imports, args.top, cases[0].ours.median)
        if args.profile:
            profile(
                python,
                ["validate", "--no-check-paths", "--no-check-env", *map(str, many)],
                args.profile,
                env,
            )

    bad = forbidden_imports(imports)
    if bad:
        print(
            f"MISS  validate imports {', '.join(bad)} (it must not import {', '.join(FORBIDDEN)})"
        )
    else:
        print(f"PASS  validate imports none of {', '.join(FORBIDDEN)}")
    for case in cases:
        print(
            f"{'PASS' if case.passed else 'MISS'}  {case.name}: {case.speedup:.2f}x faster than "
            f"check-jsonschema (target {case.target:g}x)"
        )
    missed = bool(bad) or not all(case.passed for case in cases)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
