"""automodel_launch/snapshot/walk.py: what a plain directory gives the snapshot, each name
always left out pinned by a test of its own (a near name is kept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.snapshot.walk import walk

FOLDERS = [".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".nox", ".tox",
           ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules"]  # fmt: skip


def tree(root: Path, names: list[str]) -> Path:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    return root


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_always_left_out(tmp_path: Path, folder: str) -> None:
    """The folder, at the top and deeper, is left out; a file of its name, a folder with
    one more character and a folder that ends with its name are kept."""
    root = tree(tmp_path, [f"{folder}/a.py", f"pkg/{folder}/b.py", f"{folder}x/c.py",
                           f"x{folder}/d.py", f"e/{folder}"])  # fmt: skip
    assert walk(root) == sorted([f"{folder}x/c.py", f"x{folder}/d.py", f"e/{folder}"])


def test_compiled_python_always_left_out(tmp_path: Path) -> None:
    root = tree(tmp_path, ["a.pyc", "pkg/b.pyc", "a.py", "a.pyc.txt", "pkg/b.pyo", "d.pyc/e.py"])
    assert walk(root) == ["a.py", "a.pyc.txt", "pkg/b.pyo"]


@pytest.mark.parametrize(
    ("pattern", "left_out"),
    [
        ("X/Y", ["X/Y"]),  # a path from the root: not a/X/Y
        ("/Xa", ["Xa"]),  # anchored at the root: not sub/Xa
        ("Xa", ["Xa", "sub/Xa"]),  # a name at any depth
    ],
)
def test_gitignore_patterns_of_names_starting_with_x(
    tmp_path: Path, pattern: str, left_out: list[str]
) -> None:
    names = ["X/Y", "a/X/Y", "x/y", "Xa", "Xb", "sub/Xa", "z"]
    root = tree(tmp_path, names)
    (root / ".gitignore").write_text(pattern + "\n")
    assert walk(root) == sorted([".gitignore", *(n for n in names if n not in left_out)])
