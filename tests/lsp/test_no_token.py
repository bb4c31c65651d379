"""No byte of a token in hover, code actions or diagnostics, whatever the document holds.

Each token of tests/hostile/tokens.py sits where a recipe may put it: a credential field,
a variable's value, a ``${...}`` reference and a bare ``$`` one (the name of a variable
that is a token), a key, a choice's value. The quick fix that replaces the credential
still comes, with its edit, and its title never quotes the value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import LanguageClient

from tests.hostile.tokens import KINDS, make
from tests.lsp.conftest import Editor, apply

pytestmark = pytest.mark.asyncio(loop_scope="module")

CONVERTER = get_converter()


def text_of(answer: Any) -> str:
    return json.dumps(CONVERTER.unstructure(answer))


def document(kind: str) -> tuple[str, str]:
    token = make(kind, 5)
    quoted = json.dumps(token.value)
    if token.needs_key_name:  # 40 hex is a credential only under a key-like name
        lines = ["slurm:", "  nodes: 2", "  env_vars:", f"    WANDB_API_KEY: {quoted}", ""]
        return "\n".join(lines), token.middle
    lines = [
        "slurm:",
        "  nodes: 2",
        f"  hf_token: {token.value}",
        "  env_vars:",
        f"    MY_TOKEN: {quoted}",
        f"    B: ${{{token.value}}} ${token.value}/x",
        f"  {quoted}: 1",
        "skypilot:",
        f"  cloud: {quoted}",
        "",
    ]
    return "\n".join(lines), token.middle


@pytest.mark.parametrize("kind", KINDS)
async def test_hover_and_code_actions_never_return_a_token_byte(
    client: LanguageClient, kind: str
) -> None:
    text, middle = document(kind)
    editor = Editor(client)
    uri = await editor.open(text)
    diagnostics = await editor.diagnostics(uri)
    assert middle not in text_of(diagnostics)
    lines = text.split("\n")
    for line, content in enumerate(lines):
        for character in range(0, len(content) + 1, 3):
            assert middle not in str(await editor.hover(uri, line, character)), (line, character)
    end = types.Position(line=len(lines) - 1, character=0)
    everything = types.Range(start=types.Position(line=0, character=0), end=end)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=everything,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    assert found
    assert middle not in text_of(found)
    for diagnostic in diagnostics:
        assert middle not in text_of(await editor.actions(uri, diagnostic))
    # the credential's own fix is there, and replaces the whole value
    (fix,) = [
        a
        for a in found
        if isinstance(a, types.CodeAction)
        and a.title.startswith("Replace the credential")
        and a.diagnostics
        and a.diagnostics[0].range.start.line == (3 if kind == "wandb" else 2)
    ]  # fmt: skip  (the first credential: hf_token, or the W&B key)
    assert fix.edit is not None and fix.edit.changes is not None
    after = apply(text, list(fix.edit.changes[uri]))
    token = make(kind, 5)
    if token.needs_key_name:
        assert after == text.replace(json.dumps(token.value), "${WANDB_API_KEY}")
    else:
        assert after == text.replace(token.value, "${HF_TOKEN}", 1)
    editor.close(uri)
