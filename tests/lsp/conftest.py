"""A real LSP client (pytest-lsp) driving ``automodel-launch lsp`` over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from automodel_launch import validation  # noqa: E402
from automodel_launch.lsp.text import Lines  # noqa: E402
from automodel_launch.settings import Settings  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

OFFLINE = ("--no-check-env", "--no-check-paths")

VALUE_NEVER_SHOWN = "value-of-a-variable-never-shown"
SERVER_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("AUTOMODEL_LAUNCH_")},
    "PYTHONPATH": str(ROOT),
    "XDG_CONFIG_HOME": str(ROOT / "tests" / "lsp" / "no-config"),
    "AUTOMODEL_LAUNCH_DEBUG": "1",
    "LSP_TEST_SET_VARIABLE": VALUE_NEVER_SHOWN,
}
SERVER = [sys.executable, "-m", "automodel_launch", "lsp"]
SERVER_ENV.pop("LSP_TEST_UNSET_VARIABLE", None)


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=SERVER, server_env=SERVER_ENV),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    params = types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


@dataclass
class Editor:
    """Open documents and wait for the server's answers."""

    client: LanguageClient
    count: int = 0

    def uri(self, name: str | None = None) -> str:
        self.count += 1
        return (ROOT / "examples" / (name or f"_lsp_{self.count}.yaml")).as_uri()

    async def open(
        self, text: str, name: str | None = None, language: str = "yaml", uri: str | None = None
    ) -> str:
        uri = uri or self.uri(name)
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language, version=1, text=text
                )
            )
        )
        return uri

    async def diagnostics(self, uri: str, timeout: float = 10) -> list[types.Diagnostic]:
        deadline = asyncio.get_running_loop().time() + timeout
        while uri not in self.client.diagnostics:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no diagnostics published for {uri}")
            await asyncio.sleep(0.005)
        return list(self.client.diagnostics[uri])

    async def change(self, uri: str, version: int, text: str) -> None:
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def check(self, text: str, **kwargs: Any) -> list[dict[str, Any]]:
        """Open ``text`` and return its diagnostics in validate's JSON shape."""
        uri = await self.open(text, **kwargs)
        return [key(d) for d in await self.diagnostics(uri)]

    async def actions(self, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    async def hover(self, uri: str, line: int, character: int) -> str | None:
        found = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )
        if found is None:
            return None
        assert isinstance(found.contents, types.MarkupContent)
        return found.contents.value

    async def complete(self, uri: str, line: int, character: int) -> list[types.CompletionItem]:
        found = await self.client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )
        if found is None:
            return []
        return list(found.items) if isinstance(found, types.CompletionList) else list(found)

    def close(self, uri: str) -> None:
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )


def key(d: types.Diagnostic) -> dict[str, Any]:
    """An LSP diagnostic in the shape of ``validate --format json`` (1-based, hint)."""
    hint = d.related_information[0].message if d.related_information else None
    return {
        "severity": {
            types.DiagnosticSeverity.Error: "error",
            types.DiagnosticSeverity.Information: "note",
        }.get(d.severity or types.DiagnosticSeverity.Warning, "warning"),
        "code": d.code,
        "path": d.data["path"] if isinstance(d.data, dict) else None,
        "line": d.range.start.line + 1,
        "column": d.range.start.character + 1,
        "message": d.message,
        "hint": hint,
    }


def validate_json(*paths: Path) -> dict[str, list[dict[str, Any]]]:
    """``validate --format json`` (offline, as the server is by default): path -> diagnostics."""
    result = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", *OFFLINE, "-f", "json"]
        + [str(p) for p in paths],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=SERVER_ENV,
    )
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    return {f["path"]: f["diagnostics"] for f in data["files"]}


def validate_text(text: str, **settings: Any) -> list[dict[str, Any]]:
    """What validate says of ``text`` (in process, offline)."""
    given = {"check_paths": False, "check_env": False, **settings}
    report = validation.validate_text(text, "recipe.yaml", Settings(**given))
    return [d.as_dict() for d in report.diagnostics]


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (ASCII text: characters are UTF-16 units), last first."""
    lines = Lines(text)

    def offset(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines.lines[: position.line])
        return before + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text
