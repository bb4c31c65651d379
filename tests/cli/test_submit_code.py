"""``submit``'s code options from the command line: the summary's code line,
``--require-clean`` refusing before anything is written, ``--no-snapshot`` said."""

from __future__ import annotations

from pathlib import Path

from tests.plan.test_plan_cli import run
from tests.snapshot.test_submit_snapshot import recipe, tree  # noqa: F401  (the fixture)


def test_submit_names_the_code_and_refuses_a_dirty_tree_when_asked(tree: Path) -> None:  # noqa: F811
    path = recipe(tree.parent)
    bin_dir = tree.parent / "bin"
    refused = run("submit", str(path), "--require-clean", "--no-preflight", cwd=tree.parent,
                  bin_dir=bin_dir)  # fmt: skip
    assert refused.returncode == 1
    assert refused.stderr == (
        f"error: --require-clean: {tree} has uncommitted changes (git status lists them)\n"
        "    hint: commit or stash them, or submit without --require-clean\n"
    )
    assert not (tree.parent / "jobs").exists()
    done = run("submit", str(path), "--no-preflight", cwd=tree.parent, bin_dir=bin_dir)
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("  code ")]
    assert line.startswith(f"  code           snapshot of {tree} (2 files, 0.0 MB), commit ")
    assert line.endswith(" on main, with uncommitted changes")
    live = run("submit", str(path), "--no-snapshot", "--no-preflight", cwd=tree.parent,
               bin_dir=bin_dir)  # fmt: skip
    assert live.returncode == 0, live.stderr
    assert (f"  code           {tree}, the live tree (--no-snapshot: what it holds when the job "
            "runs)") in live.stderr.splitlines()  # fmt: skip
