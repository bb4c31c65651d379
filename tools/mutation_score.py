"""Mutation score per module: ``nox -s mutate`` runs this after (or with ``--run``) mutmut.

The modules are pyproject's ``[tool.mutmut] only_mutate`` list; :data:`ONLY_FUNCTIONS`
narrows a module to the functions under test (the rest of it is covered elsewhere).
mutmut 3 mutates function bodies only, so the constants that carry the rules (the
characters left unquoted, Slurm's largest time, the reference pattern, the severity
catalogue) get :data:`HAND_MUTANTS`, each run against its tests in a scratch copy.
A module passes when the unit tests kill at least ``--threshold`` percent of its
mutants, not counting those listed in ``tools/mutation_equivalents.txt`` (one mutant a
line, ``NAME | text of the mutated line | why it cannot change behaviour``; the text is
checked, so an entry stops excusing anything once mutmut renumbers). A timeout is a kill: the mutant
hung a test that finishes. A mutant that was never run fails the check.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import tomllib  # Python 3.11+, as the mutate session's interpreter

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.txt"
ONLY_FUNCTIONS: dict[str, tuple[str, ...]] = {
    # The header comment's newline replacement; the rest is pinned by golden scripts.
    "automodel_launch/render/slurm.py": ("_comment",),
    # The ${VAR} reference functions (secret detection is scored with its own module).
    "automodel_launch/loading/env.py": (
        "scan",
        "split",
        "expand",
        "is_pure_reference",
        "is_reference_only",
        "is_runtime_variable",
    ),
}


@dataclass(frozen=True)
class HandMutant:
    path: str
    old: str
    new: str
    tests: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.path}: {self.old!r} -> {self.new!r}"


SHELL, SHELL_TESTS = "automodel_launch/render/shell.py", ("tests/render/test_shell.py",)
TIME, TIME_TESTS = "automodel_launch/config/slurm_time.py", ("tests/config/test_slurm_time.py",)
ENV, ENV_TESTS = "automodel_launch/loading/env.py", ("tests/loading/test_env.py",)
DIAG, DIAG_TESTS = "automodel_launch/diagnostics.py", ("tests/test_diagnostics.py",)
PLAIN = 'r"[A-Za-z0-9_@%+:,./-]+"'
HAND_MUTANTS = [
    *(HandMutant(SHELL, PLAIN, PLAIN.replace("/-", f"/{ch}-"), SHELL_TESTS) for ch in ";~= *"),
    HandMutant(SHELL, '"do", "done", "in"', '"do", "in"', SHELL_TESTS),
    HandMutant(TIME, "2**31 - 2", "2**31 - 1", TIME_TESTS),
    HandMutant(TIME, "2**31 - 2", "2**31 - 3", TIME_TESTS),
    HandMutant(TIME, '("unlimited", "infinite")', '("unlimited",)', TIME_TESTS),
    HandMutant(TIME, 'r"\\d+"', 'r"\\d"', TIME_TESTS),
    HandMutant(ENV, "(?:oc\\.env:)?", "", ENV_TESTS),
    HandMutant(ENV, "[^{{}}$]*", "[^{{}}]*", ENV_TESTS),
    HandMutant(ENV, "(?<![\\\\$])", "(?<![$])", ENV_TESTS),
    HandMutant(ENV, 'r"\\$\\(|`"', 'r"\\$\\("', ENV_TESTS),
    HandMutant(ENV, '"SKYPILOT_", "PET_"', '"SKYPILOT_"', ENV_TESTS),
    HandMutant(ENV, '"JOB_DIR",', "", ENV_TESTS),
    HandMutant(
        ENV, 'NAME = r"[A-Za-z_][A-Za-z0-9_]*"', 'NAME = r"[A-Za-z_][A-Za-z0-9_]+"', ENV_TESTS
    ),
    HandMutant(
        DIAG, '"ambiguous-time": (Severity.WARNING', '"ambiguous-time": (Severity.ERROR', DIAG_TESTS
    ),
    HandMutant(DIAG, '"expected a list"', '"expected a sequence"', DIAG_TESTS),
    HandMutant(DIAG, '("gt", "more than")', '("ge", "more than")', DIAG_TESTS),
]
"""Constants mutated by hand: each must make one of its tests fail."""

KILLED = {1, 3, 37}  # a test failed, pytest's internal error, the type checker
TIMEOUT = {36, 24, -24, 152, 255}
CRASHED = {-11, -9}


@dataclass
class Score:
    module: str
    killed: list[str] = field(default_factory=list)
    timeout: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def counted(self) -> int:
        return len(self.killed) + len(self.timeout) + len(self.survived)

    @property
    def percent(self) -> float:
        caught = len(self.killed) + len(self.timeout)
        return 100.0 * caught / self.counted if self.counted else 0.0


def modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    paths: list[str] = config["tool"]["mutmut"]["only_mutate"]
    return paths


def patterns(paths: list[str]) -> list[str]:
    """mutmut run's mutant-name globs: whole modules, or only the listed functions."""
    out = []
    for path in paths:
        dotted = path.removesuffix(".py").replace("/", ".")
        functions = ONLY_FUNCTIONS.get(path)
        if functions is None:
            out.append(f"{dotted}.*")
        else:
            out += [f"{dotted}.x_{name}__mutmut_*" for name in functions]
    return out


def equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """Excused mutant name -> the mutated text its function must contain."""
    listed: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split(" | ")]
        if len(parts) != 3 or not all(parts):
            sys.exit(f"{path.name}:{number}: expected 'MUTANT_NAME | mutated text | reason'")
        listed[parts[0]] = parts[1]
    return listed


def mutant_source(path: str, name: str) -> str:
    """The mutated function's source, read through mutmut's line index of mutants/."""
    spans = json.loads((ROOT / "mutants" / f"{path}.spans").read_text(encoding="utf-8"))
    start, end = spans["spans"][name.rpartition(".")[2]]
    lines = (ROOT / "mutants" / path).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[start - 1 : end])


def score(path: str, excused: dict[str, str], hand: dict[str, bool]) -> Score:
    meta = ROOT / "mutants" / f"{path}.meta"
    if not meta.exists():
        sys.exit(f"no mutmut results for {path} ({meta} is missing): run mutmut first")
    codes: dict[str, int | None] = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    wanted = patterns([path])
    result = Score(path)
    for name, code in sorted(codes.items()):
        if not any(fnmatch.fnmatchcase(name, pattern) for pattern in wanted):
            continue
        if code is None:
            result.unchecked.append(name)
        elif code in KILLED or code in CRASHED:
            result.killed.append(name)
        elif code in TIMEOUT:
            result.timeout.append(name)
        elif name in excused and excused[name] in mutant_source(path, name):
            result.equivalent.append(name)
        else:
            result.survived.append(name)
    for mutant in HAND_MUTANTS:
        if mutant.path == path and mutant.name in hand:
            (result.killed if hand[mutant.name] else result.survived).append(mutant.name)
    return result


def run_hand_mutants(mutants: list[HandMutant]) -> dict[str, bool]:
    """Apply each mutant to a scratch copy of the project; True when a test failed."""
    killed: dict[str, bool] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        skip = shutil.ignore_patterns("__pycache__", "node_modules", "*.pyc")
        for part in ("automodel_launch", "tests", "examples"):
            shutil.copytree(ROOT / part, root / part, ignore=skip)
        shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
        env = {**os.environ, "PYTHONPATH": str(root), "CI": "true"}
        for mutant in mutants:
            target = root / mutant.path
            original = target.read_text(encoding="utf-8")
            if original.count(mutant.old) != 1:
                sys.exit(f"hand mutant no longer applies (edit HAND_MUTANTS): {mutant.name}")
            target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
            command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
            result = subprocess.run(
                [*command, *mutant.tests], cwd=root, env=env, capture_output=True, check=False
            )
            target.write_text(original, encoding="utf-8")
            killed[mutant.name] = result.returncode == 1
            print(f"{'killed  ' if killed[mutant.name] else 'SURVIVED'} {mutant.name}")
    return killed


def run_mutmut(paths: list[str], *, fresh: bool) -> None:
    if fresh:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    mutmut = shutil.which("mutmut")
    if mutmut is None:
        sys.exit("mutmut is not installed (nox -s mutate installs it)")
    # mutmut exits 0 whatever survives: the verdict is ours, below.
    subprocess.run([mutmut, "run", *patterns(paths)], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run mutmut first (from scratch)")
    parser.add_argument(
        "--incremental", action="store_true", help="with --run: keep mutants/ and its results"
    )
    parser.add_argument("--threshold", type=float, default=95.0, help="minimum percent")
    args = parser.parse_args(argv)
    paths = modules()
    if args.run:
        run_mutmut(paths, fresh=not args.incremental)
    excused = equivalents()
    hand = run_hand_mutants([m for m in HAND_MUTANTS if m.path in paths])
    scores = [score(path, excused, hand) for path in paths]
    failed = False
    print(f"\n{'module':<42}{'killed':>7}{'timeout':>8}{'equiv':>6}{'surv':>6}{'score':>8}")
    for s in scores:
        low = s.percent < args.threshold or s.unchecked
        failed = failed or bool(low)
        print(
            f"{s.module:<42}{len(s.killed):>7}{len(s.timeout):>8}{len(s.equivalent):>6}"
            f"{len(s.survived):>6}{s.percent:>7.1f}%{'  FAIL' if low else ''}"
        )
    for s in scores:
        for name in s.survived:
            how = f"  (mutmut show {name})" if "__mutmut_" in name else ""
            print(f"survived: {name}{how}")
        for name in s.unchecked:
            print(f"not run: {name}")
    seen = {name for s in scores for name in s.equivalent}
    for name in sorted(set(excused) - seen):
        print(f"note: {EQUIVALENTS.name}: {name} does not apply (killed, renumbered, gone)")
    if failed:
        need = f"{args.threshold:g}%"
        print(f"\nfailed: each module needs {need} of its non-equivalent mutants killed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
