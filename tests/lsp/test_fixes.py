"""Each quick fix, applied, removes its diagnostic and adds none (the server re-checks)."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import Editor, apply, key, validate_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOKEN = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"

SPOT = """\
skypilot:
  cloud: aws
  accelerators: "H100:8"
  use_spot: true
  setup: pip install nemo-automodel
  file_mounts:
    /mnt/bucket: {source: s3://bucket}
checkpoint:
  restore_from: null
  checkpoint_dir: /mnt/bucket/ckpt
"""

INTERVAL = "step_scheduler:\n  ckpt_every_steps: 50\n"

# (case, text, code fixed, dotted path, title, text after the fix)
CASES: list[tuple[str, str, str, str, str, str]] = [
    (
        "did-you-mean key",
        "slurm:\n  ntask_per_node: 8\n",
        "unknown-key",
        "slurm.ntask_per_node",
        "Change to 'ntasks_per_node'",
        "slurm:\n  ntasks_per_node: 8\n",
    ),
    (
        "did-you-mean value",
        "skypilot:\n  cloud: awz\n",
        "invalid-choice",
        "skypilot.cloud",
        "Change to 'aws'",
        "skypilot:\n  cloud: aws\n",
    ),
    (
        "YAML 1.1 time",
        "slurm:\n  time: 1:00:00  # one hour\n",
        "yaml11-trap",
        "slurm.time",
        'Write "01:00:00"',
        'slurm:\n  time: "01:00:00"  # one hour\n',
    ),
    (
        "YAML 1.1 boolean",
        SPOT.replace("use_spot: true", "use_spot: yes") + INTERVAL,
        "yaml11-trap",
        "skypilot.use_spot",
        "Write true",
        SPOT + INTERVAL,
    ),
    (
        "credential field",
        f"slurm:\n  hf_token: {TOKEN}\n",
        "secret-in-plain-text",
        "slurm.hf_token",
        "Replace the credential with ${HF_TOKEN}",
        "slurm:\n  hf_token: ${HF_TOKEN}\n",
    ),
    (
        "credential variable",
        f'slurm:\n  env_vars:\n    MY_TOKEN: "{TOKEN}"\n',
        "secret-in-plain-text",
        "slurm.env_vars.MY_TOKEN",
        "Replace the credential with ${MY_TOKEN}",
        "slurm:\n  env_vars:\n    MY_TOKEN: ${MY_TOKEN}\n",
    ),
    (
        "bare $VAR",
        "slurm:\n  env_vars:\n    LOG_DIR: $HOME/logs/$USER\n",
        "bare-env-reference",
        "slurm.env_vars.LOG_DIR",
        "Write ${HOME}, ${USER}",
        "slurm:\n  env_vars:\n    LOG_DIR: ${HOME}/logs/${USER}\n",
    ),
    (
        "spot without interval, no step_scheduler",
        SPOT,
        "spot-no-checkpoint-interval",
        "skypilot.use_spot",
        "Add step_scheduler.ckpt_every_steps: 100",
        SPOT + "step_scheduler:\n  ckpt_every_steps: 100\n",
    ),
    (
        "spot without interval, a step_scheduler",
        SPOT + "step_scheduler:\n    max_steps: 1000\n",
        "spot-no-checkpoint-interval",
        "skypilot.use_spot",
        "Add step_scheduler.ckpt_every_steps: 100",
        SPOT + "step_scheduler:\n    ckpt_every_steps: 100\n    max_steps: 1000\n",
    ),
    (
        "fault_tolerance beside skypilot",
        "fault_tolerance:\n  max_restarts: 2\nskypilot:\n  cloud: aws\n",
        "fault-tolerance-needs-slurm",
        "fault_tolerance",
        "Remove fault_tolerance: (SkyPilot recovers with skypilot.job_recovery)",
        "skypilot:\n  cloud: aws\n",
    ),
    (
        "fault_tolerance last",
        "skypilot:\n  cloud: aws\nfault_tolerance:\n  max_restarts: 2",
        "fault-tolerance-needs-slurm",
        "fault_tolerance",
        "Remove fault_tolerance: (SkyPilot recovers with skypilot.job_recovery)",
        "skypilot:\n  cloud: aws\n",
    ),
]


def without(found: list[dict[str, Any]], code: str, path: str) -> list[tuple[str, str]]:
    return sorted((d["code"], d["path"]) for d in found if (d["code"], d["path"]) != (code, path))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
async def test_each_fix_removes_its_diagnostic_and_adds_none(
    client: LanguageClient, case: tuple[str, str, str, str, str, str]
) -> None:
    _, text, code, path, title, fixed = case
    editor = Editor(client)
    uri = await editor.open(text)
    published = await editor.diagnostics(uri)
    target = next(d for d in published if key(d)["code"] == code and key(d)["path"] == path)
    actions = await editor.actions(uri, target)
    (action,) = [a for a in actions if a.diagnostics and a.diagnostics[0].code == code]
    assert action.title == title
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.edit is not None and action.edit.changes is not None
    after = apply(text, list(action.edit.changes[uri]))
    assert after == fixed
    assert TOKEN not in repr(action)  # the credential is replaced, never quoted
    before = [key(d) for d in published]
    await editor.change(uri, 2, after)
    rechecked = [key(d) for d in await editor.diagnostics(uri)]
    assert rechecked == validate_text(after)
    assert sorted((d["code"], d["path"]) for d in rechecked) == without(before, code, path)


async def test_no_fix_where_it_is_not_certain(client: LanguageClient) -> None:
    editor = Editor(client)
    cases = [
        "slurm:\n  nodes: 0\n",  # which count is meant?
        "skypilot:\n  cloud: aws\n  nodes: 2\n",  # a slurm key: no did-you-mean
        SPOT + "step_scheduler: {max_steps: 10}\n",  # a flow mapping: not edited
    ]
    for text in cases:
        uri = await editor.open(text)
        for diagnostic in await editor.diagnostics(uri):
            assert await editor.actions(uri, diagnostic) == [], (text, key(diagnostic))
