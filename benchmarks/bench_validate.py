"""Time ``automodel-launch validate`` against ``check-jsonschema`` in one run.

Both tools run as fresh subprocesses, interleaved (validate, check-jsonschema,
validate, ...) after one untimed warm-up each, so machine noise hits both alike;
every ratio is against the peer measured in the same run:

1. one config (a real corpus recipe with a ``skypilot:`` section), ``--repeat`` times,
   against the floor (``floor_peer.py``: import pydantic, load the file with libyaml,
   validate one model) and against check-jsonschema;
2. 200 corpus configs in one process, ``--repeat-many`` times, against check-jsonschema.

Targets: one config within 1.3x of the floor's median wall time; 200 configs at least
6x faster than check-jsonschema. The one-file ratio against check-jsonschema is shown
for reference (most of both is interpreter and import time). The script also lists the heaviest
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
FLOOR = Path(__file__).resolve().parent / "floor_peer.py"
FLOOR_TARGET = 1.3
"""One config: validate's median wall time at most this many times the floor's."""
MANY_FILES_TARGET = 6.0
"""200 configs: at least this many times faster than check-jsonschema."""

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
    """One comparison: validate against a peer on the same files.

    ``target`` is a minimum speed-up (peer time / our time); a case against the floor
    states it as a maximum cost instead (``within``: our time / floor time).
    """

    name: str
    ours: Timing
    peer: Timing
    target: float | None
    within: bool = False

    @property
    def speedup(self) -> float:
        return self.peer.median / self.ours.median

    @property
    def best_speedup(self) -> float:
        return self.peer.best / self.ours.best

    @property
    def cost(self) -> float:
        return self.ours.median / self.peer.median

    @property
    def passed(self) -> bool:
        if self.target is None:
            return True
        return self.cost <= self.target if self.within else self.speedup >= self.target

    @property
    def ratio_text(self) -> str:
        if self.within:
            return f"{self.cost:.2f}x cost ({self.ours.best / self.peer.best:.2f}x)"
        return f"{self.speedup:.2f}x ({self.best_speedup:.2f}x)"

    @property
    def target_text(self) -> str:
        if self.target is None:
            return "-"
        return f"<={self.target:g}x" if self.within else f">={self.target:g}x"

    @property
    def verdict(self) -> str:
        return "info" if self.target is None else "PASS" if self.passed else "MISS"


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
    ours: Sequence[str],
    peers: Mapping[str, Sequence[str]],
    repeat: int,
    env: Mapping[str, str],
) -> tuple[Timing, dict[str, Timing]]:
    """Run every command ``repeat`` times, interleaved, after one untimed warm-up each."""
    commands = {"automodel-launch": ours, **peers}
    for argv in commands.values():
        run(argv, env)
    timings = {label: Timing(label, [], []) for label in commands}
    for _ in range(repeat):
        for label, argv in commands.items():
            wall, cpu = run(argv, env)
            timings[label].wall.append(wall)
            timings[label].cpu.append(cpu)
    mine = timings.pop("automodel-launch")
    return mine, timings


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
        f"{'case':<22} {'tool':<17} {'median':>9} {'min':>9} {'cpu med':>9}   "
        f"{'ratio med (min)':<24} {'target':>7}  result"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        for timing in (case.ours, case.peer):
            print(
                f"{case.name:<22} {timing.label:<17} {ms(timing.median):>9} "
                f"{ms(timing.best):>9} {ms(timing.cpu_median):>9}"
            )
        print(
            f"{case.name:<22} {'':<17} {'':>9} {'':>9} {'':>9}   {case.ratio_text:<24} "
            f"{case.target_text:>7}  {case.verdict}"
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
        floor = [str(script_python(ours, python)), str(FLOOR), str(one)]
        mine, peers = compare(
            [*ours, "--no-check-paths", str(one)],
            {"floor": floor, "check-jsonschema": [*peer, str(one)]},
            args.repeat,
            env,
        )
        many_mine, many_peers = compare(
            [*ours, "--no-check-paths", "--no-check-env", *map(str, many)],
            {"check-jsonschema": [*peer, *map(str, many)]},
            args.repeat_many,
            env,
        )
        cases = [
            Case("1 file vs floor", mine, peers["floor"], FLOOR_TARGET, within=True),
            Case("1 file vs peer", mine, peers["check-jsonschema"], None),
            Case(
                f"{len(many)} files vs peer",
                many_mine,
                many_peers["check-jsonschema"],
                MANY_FILES_TARGET,
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
        if case.target is None:
            continue
        what = (
            f"{case.cost:.2f}x the floor's time (target at most {case.target:g}x)"
            if case.within
            else f"{case.speedup:.2f}x faster than check-jsonschema (target {case.target:g}x)"
        )
        print(f"{case.verdict}  {case.name}: {what}")
    missed = bool(bad) or not all(case.passed for case in cases)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
