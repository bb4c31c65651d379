"""What the hostile suites of a job's records share: the tokens that fit in a name, a
secret variable's value, a submit to a stand-in ``sbatch``, and the check that no record
holds a credential."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from automodel_launch.jobs.registry import open_registry
from tests.hostile.test_detect_secrets_oracle import flagged_by_detect_secrets
from tests.hostile.tokens import KINDS
from tests.support.fake_slurm import FakeSlurm

NAMED = [kind for kind in KINDS if kind not in ("pem", "wandb")]
"""The kinds of token a name can hold: a file or directory name no "/", a branch no space
or ":" (PEM has them); a W&B key is 40 hex, a credential only under a key-like name."""
SECRET = "correct-horse-battery-staple"
"""The value of ``MY_SERVICE_PASSWORD``: no token shape, a secret by its variable only."""


def offline_submit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``MY_SERVICE_PASSWORD`` set to :data:`SECRET`; ``sbatch`` a stand-in that answers
    job 4242."""
    monkeypatch.setenv("MY_SERVICE_PASSWORD", SECRET)
    slurm = FakeSlurm(tmp_path / "slurm", monkeypatch)
    slurm.answer("sbatch", "4242\n")
    slurm.in_front()


def registry_records() -> list[str]:
    """Every job the registry holds, as it stores it."""
    with open_registry() as registry:
        return [m.model_dump_json() for m in registry.jobs(None, None)]


def assert_no_credential(records: Iterable[str], secrets: Iterable[str]) -> None:
    """None of ``secrets`` in any record, and the detect-secrets oracle flags no line."""
    secrets = list(secrets)
    for text in records:
        for secret in secrets:
            assert secret not in text
        for line in text.splitlines():
            assert flagged_by_detect_secrets(line) == [], line
