"""Settings from the editor (initialization options, didChangeConfiguration) are the
settings model's: strict, host checks and thresholds change the diagnostics."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import SERVER, SERVER_ENV, Editor, validate_text

pytestmark = pytest.mark.asyncio(loop_scope="module")
pytest_lsp = pytest.importorskip("pytest_lsp")

SPOT = """\
skypilot:
  cloud: aws
  use_spot: true
  setup: pip install nemo-automodel
  file_mounts:
    /mnt/bucket: {source: s3://bucket}
  env_vars:
    A: ${LSP_TEST_UNSET_VARIABLE}
step_scheduler:
  ckpt_every_steps: 300
checkpoint:
  restore_from: null
  checkpoint_dir: /mnt/bucket
"""


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=SERVER, server_env=SERVER_ENV),
)
async def strict_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    params = types.InitializeParams(
        capabilities=client_capabilities("neovim"),
        initialization_options={"automodelLaunch": {"strict": True, "checkEnv": True}},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def configure(client: LanguageClient, settings: Any) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


async def codes(editor: Editor) -> list[tuple[str, str]]:
    return [(d["code"], d["severity"]) for d in await editor.check(SPOT)]


async def test_initialization_options(strict_client: LanguageClient) -> None:
    editor = Editor(strict_client)
    assert await codes(editor) == [("env-unset", "error")]
    assert [d["code"] for d in validate_text(SPOT, check_env=True)] == ["env-unset"]


async def test_did_change_configuration(client: LanguageClient) -> None:
    editor = Editor(client)
    assert await codes(editor) == []
    configure(client, {"automodelLaunch": {"spotCheckpointIntervalWarn": 200}})
    assert await codes(editor) == [("spot-long-checkpoint-interval", "warning")]
    configure(client, {"automodel-launch": {"hostChecks": True, "strict": True}})
    assert await codes(editor) == [("env-unset", "error")]
    configure(client, {"strict": False, "check_env": True, "spot_checkpoint_interval_warn": 200})
    assert await codes(editor) == [
        ("env-unset", "warning"),
        ("spot-long-checkpoint-interval", "warning"),
    ]
    # a bad value is shown once, and the server keeps checking with the defaults
    configure(client, {"automodelLaunch": {"spotCheckpointIntervalWarn": 0, "colour": "red"}})
    assert await codes(editor) == []
    messages = [m.message for m in client.messages]
    assert "automodel-launch: unknown or unusable setting 'colour'" in messages
    assert any("spot_checkpoint_interval_warn" in m for m in messages)
    configure(client, None)
    assert await codes(editor) == []
