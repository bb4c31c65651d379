"""``submit`` of a recipe whose ``repo_root``'s git configuration names commands.

The cases one by one are tests/hostile/test_git_configs.py (in-process, scored by
mutation); this is the whole command, in a process of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.test_git_configs import CONFIGS, EDITED, _expected, _set, _tree
from tests.plan.test_plan_cli import RECIPE, SLURM, run
from tests.snapshot.gitrepo import GIT_ENV
from tests.support.fake_slurm import FakeSlurm


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def test_submit_of_a_hostile_repository_runs_nothing_and_records_its_own_diff(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    """The whole command: ``submit`` (sbatch a stand-in) of a recipe whose ``repo_root``'s
    configuration names a command of every kind."""
    fake_slurm.answer("sbatch", "4242\n")
    fake_slurm.in_front()
    root, mark = _tree(tmp_path)
    expected = _expected(tmp_path)
    for kind in CONFIGS:
        for key, value in CONFIGS[kind](mark, tmp_path / kind.replace(" ", "_")).items():
            _set(root, key, value)
    recipe = tmp_path / "r.yaml"
    recipe.write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n  repo_root: {root}\n" + RECIPE)
    done = run("submit", "r.yaml", "--no-preflight", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not mark.exists()
    [job_dir] = (tmp_path / "jobs").iterdir()
    assert (job_dir / "code.diff").read_bytes() == expected
    assert (job_dir / "code/train.py").read_text() == EDITED
