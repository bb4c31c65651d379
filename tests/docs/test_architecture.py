"""docs/architecture.md stays true: every file it names exists, every claim it makes
names the test that holds it, and each of those tests exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "automodel_launch"
TOP = ("tests/", "tools/", "docs/", "benchmarks/", "schemas/", "examples/", ".ci/")
LAUNCHER_PACKAGES = ("slurm", "skypilot", "local")
"""What ``NAME`` stands for in the page: each launcher's package."""

_CODE = re.compile(r"`([^`]+)`")
_PATH = re.compile(r"(?:[\w.*-]+/)*[\w*-]+(?:\.py|\.json|\.md|/)")
_HELD = re.compile(r"\(held by\s+((?:`[^`]+`(?:,\s+)?)+)\)")
_TEST = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def prose() -> str:
    return re.sub(r"```.*?```", "", page(), flags=re.S)


def drawing() -> str:
    return "\n".join(re.findall(r"```\n(.*?)```", page(), flags=re.S))


def claims() -> list[str]:
    """Each paragraph or bullet that states a rule in bold."""
    blocks = [b for b in re.split(r"\n\s*\n", prose()) if b.strip()]
    items = [item for block in blocks for item in re.split(r"\n(?=- )", block)]
    return [item for item in items if item.lstrip("- ").startswith("**")]


def named_paths(words: list[str]) -> list[str]:
    """The file and folder names among ``words`` (``jobs/registry.py``,
    ``launchers/slurm/``); ``NAME`` stands for each launcher's package."""
    found: list[str] = []
    for word in words:
        word = word.rstrip(".,:;")
        if not _PATH.fullmatch(word) or word.startswith(("--", "~")):
            continue
        if word.endswith(".json") and "/" not in word:  # a job directory's file
            continue
        if any(part.isupper() and part != "NAME" for part in word.split("/")):
            continue  # a place in a job directory (points/INDEX/)
        found += [word.replace("NAME", n) for n in LAUNCHER_PACKAGES] if "NAME" in word else [word]
    return found


def exists(name: str) -> bool:
    """``name`` is there: from the project's root (``tests/...``) or the package's, or,
    said inside a room's paragraph (``arrays.py`` of ``launchers/slurm/``), under one of
    the package's folders."""
    base = ROOT if name.startswith(TOP) else PACKAGE
    if any(base.glob(name.rstrip("/"))):
        return True
    return not name.startswith(TOP) and any(PACKAGE.glob(f"**/{name.rstrip('/')}"))


def test_every_file_the_page_names_exists() -> None:
    named = named_paths(_CODE.findall(prose()))
    assert len(named) > 60
    assert sorted({name for name in named if not exists(name)}) == []


def test_every_file_the_drawing_names_exists() -> None:
    named = named_paths(re.findall(r"[\w/.]+", drawing()))
    assert "launchers/slurm/render.py" in named and "commands/" in named
    assert sorted({name for name in named if not exists(name)}) == []


def test_every_claim_names_the_test_that_holds_it() -> None:
    found = claims()
    assert len(found) >= 12
    assert [claim.split("\n")[0] for claim in found if not _HELD.search(claim)] == []


def test_each_test_named_exists() -> None:
    named = _TEST.findall(page())
    assert len(named) >= 20
    missing = []
    for path, function in named:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        if function not in defined:
            missing.append(f"{path}::{function}")
    assert missing == []


def test_the_checks_see_what_is_wrong() -> None:
    assert named_paths(["jobs/registry.py", "launchers/NAME/jobs.py", "points/INDEX/"]) == [
        "jobs/registry.py", "launchers/slurm/jobs.py", "launchers/skypilot/jobs.py",
        "launchers/local/jobs.py",
    ]  # fmt: skip
    assert not exists("jobs/slurm.py") and exists("launchers/slurm/jobs.py")
    assert exists("arrays.py") and not exists("slurm_arrays.py")
    assert _HELD.search("**Rule.** text (held by\n  `tests/x.py::test_y`, `tests/z.py::test_w`)")
    assert not _HELD.search("**Rule.** text, held by nothing")
