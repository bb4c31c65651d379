"""The code snapshot's records hold no credential, wherever the tree puts one.

A token in the branch name, in an untracked file's name, in a file left out for its size,
and a secret variable's value in the checkout's path: the manifest, the registry and
``status``'s JSON carry none of it (nor its distinctive middle), and the detect-secrets
oracle flags no line of them. The files themselves are copied as they are: they are the
user's code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.plan.plan import plan_jobs
from automodel_launch.plan.render import render_plan
from automodel_launch.prepare import EntryChoice
from automodel_launch.snapshot import CodeOptions
from tests.hostile.job_records import (
    NAMED,
    SECRET,
    assert_no_credential,
    offline_submit,
    registry_records,
)
from tests.hostile.tokens import make
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.snapshot.gitrepo import GIT_ENV, git, repo


@pytest.mark.parametrize("kind", NAMED)
def test_no_token_in_the_records_of_a_snapshot(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = make(kind, 19)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    offline_submit(tmp_path, monkeypatch)
    root = tmp_path / f"src-{SECRET}"
    repo(root, {"train.py": "print(1)\n"}, branch=f"work-{token.value}")
    (root / f"{token.value}.txt").write_text("untracked\n")
    (root / "train.py").write_text("print(2)\n")
    big = root / f"big-{token.value}.bin"
    big.write_bytes(b"x" * 2000)
    git(root, "add", big.name)
    recipe = tmp_path / "r.yaml"
    recipe.write_text(SLURM + f"  job_dir: {tmp_path / 'jobs'}\n  repo_root: {root}\n" + RECIPE)
    made = plan_jobs(recipe, api.settings(check_paths=False), entry=EntryChoice(),
                     submitting=True)  # fmt: skip
    render_plan(
        made, entry=EntryChoice(), submitting=True, code=CodeOptions(max_file_bytes=1000)
    )  # a file over 1000 bytes is left out
    done = api.submit(made)
    code = done.manifests[0].code
    assert code is not None and code.dirty and len(code.untracked) == 1
    assert len(code.skipped) == 1 and code.branch == "work-***"
    job_dir = Path(done.manifests[0].job_dir)
    records = [(job_dir / "manifest.json").read_text(), *registry_records(), json.dumps(api.jobs())]
    assert_no_credential(records, (token.value, token.middle, SECRET))
    # the user's files are copied as they are
    assert (job_dir / "code" / "train.py").read_text() == "print(2)\n"
