"""automodel_launch/snapshot/summary.py: submit's line about the code the job runs."""

from __future__ import annotations

from pathlib import Path

from automodel_launch.config.document import LaunchDocument
from automodel_launch.loading import load_text
from automodel_launch.snapshot.git import GitTree
from automodel_launch.snapshot.record import CodeRecord
from automodel_launch.snapshot.reuse import Reused
from automodel_launch.snapshot.summary import code_lines
from automodel_launch.snapshot.take import Snapshot
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.render.cases import RECIPE

COMMIT = "4f2a9c1e07b3d2f8a6c5e4b3a2f1e0d9c8b7a6f5"


def document(section: str) -> LaunchDocument:
    loaded = load_text(RECIPE + section, "case.yaml").loaded
    assert loaded is not None
    found = validate_loaded(loaded, offline_settings()).document
    assert found is not None
    return found


SLURM = document('slurm:\n  time: "01:00:00"\n  repo_root: /home/me/A\n')


def test_no_line_without_repo_root() -> None:
    assert code_lines(document('slurm:\n  time: "01:00:00"\n'), None) == []
    assert code_lines(document(""), None) == []


def test_the_live_tree_is_said() -> None:
    assert code_lines(SLURM, None) == [
        "  code           /home/me/A, the live tree (--no-snapshot: what it holds when the job "
        "runs)"
    ]


def test_a_snapshot_names_its_size_commit_branch_and_state() -> None:
    git = GitTree(COMMIT, "main", changed=True)
    snapshot = Snapshot(Path("/home/me/A"), ["a.py", "b.py"], 2_500_000, git)
    assert code_lines(SLURM, snapshot) == [
        "  code           snapshot of /home/me/A (2 files, 2.5 MB), commit 4f2a9c1e07b3 on "
        "main, with uncommitted changes"
    ]
    detached = Snapshot(Path("/home/me/A"), ["a.py"], 0, GitTree(COMMIT, None), skipped=["x"])
    assert code_lines(SLURM, detached) == [
        "  code           snapshot of /home/me/A (1 file, 0.0 MB), commit 4f2a9c1e07b3, clean; "
        "left out: 1 (see the manifest's code.skipped)"
    ]
    plain = Snapshot(Path("/home/me/A"), [], 0)
    assert code_lines(SLURM, plain) == ["  code           snapshot of /home/me/A (0 files, 0.0 MB)"]


def test_the_size_in_megabytes_of_a_million_bytes() -> None:
    snapshot = Snapshot(Path("/home/me/A"), ["a.py", "b.py"], 2_350_000)
    assert code_lines(SLURM, snapshot) == [
        "  code           snapshot of /home/me/A (2 files, 2.4 MB)"
    ]


def test_a_rerun_names_the_snapshot_it_runs_again() -> None:
    record = CodeRecord(root="/home/me/A", snapshot="/j/code", commit=COMMIT, dirty=True, files=3)
    assert code_lines(SLURM, Reused("J1", Path("/j/code"), record)) == [
        "  code           the snapshot job J1 ran (3 files of /home/me/A, commit 4f2a9c1e07b3, "
        "with uncommitted changes)"
    ]
    one = record.model_copy(update={"dirty": False, "files": 1})
    assert code_lines(SLURM, Reused("J1", Path("/j/code"), one)) == [
        "  code           the snapshot job J1 ran (1 file of /home/me/A, commit 4f2a9c1e07b3, "
        "clean)"
    ]
    plain = CodeRecord(root="/home/me/A", snapshot="/j/code", files=0)
    assert code_lines(SLURM, Reused("J2", Path("/j/code"), plain)) == [
        "  code           the snapshot job J2 ran (0 files of /home/me/A)"
    ]
