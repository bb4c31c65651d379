"""A tree named by ``--automodel-source`` read by a worker while ``validate`` starts.

Each case runs in a process of its own (forking is used only in a process with one
thread; a test runner's process may hold more)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from automodel_launch.automodel.source import PACKAGE
from tests.automodel.standin import standin

ROOT = Path(__file__).resolve().parents[2]


def fork(root: Path) -> Path:
    standin(root, ", warmup_steps=0")
    return root


def run(script: str, cache: Path) -> dict[str, object]:
    """What ``script`` prints last, as JSON (it runs with its own cache directory)."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_worker_leaves_what_it_read_in_the_cache(tmp_path: Path) -> None:
    tree = fork(tmp_path / "fork")
    found = run(
        f"""
        import json, os
        from pathlib import Path
        from automodel_launch.automodel import cache, prefetch, which
        which.read_ahead({str(tree)!r})
        pids = list(prefetch._STARTED.values())
        prefetch.wait(Path(os.path.realpath({str(tree / PACKAGE)!r})))
        print(json.dumps({{"pids": pids, "pid": os.getpid(), "left": prefetch._STARTED,
                          "entries": len(list(cache.directory().glob("*.json")))}}))
        """,
        tmp_path / "cache",
    )
    assert len(found["pids"]) == 1 and found["pids"] != [found["pid"]]  # type: ignore[arg-type]
    assert found["left"] == {} and found["entries"] == 1


def test_nothing_is_started_for_a_directory_without_the_package(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    found = run(
        f"""
        import json
        from automodel_launch.automodel import prefetch, which
        which.read_ahead({str(tmp_path / "empty")!r})
        which.read_ahead({str(tmp_path / "missing")!r})
        print(json.dumps({{"started": len(prefetch._STARTED)}}))
        """,
        tmp_path / "cache",
    )
    assert found == {"started": 0}


def test_a_tree_the_worker_cannot_read_is_read_and_refused_by_validate(tmp_path: Path) -> None:
    tree = fork(tmp_path / "fork")
    os.mkfifo(tree / PACKAGE / "pipe.py")
    recipe = tmp_path / "job.yaml"
    recipe.write_text("recipe: TrainFinetuneRecipeForNextTokenPrediction\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", "--no-check-paths",
         "--automodel-source", str(tree), str(recipe)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        f"{recipe}:1:1: note[automodel-not-read] the AutoModel source of --automodel-source "
        f"cannot be read: {tree / PACKAGE / 'pipe.py'} is not a regular file or directory; "
        "checked against AutoModel "
    ) in done.stdout
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_a_worker_still_reading_when_the_process_ends_is_stopped(tmp_path: Path) -> None:
    tree = fork(tmp_path / "fork")
    found = run(
        f"""
        import json, os
        from automodel_launch.automodel import prefetch, which
        which.read_ahead({str(tree)!r})
        pid = list(prefetch._STARTED.values())[0]
        prefetch._stop()
        try:
            os.kill(pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        print(json.dumps({{"alive": alive, "left": len(prefetch._STARTED)}}))
        """,
        tmp_path / "cache",
    )
    assert found == {"alive": False, "left": 0}


def test_a_tree_read_before_starts_no_worker(tmp_path: Path) -> None:
    tree = fork(tmp_path / "fork")
    script = f"""
        import json
        from automodel_launch.automodel import prefetch, which
        which.read_ahead({str(tree)!r})
        started = len(prefetch._STARTED)
        prefetch._stop()
        print(json.dumps({{"started": started}}))
        """
    assert run(script, tmp_path / "cache") == {"started": 1}
    assert (
        run(
            f"""
        from automodel_launch.automodel import source, which
        from pathlib import Path
        which.read_tree(source.listing(Path({str(tree / PACKAGE)!r})), None)
        print("{{}}")
        """,
            tmp_path / "cache",
        )
        == {}
    )
    assert run(script, tmp_path / "cache") == {"started": 0}
