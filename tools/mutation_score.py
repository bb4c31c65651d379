"""Mutation score per module: ``nox -s mutate`` runs this after (or with ``--run``) mutmut.

The modules are pyproject's ``[tool.mutmut] only_mutate`` list; :data:`ONLY_FUNCTIONS`
narrows a module to the functions under test (the rest of it is covered elsewhere).
mutmut 3 mutates undecorated function bodies only, so the constants that carry the rules
(the characters left unquoted, Slurm's largest time, the reference pattern, the severity
catalogue, every secret word, token shape and length) and the decorated functions
(``lru_cache``, ``property``) get :data:`HAND_MUTANTS`, each run against its tests in a
scratch copy.
A module passes when the unit tests kill at least ``--threshold`` percent of its
mutants, not counting those listed in ``tools/mutation_equivalents.txt`` (one mutant a
line, ``NAME | text of the mutated line | why it cannot change behaviour``; the text is
checked, so an entry stops excusing anything once mutmut renumbers). A timeout is a kill: the mutant
hung a test that finishes. A mutant that was never run fails the check.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import tomllib  # Python 3.11+, as the mutate session's interpreter

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.txt"
ONLY_FUNCTIONS: dict[str, tuple[str, ...]] = {
    # The header comment's newline replacement; the rest is pinned by golden scripts.
    "automodel_launch/launchers/slurm/render.py": ("_comment",),
    # nodes out of service (the other rules are pinned by tests/launchers/slurm/cluster and
    # the live cluster)
    "automodel_launch/launchers/slurm/cluster/rules.py": ("check_health",),
    "automodel_launch/launchers/slurm/cluster/model.py": ("broken_state",),
    # what needs no network: ssh's complaint, the command lines (open/close run ssh itself)
    "automodel_launch/remote/ssh.py": (
        "why",
        "_short_tmp",
        "_rsync_word",
        "quoted",
        "ǁConnectionǁoptions",
        "ǁConnectionǁcommand",
        "ǁConnectionǁrsync_shell",
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
SECRETS, SECRETS_TESTS = "automodel_launch/secrets.py", ("tests/test_secrets.py",)
SBATCH = "automodel_launch/config/sbatch_options.py"
SBATCH_TESTS = ("tests/config/test_sbatch_args.py",)
QUOTES = "\"'#"  # what sbatch strips or ends an #SBATCH line at
PARSE, PARSE_TESTS = (
    "automodel_launch/launchers/slurm/cluster/parse.py",
    ("tests/launchers/slurm/cluster/test_parse.py",),
)
RESOURCES = "automodel_launch/launchers/slurm/cluster/resources.py"
RESOURCES_TESTS = ("tests/launchers/slurm/cluster/test_resources.py",)
CONTROL_RANGES = (  # _CONTROL's ranges, each end moved inwards by one
    (r"\x00", r"\x1f", r"\x01", r"\x1e"),
    (r"\x7f", r"\x9f", r"\x80", r"\x9e"),
    (r"\u200b", r"\u200f", r"\u200c", r"\u200e"),
    (r"\u202a", r"\u202e", r"\u202b", r"\u202d"),
    (r"\u2066", r"\u2069", r"\u2067", r"\u2068"),
)


def drop_each(
    path: str, listing: str, tests: tuple[str, ...] = SECRETS_TESTS, keep: tuple[str, ...] = ()
) -> Iterator[HandMutant]:
    """One mutant per quoted item of ``listing`` (a line of a literal set or tuple), the
    item removed: each word of a word list must be pinned by a test of its own."""
    for item in re.findall(r'"[^"]*"', listing):
        if item.strip('"') in keep:
            continue
        with_comma = next(
            text for text in (f"{item}, ", f", {item}", f"{item},", item) if text in listing
        )
        yield HandMutant(path, listing, listing.replace(with_comma, "", 1), tests)


def drop_dict_lines(path: str, table: str, tests: tuple[str, ...]) -> Iterator[HandMutant]:
    """One mutant per entry line (``    "key": value,``) of the dict literal that starts with
    the line ``table`` in ``path``, the entry removed: each entry must be pinned by a test."""
    text = (ROOT / path).read_text(encoding="utf-8")
    start = text.index(f"\n{table}\n") + 1
    body = text[start : text.index("\n}\n", start)]
    for line in body.splitlines()[1:]:
        if line.startswith('    "'):
            yield HandMutant(path, f"\n{line}\n", "\n", tests)


def drop_alternative(
    path: str, alternation: str, tests: tuple[str, ...] = SECRETS_TESTS
) -> Iterator[HandMutant]:
    """One mutant per branch of a regular expression's ``a|b|c``, the branch removed."""
    branches = alternation.split("|")
    for i in range(len(branches)):
        yield HandMutant(path, alternation, "|".join(branches[:i] + branches[i + 1 :]), tests)


def drop_entries(
    path: str, table: str, tests: tuple[str, ...], flips: tuple[tuple[str, str], ...] = ()
) -> Iterator[HandMutant]:
    """One mutant per entry of the literal dict ``table`` (a module-level assignment), the
    entry's lines removed; and one per ``(old, new)`` of ``flips`` found in an entry."""
    source = (ROOT / path).read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    node = next(
        n
        for n in ast.parse(source).body
        if isinstance(n, ast.AnnAssign)
        and isinstance(n.target, ast.Name)
        and n.target.id == table
        and isinstance(n.value, ast.Dict)
    )
    assert isinstance(node.value, ast.Dict)
    for key, value in zip(node.value.keys, node.value.values, strict=True):
        assert key is not None
        entry = "".join(lines[key.lineno - 1 : value.end_lineno])
        above = 1  # lines above the entry, as many as make its text unique
        while source.count("".join(lines[key.lineno - 1 - above : key.lineno - 1]) + entry) > 1:
            above += 1
        before = "".join(lines[key.lineno - 1 - above : key.lineno - 1])
        yield HandMutant(path, before + entry, before, tests)
        for old, new in flips:
            if old in entry:
                yield HandMutant(path, entry, entry.replace(old, new, 1), tests)


STATES, STATES_TESTS = "automodel_launch/jobs/states.py", ("tests/jobs/test_states.py",)
FIELDS = tuple(
    (f'"slurm.{field}"', "None")
    for field in ("time", "nodes", "partition", "account", "gpus_per_node")
)
PLAIN = 'r"[A-Za-z0-9_@%+:,./-]+"'
SWEEPS, SWEEPS_TESTS = "automodel_launch/jobs/sweeps.py", ("tests/jobs/test_sweeps_unit.py",)
FAILURE, FAILURE_TESTS = "automodel_launch/jobs/failure.py", ("tests/jobs/test_failure.py",)
SOURCES = "automodel_launch/jobs/failure_sources.py"
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
    *drop_each(SECRETS, '{"TOKEN", "KEY", "APIKEY", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",'),
    *drop_each(SECRETS, '"CREDENTIAL", "CREDENTIALS", "AUTH", "PAT"}'),
    *drop_each(SECRETS, '("TOKEN", "APIKEY", "PASSWORD")'),
    *drop_each(
        SECRETS,
        '{"secret", "secrets", "password", "passwd", "passphrase", "credential", "credentials",',
    ),
    *drop_each(SECRETS, '"apikey", "accesskey", "privatekey"}'),
    # "secret" stays a qualifier: alone it is a secret word, so "secret_key" is one anyway.
    # "secret" stays a qualifier: alone it is a secret word, so "secret_key" is one anyway.
    *drop_each(
        SECRETS,
        '{"api", "access", "secret", "private", "auth", "wandb", "signing",',
        keep=("secret",),
    ),
    *drop_each(SECRETS, '"encryption", "client",\n     "license",'),
    *drop_each(
        SECRETS, '"openai", "anthropic", "hf", "huggingface", "ngc", "google", "aws", "github",'
    ),
    *drop_each(
        SECRETS,
        '"gh", "gitlab", "slack", "bearer", "refresh", "session", "oauth", "bot", "personal",',
    ),
    *drop_each(SECRETS, '"hub", "security", "service"}'),
    *drop_each(SECRETS, '"hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",'),
    *drop_each(SECRETS, '"gldt-", "glft-",\n    "glsoat-", "glrt-", "glcbt-", "glimt-",'),
    *drop_each(SECRETS, '"glimt-", "glptt-", "glagent-", "gloas-", "GR1348941",', keep=("glimt-",)),
    *drop_each(SECRETS, '"A3T", "ABIA", "ACCA", "AKIA", "ASIA", "AIza", "hooks.slack.com", "sk-",'),
    *drop_each(SECRETS, '"nvapi-", "eyJ",\n    "PRIVATE KEY", "PuTTY-User-Key-File-",'),
    *(
        HandMutant(SECRETS, "gh[pousr]_", f"gh[{'pousr'.replace(c, '')}]_", SECRETS_TESTS)
        for c in "pousr"
    ),
    *drop_alternative(SECRETS, "glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas"),
    *drop_alternative(SECRETS, "A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA"),
    *(
        HandMutant(
            SECRETS,
            f"xox[abposr]-{after}",
            f"xox[{'abposr'.replace(c, '')}]-{after}",
            SECRETS_TESTS,
        )
        for after in ("(?:", "[A-Za")
        for c in "abposr"
    ),
    *(
        HandMutant(SECRETS, f"{shape}{{{n}{tail}}}", f"{shape}{{{n + d}{tail}}}", SECRETS_TESTS)
        for shape, n, tail in (
            ("hf_[A-Za-z0-9]", 30, ","),
            ("gh[pousr]_[A-Za-z0-9_]", 30, ","),
            ("github_pat_[A-Za-z0-9_]", 22, ","),
            ("gloas)-[A-Za-z0-9_-]", 20, ","),
            ("GR1348941[A-Za-z0-9_-]", 20, ","),
            ("[0-9A-Z]", 16, ""),
            ("AIza[0-9A-Za-z_-]", 35, ""),
            ("xox[abposr]-[A-Za-z0-9-]", 10, ","),
            ("sk-[A-Za-z0-9_-]", 20, ","),
            ("nvapi-[A-Za-z0-9_-]", 20, ","),
            ("(?P<secret>[0-9a-f]", 40, ""),
        )
        for d in (-1, 1)
    ),
    HandMutant(SECRETS, r'r"(?i:xox[abposr]-(?:\d+-)+[a-z0-9]+)|xox', 'r"xox', SECRETS_TESTS),
    HandMutant(SECRETS, r"+)|xox[abposr]-[A-Za-z0-9-]{10,}", "+)", SECRETS_TESTS),
    HandMutant(
        SECRETS,
        r'r"https://hooks\.slack\.com/services/',
        r'r"https://hooks\.slack\.com/x/',
        SECRETS_TESTS,
    ),
    HandMutant(SECRETS, r"[\s\S]{0,20000}?-----END", r"[\s\S]{0,20}?-----END", SECRETS_TESTS),
    HandMutant(
        SECRETS,
        r"PRIVATE KEY(?: BLOCK)?-----|[^\n]*)",
        r"PRIVATE KEY(?: BLOCK)?-----|)",
        SECRETS_TESTS,
    ),
    HandMutant(
        SECRETS, r'r"BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?|PuTTY', r'r"PuTTY', SECRETS_TESTS
    ),
    HandMutant(SECRETS, r"(?: BLOCK)?|PuTTY-User-Key-File-\d", "(?: BLOCK)?", SECRETS_TESTS),
    *drop_alternative(SECRETS, "key|token|secret|passw(?:or)?d"),
    HandMutant(SECRETS, "passw(?:or)?d)", "password)", SECRETS_TESTS),
    HandMutant(SECRETS, r'r"(?i)(?:key', r'r"(?:key', SECRETS_TESTS),
    HandMutant(SECRETS, r"\s*[:=]\s*", r"\s*[=]\s*", SECRETS_TESTS),
    HandMutant(SECRETS, r"\s*[:=]\s*", r"\s*[:]\s*", SECRETS_TESTS),
    HandMutant(SECRETS, "{40})(?![0-9a-f])", "{40})", SECRETS_TESTS),
    HandMutant(SECRETS, r"(?!\$\{)[^:/?#", "[^:/?#", SECRETS_TESTS),
    # mutmut leaves decorated functions alone: is_secret_key (lru_cache), Redactor.values
    *(
        HandMutant(SECRETS, old, new, SECRETS_TESTS)
        for old, new in (
            ("[w.lower() for w in", "[w for w in"),
            ("    if not words:\n        return False\n", ""),
            ('if last == "token" and not before:', 'if last == "token":'),
            ('if last == "token" and not before:', 'if last == "token" and before:'),
            ('("key", "token", "pat")', '("token", "pat")'),
            ('("key", "token", "pat")', '("key", "pat")'),
            ('("key", "token", "pat")', '("key", "token")'),
            ("before[-1] in _KEY_QUALIFIERS", "before[0] in _KEY_QUALIFIERS"),
            ("bool(before) and before[-1]", "before[-1]"),
            ('r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])"', 'r"[^A-Za-z0-9]+"'),
            ("key=len, reverse=True", "key=len"),
            ("if len(v) >= 3}", "if len(v) >= 2}"),
            ("if len(v) >= 3}", "if len(v) >= 4}"),
            ("self._source() if callable(self._source) else self._source", "self._source"),
        )
    ),
    HandMutant(SECRETS, 'MASK = "***"', 'MASK = "**"', SECRETS_TESTS),
    HandMutant(SECRETS, "LONG_WORD = 120", "LONG_WORD = 119", SECRETS_TESTS),
    HandMutant(SECRETS, "LONG_WORD = 120", "LONG_WORD = 121", SECRETS_TESTS),
    HandMutant(SECRETS, "LONG_TEXT = 600", "LONG_TEXT = 599", SECRETS_TESTS),
    HandMutant(SECRETS, "LONG_TEXT = 600", "LONG_TEXT = 601", SECRETS_TESTS),
    HandMutant(SECRETS, "{{{LONG_WORD + 1},}}", "{{{LONG_WORD},}}", SECRETS_TESTS),
    HandMutant(SECRETS, "{{{LONG_WORD + 1},}}", "{{{LONG_WORD + 2},}}", SECRETS_TESTS),
    *(
        HandMutant(SECRETS, f"{lo}-{hi}", new, SECRETS_TESTS)
        for lo, hi, low, high in CONTROL_RANGES
        for new in (f"{low}-{hi}", f"{lo}-{high}")
    ),
    HandMutant(SECRETS, r"\u2069\ufeff]", r"\u2069]", SECRETS_TESTS),
    # sbatch_args: every option a field renders, every refused option, every GPU request
    *drop_dict_lines(SBATCH, "OWNED: dict[str, str] = {", SBATCH_TESTS),
    *drop_dict_lines(SBATCH, "REFUSED: dict[str, str] = {", SBATCH_TESTS),
    *drop_each(SBATCH, '{"gpus", "gpus-per-task", "gpus-per-socket"}', SBATCH_TESTS),
    HandMutant(SBATCH, r"[^\x21-\x7e]|", r"[^\x20-\x7e]|", SBATCH_TESTS),
    HandMutant(SBATCH, r"[^\x21-\x7e]|", r"[^\x21-\x7f]|", SBATCH_TESTS),
    *(HandMutant(SBATCH, "|[\"'#]", f"|[{QUOTES.replace(c, '')}]", SBATCH_TESTS) for c in QUOTES),
    # the words Slurm prints for "no limit", and the bounds of what is read and shown
    *drop_each(PARSE, '("UNLIMITED", "INFINITE", "NONE", "N/A", "(NULL)", "")', PARSE_TESTS),
    *(
        HandMutant(PARSE, old, new, PARSE_TESTS)
        for old, new in (
            ("SHOWN = 40", "SHOWN = 39"),
            ("SHOWN = 40", "SHOWN = 41"),
            ("TEST_ONLY_LINES = 10", "TEST_ONLY_LINES = 9"),
            ("TEST_ONLY_LINES = 10", "TEST_ONLY_LINES = 11"),
            ('r"([0-9]{1,9})(?:-([0-9]{1,9}))?"', 'r"([0-9]{1,10})(?:-([0-9]{1,10}))?"'),
            ('r"([0-9]{1,9})(?:-([0-9]{1,9}))?"', 'r"([0-9]{1,8})(?:-([0-9]{1,8}))?"'),
            ("(?<![0-9])([0-9]{1,6})", "([0-9]{1,6})"),
            (r"(?:\.([0-9]{1,6}))?(?![0-9])", r"(?:\.([0-9]{1,6}))?"),
            (r"([0-9]{1,6})\.([0-9]{1,6})(?:", r"([0-9]{1,7})\.([0-9]{1,7})(?:"),
            (r"([0-9]{1,6})\.([0-9]{1,6})(?:", r"([0-9]{1,5})\.([0-9]{1,5})(?:"),
            ('rf"[A-Za-z0-9_+*~#$@^!-]{{1,', 'rf"[A-Za-z0-9_+#$@^!-]{{1,'),
            ('rf"[A-Za-z0-9_+*~#$@^!-]{{1,', 'rf"[A-Za-z0-9_*~#$@^!-]{{1,'),
            ('rf"[A-Za-z0-9_+*~#$@^!-]{{1,', 'rf"[A-Za-z0-9_+*~#$@^!-]{{0,'),
        )
    ),
    *(
        HandMutant(RESOURCES, entry, "", RESOURCES_TESTS)
        for entry in ('"K": 1 / 1024, ', '"M": 1, ', '"G": 1024, ', ', "T": 1024 * 1024')
    ),
    # job states: every entry of every table, the end states, and each reason's fields
    *drop_each(
        STATES,
        '"PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED",',
        STATES_TESTS,
    ),
    *drop_each(STATES, '"REQUEUED", "UNKNOWN",\n)', STATES_TESTS),
    *drop_each(STATES, '{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}', STATES_TESTS),
    *drop_entries(STATES, "SLURM", STATES_TESTS),
    *drop_entries(STATES, "SKYPILOT_MANAGED", STATES_TESTS),
    *drop_entries(STATES, "SKYPILOT_CLUSTER", STATES_TESTS),
    *drop_entries(STATES, "PENDING_REASONS", STATES_TESTS, (("True", "False"), *FIELDS)),
    # sweeps: the properties (decorated, so mutmut leaves them alone)
    *(
        HandMutant(SWEEPS, old, new, SWEEPS_TESTS)
        for old, new in (
            ("(-item[1], STATES.index(item[0]))", "(item[1], STATES.index(item[0]))"),
            ("(-item[1], STATES.index(item[0]))", "(-item[1], item[0])"),
            ("'s' if count != 1 else ''", "'s' if count > 2 else ''"),
            ('f"{n} {state}"', 'f"{state} {n}"'),
            ("None if any(h is None for h in hours)", "None if all(h is None for h in hours)"),
            ("tasks and len(arrays) == 1", "len(arrays) == 1"),
            ("tasks and len(arrays) == 1", "tasks"),
            ('all("_" in', 'any("_" in'),
            ("return min(s.manifest.submitted_at", "return max(s.manifest.submitted_at"),
            ('return f"0 to {indexes[-1]}"', 'return f"0 to {len(indexes)}"'),
            ('+ (" ..." if len(indexes) > 20 else "")', ""),
            ("indexes[:20]", "indexes[:21]"),
        )
    ),
]
# failure diagnosis: each cause's words, each of Slurm's stops, the bounds
HAND_MUTANTS += [
    *drop_alternative(
        FAILURE,
        "CUDA out of memory|OutOfMemoryError|CUDA error: out of memory|HIP out of memory",
        FAILURE_TESTS,
    ),
    *drop_alternative(FAILURE, r"\bMemoryError\b|Cannot allocate memory", FAILURE_TESTS),
    *drop_alternative(
        FAILURE,
        "Connection closed by peer|Connection reset by peer|Broken pipe|SignalException",
        FAILURE_TESTS,
    ),
    *drop_alternative(FAILURE, "oom[-_]kill|Out of memory: Kill|OOM Killed", FAILURE_TESTS),
    *drop_entries(FAILURE, "STATE_CAUSES", FAILURE_TESTS),
    *drop_each(FAILURE, '{"FAILED", "TIMEOUT", "PREEMPTED"}', FAILURE_TESTS),
    *(
        HandMutant(FAILURE, old, new, FAILURE_TESTS)
        for old, new in (
            ('r"|CUBLAS_STATUS_ALLOC_FAILED"', 'r""'),
            ("NCCL (?:error|timeout|WARN)", "NCCL (?:timeout|WARN)"),
            ("NCCL (?:error|timeout|WARN)", "NCCL (?:error|WARN)"),
            ("NCCL (?:error|timeout|WARN)", "NCCL (?:error|timeout)"),
            (r"|nccl\w*Error\b|", "|"),
            ('|Watchdog caught collective operation "', '|Watchdog caught no operation "'),
            ("timeout|NCCL communicator|", "timeout|"),
            ("(?:[Tt]imeout|abort)", "(?:[Tt]imeout)"),
            ("(?:[Tt]imeout|abort)", "(?:abort)"),
            ("(?:ModuleNotFoundError|ImportError)", "(?:ModuleNotFoundError)"),
            ("(?:ModuleNotFoundError|ImportError)", "(?:ImportError)"),
            ("(?:recipes|components/config)", "(?:recipes)"),
            ("(?:recipes|components/config)", "(?:components/config)"),
            (r"(?:setup|instantiate|_?build\w*)", r"(?:instantiate|_?build\w*)"),
            (r"(?:setup|instantiate|_?build\w*)", r"(?:setup|_?build\w*)"),
            (r"(?:setup|instantiate|_?build\w*)", "(?:setup|instantiate)"),
            (r"_?build\w*", r"build\w*"),
            ('r"|remote process exited|got signal: 15"', 'r"|got signal: 15"'),
            ('r"|remote process exited|got signal: 15"', 'r"|remote process exited"'),
            ("(?:JOB|STEP)", "(?:JOB)"),
            ("(?:JOB|STEP)", "(?:STEP)"),
            ('"time-limit": "TIMEOUT", ', ""),
            ('"preempted": "PREEMPTED", ', ""),
            ('"node-failure": "FAILED",', ""),
            ("AFTER_STOP_SECONDS = (-120, 300)", "AFTER_STOP_SECONDS = (-119, 300)"),
            ("AFTER_STOP_SECONDS = (-120, 300)", "AFTER_STOP_SECONDS = (-121, 300)"),
            ("AFTER_STOP_SECONDS = (-120, 300)", "AFTER_STOP_SECONDS = (-120, 299)"),
            ("AFTER_STOP_SECONDS = (-120, 300)", "AFTER_STOP_SECONDS = (-120, 301)"),
            ("SIG[A-Z0-9+-]{1,12}", "SIG[A-Z+-]{1,12}"),  # SIGUSR1
            ("TAIL_LINES = 20", "TAIL_LINES = 21"),
            ("MAX_LINE = 400", "MAX_LINE = 401"),
        )
    ),
    *(
        HandMutant(SOURCES, old, new, FAILURE_TESTS)
        for old, new in (
            ("LOG_TAIL_BYTES = 256 * 1024", "LOG_TAIL_BYTES = 128 * 1024"),
            ("LOG_TAIL_BYTES = 256 * 1024", "LOG_TAIL_BYTES = 512 * 1024"),
            ("ERROR_FILE_BYTES = 1 << 20", "ERROR_FILE_BYTES = 2 << 20"),
        )
    ),
]
# the snapshot of a plain directory: each name always left out, and that it is a folder's
WALK, WALK_TESTS = "automodel_launch/snapshot/walk.py", ("tests/snapshot/test_walk.py",)
ALWAYS = (
    '(".git/", ".hg/", ".svn/", "__pycache__/", "*.pyc", ".venv/", "venv/", ".nox/",\n'
    '          ".tox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", "node_modules/")'
)
HAND_MUTANTS += [
    *drop_each(WALK, ALWAYS, WALK_TESTS),
    *(
        HandMutant(WALK, ALWAYS, ALWAYS.replace(folder, folder[:-2] + '"', 1), WALK_TESTS)
        for folder in re.findall(r'"[^"*]+/"', ALWAYS)
    ),
]
# named clusters: the validators are decorated (mutmut leaves them alone), so each check
# and bound of a cluster's definition is mutated here; so are the constants that carry the
# rules: the fields a manifest shares, ssh's option letters and the settings refused
CLUSTERS = "automodel_launch/remote/clusters.py"
CLUSTERS_TESTS = ("tests/remote/test_clusters.py", "tests/remote/test_clusters_found.py")
FIELDS = "automodel_launch/remote/fields.py"
OPTIONS = "automodel_launch/remote/ssh_options.py"
OPTIONS_TESTS = ("tests/remote/test_ssh_options.py",)
SHELL_SCRIPT = "automodel_launch/remote/shell.py"
SHELL_SCRIPT_TESTS = ("tests/remote/test_shell.py", "tests/remote/test_shell_script.py")
LAST_SEEN = "automodel_launch/remote/last_seen.py"
LAST_SEEN_TESTS = ("tests/remote/test_kept_here.py",)


def drop_letters(path: str, constant: str, tests: tuple[str, ...]) -> Iterator[HandMutant]:
    """One mutant per letter of the string ``constant = "..."``, the letter removed."""
    text = (ROOT / path).read_text(encoding="utf-8")
    letters = re.search(rf'^{constant} = "([^"]*)"$', text, re.M)
    assert letters is not None, constant
    value = letters.group(1)
    for at in range(len(value)):
        line = f'{constant} = "{value[:at]}{value[at + 1 :]}"'
        yield HandMutant(path, letters.group(0), line, tests)


HAND_MUTANTS += [
    *drop_letters(OPTIONS, "WITH_VALUE", OPTIONS_TESTS),
    *drop_letters(OPTIONS, "FLAGS", OPTIONS_TESTS),
    *drop_letters(OPTIONS, "OWNED", OPTIONS_TESTS),
    *drop_entries(OPTIONS, "KEYWORDS", OPTIONS_TESTS),
    *(
        HandMutant(OPTIONS, old, new, OPTIONS_TESTS)
        for old, new in (
            ('("quiet", "fatal"), "would', '("quiet",), "would'),
            ('("quiet", "fatal"), "would', '("fatal",), "would'),
            ('(("yes", "true"), (), "would let', '(("yes",), (), "would let'),
            ('(("yes", "true"), (), "would let', '(("true",), (), "would let'),
            ('(("yes", "true"), (), WEAKER)', '(("yes",), (), WEAKER)'),
            ('(("yes", "true"), (), WEAKER)', '(("true",), (), WEAKER)'),
            ('(("no", "false"), (), WEAKER)', '(("no",), (), WEAKER)'),
            ('(("no", "false"), (), WEAKER)', '(("false",), (), WEAKER)'),
            ('("/dev/null", "none"), WEAKER)', '("/dev/null",), WEAKER)'),
            ('("/dev/null", "none"), WEAKER)', '("none",), WEAKER)'),
        )
    ),
    *(
        HandMutant(FIELDS, old, new, CLUSTERS_TESTS)
        for old, new in (
            ("{0,63}$", "{0,64}$"),
            ("[A-Za-z0-9._+-]{1,64}@", "[A-Za-z0-9._+-]{1,65}@"),
            ("[A-Za-z0-9._+-]{1,64}@", "[A-Za-z0-9._+-]{0,64}@"),
            ("[A-Za-z0-9._+-]{1,64}@", "[A-Za-z0-9._-]{1,64}@"),
            (r"[A-Za-z0-9_.:%\[\]-]{1,253}$", r"[A-Za-z0-9_.:%\[\]-]{1,254}$"),
            (r"[A-Za-z0-9_.:%\[\]-]{1,253}$", r"[A-Za-z0-9_.:\[\]-]{1,253}$"),
            (r"[A-Za-z0-9_.:%\[\]-]{1,253}$", r"[A-Za-z0-9_.%\[\]-]{1,253}$"),
            (r"[A-Za-z0-9_.:%\[\]-]{1,253}$", r"[A-Za-z0-9.:%\[\]-]{1,253}$"),
            ("ge=1, le=65535", "ge=0, le=65535"),
            ("ge=1, le=65535", "ge=1, le=65536"),
            ("MAX_DIR = 1024", "MAX_DIR = 1025"),
            ("MAX_PATH = 4096", "MAX_PATH = 4097"),
            ("AfterValidator(host)]", "]"),
            ("MAX_DIR), AfterValidator(cluster_path)]", "MAX_DIR)]"),
        )
    ),
    *(
        HandMutant(CLUSTERS, old, new, CLUSTERS_TESTS)
        for old, new in (
            ("MAX_OPTIONS = 32", "MAX_OPTIONS = 33"),
            ("if not option or len(option) > 1024", "if len(option) > 1024"),
            ("len(option) > 1024", "len(option) > 1025"),
            ('option for c in "\\x00\\n\\r")', 'option for c in "\\n\\r")'),
            ('option for c in "\\x00\\n\\r")', 'option for c in "\\x00\\r")'),
            ('option for c in "\\x00\\n\\r")', 'option for c in "\\x00\\n")'),
            ("if \"'\" in option and '\"' in option:", "if \"'\" in option or '\"' in option:"),
            ("why = refusal(value)", "why = None"),
            ("{'' if self.port is None else f':{self.port}'}", ""),
        )
    ),
    # the script the cluster's shell runs is a constant: each of its parts taken out
    *(
        HandMutant(SHELL_SCRIPT, old, new, SHELL_SCRIPT_TESTS)
        for old, new in (
            ("umask 077\n", ""),
            ("trap 'rm -rf \"$__d\"' EXIT\n", ""),
            *(
                ("for __p in base64 timeout head wc tr;", f"for __p in {rest};")
                for rest in (
                    "timeout head wc tr",
                    "base64 head wc tr",
                    "base64 timeout wc tr",
                    "base64 timeout head tr",
                    "base64 timeout head wc",
                )
            ),
            ("base64 | tr -d '\\n'; echo; }", "base64; echo; }"),
            ("''|[0-9]*|*[!A-Za-z0-9_]*)", "[0-9]*|*[!A-Za-z0-9_]*)"),
            ("''|[0-9]*|*[!A-Za-z0-9_]*)", "''|*[!A-Za-z0-9_]*)"),
            ("''|[0-9]*|*[!A-Za-z0-9_]*)", "''|[0-9]*)"),
            ("echo '@@ bad-name'; exit 1;;", "echo '@@ bad-name';;"),
            ('__ns="$__ns $1"; shift', "shift"),
            ("shift; __l=; __i=/dev/null", "shift; __i=/dev/null"),
            ('base64 -d >"$__d/i"; __l=; __i=', 'base64 -d >"$__d/i"; __i='),
            ('exec timeout -k 2 "$__t"', 'exec timeout "$__t"'),
            ('exec timeout -k 2 "$__t"', 'exec timeout -k 1 "$__t"'),
            (') <"$__i" >"$__d/o"', ') >"$__d/o"'),
            ('for __n in $__ns; do unset "__sv_$__n"; done\n', ""),
            ('head -c "$__lim" "$__d/o" | __b', 'cat "$__d/o" | __b'),
            ('head -c "$__lim" "$__d/e" | __b', 'cat "$__d/e" | __b'),
            ('"$(wc -c <"$__d/e")"', "0"),
            ('"$(wc -c <"$__d/o")"', "0"),
            ('rm -f "$__d/o" "$__d/e" "$__d/i"', 'rm -f "$__d/o" "$__d/e"'),
            ('rm -f "$__d/o" "$__d/e" "$__d/i"', 'rm -f "$__d/o" "$__d/i"'),
            ('rm -f "$__d/o" "$__d/e" "$__d/i"', 'rm -f "$__d/e" "$__d/i"'),
        )
    ),
    *(
        HandMutant(LAST_SEEN, old, new, LAST_SEEN_TESTS)
        for old, new in (
            ("Field(ge=0, le=2**40)", "Field(ge=-1, le=2**40)"),
            ("Field(ge=0, le=2**40)", "Field(ge=0, le=2**40 + 1)"),
            ('extra="forbid", strict=True', "strict=True"),
            ('extra="forbid", strict=True', 'extra="forbid"'),
        )
    ),
]

# sweeps: the limits of an option and of the product, and the point's properties
SWEEP, SWEEP_TESTS = "automodel_launch/plan/sweep.py", ("tests/plan/test_sweep.py",)
CHECKPOINTS = "automodel_launch/plan/checkpoints.py"
CHECKPOINTS_TESTS = ("tests/plan/test_checkpoints.py",)
HAND_MUTANTS += [
    *(
        HandMutant(SWEEP, old, new, SWEEP_TESTS)
        for old, new in (
            ("MAX_VALUES = 1000", "MAX_VALUES = 1001"),
            ("MAX_POINTS = 10_000", "MAX_POINTS = 10_001"),
            ("MAX_AXES = 16", "MAX_AXES = 17"),
            ("SHOWN_CHARS = 40", "SHOWN_CHARS = 41"),
            ("{dotted(o.loc): o.value for", "{o.argument: o.value for"),
            ('return ", ".join(o.argument for', 'return ",".join(o.argument for'),
        )
    ),
    *(
        HandMutant(CHECKPOINTS, old, new, CHECKPOINTS_TESTS)
        for old, new in (
            ('_STEP = re.compile(r"step_([0-9]+)$")', '_STEP = re.compile(r"step_([0-9]+)")'),
            ('_STEP = re.compile(r"step_([0-9]+)$")', '_STEP = re.compile(r"_step_([0-9]+)$")'),
            ('INCOMPLETE = ".incomplete"', 'INCOMPLETE = "incomplete"'),
            ('LATEST = "LATEST"', 'LATEST = "latest"'),
            ("if self.template is None:", "if False:"),
            ("if all(self.overrides):", "if any(self.overrides):"),
        )
    ),
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
        package = dotted.endswith(".__init__")  # its mutants are named after the package
        dotted = dotted.removesuffix(".__init__")
        functions = ONLY_FUNCTIONS.get(path)
        if functions is None:
            out.append(f"{dotted}.x*" if package else f"{dotted}.*")
        else:
            # a method is named ǁClassǁmethod, a function _name
            out += [
                f"{dotted}.x{name if name[0] == 'ǁ' else '_' + name}__mutmut_*"
                for name in functions
            ]
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


def run_hand_mutants(mutants: list[HandMutant], jobs: int = 2) -> dict[str, bool]:
    """Apply each mutant to a scratch copy of the project; True when a test failed.

    ``jobs`` workers, each with its own copy, share the list.
    """
    for mutant in mutants:
        if (ROOT / mutant.path).read_text(encoding="utf-8").count(mutant.old) != 1:
            sys.exit(f"hand mutant no longer applies (edit HAND_MUTANTS): {mutant.name}")
    killed: dict[str, bool] = {}
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(jobs) as pool:
        roots = [_copy_project(Path(scratch) / str(i)) for i in range(jobs)]
        batches = [mutants[i::jobs] for i in range(jobs)]
        for batch in pool.map(_run_batch, roots, batches):
            killed.update(batch)
    return killed


def _copy_project(root: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "node_modules", "*.pyc")
    for part in ("automodel_launch", "tests", "examples"):
        shutil.copytree(ROOT / part, root / part, ignore=skip)
    shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _run_batch(root: Path, mutants: list[HandMutant]) -> dict[str, bool]:
    # No bytecode: two same-sized mutants written within a second would share a stale .pyc.
    env = {**os.environ, "PYTHONPATH": str(root), "CI": "true", "PYTHONDONTWRITEBYTECODE": "1"}
    killed: dict[str, bool] = {}
    for mutant in mutants:
        target = root / mutant.path
        original = target.read_text(encoding="utf-8")
        target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
        result = subprocess.run(
            [*command, *mutant.tests], cwd=root, env=env, capture_output=True, check=False
        )
        target.write_text(original, encoding="utf-8")
        killed[mutant.name] = result.returncode == 1
        print(f"{'killed  ' if killed[mutant.name] else 'SURVIVED'} {mutant.name}", flush=True)
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
    parser.add_argument(
        "--only",
        action="append",
        metavar="PATH",
        help="only this module of only_mutate (repeatable): a quicker look at one room",
    )
    args = parser.parse_args(argv)
    paths = modules()
    if args.only:
        unknown = sorted(set(args.only) - set(paths))
        if unknown:
            sys.exit(f"not in [tool.mutmut] only_mutate: {', '.join(unknown)}")
        paths = [p for p in paths if p in args.only]
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
