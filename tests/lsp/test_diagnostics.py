"""Diagnostics in the editor are validate's: every example, a sample of the corpus, bad
input of every kind, and a config typed one character at a time."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from automodel_launch.lsp.recipes import is_recipe
from tests.conftest import CORPUS, RECIPE, ROOT
from tests.lsp.conftest import Editor, key, validate_json, validate_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLES = sorted((ROOT / "tests" / "examples").rglob("*.yaml")) + sorted(
    (ROOT / "examples").glob("*.yaml")
)


def corpus_sample() -> list[Path]:
    """Every corpus file validate has something to say about, and every 12th of the rest."""
    files = sorted(CORPUS.rglob("*.yaml"))
    if not files:
        pytest.skip(f"the AutoModel config corpus is missing: {CORPUS}")
    return files[::12] + [f for i, f in enumerate(files) if i % 12 and _mentions_launcher(f)]


def _mentions_launcher(path: Path) -> bool:
    return re.search(r"^(slurm|skypilot):", path.read_text(encoding="utf-8"), re.M) is not None


async def test_every_example_gets_exactly_validates_diagnostics(client: LanguageClient) -> None:
    """...and the examples that are no recipe (a manifest, a workflow) get nothing: the
    server checks recipes only, where validate says what the file looks like."""
    editor = Editor(client)
    expected = validate_json(*EXAMPLES)
    assert any(expected.values())  # the examples do have diagnostics to compare
    others = 0
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        if not is_recipe(text):
            others += 1
            assert [d["code"] for d in expected[str(path)]] == ["not-a-recipe"], path
            expected[str(path)] = []
        found = await editor.check(text, uri=path.as_uri())
        assert found == expected[str(path)], path
    assert others >= 3


async def test_a_sample_of_the_corpus_gets_exactly_validates_diagnostics(
    client: LanguageClient,
) -> None:
    editor = Editor(client)
    files = corpus_sample()
    expected = validate_json(*files)
    dirty = [p for p in files if expected[str(p)]]
    # both kinds, many of each (real multi-node recipes without a launcher section are
    # told the ranks their mesh needs)
    assert len(dirty) >= 5 and len(files) - len(dirty) >= 30
    for path in files:
        found = await editor.check(path.read_text(encoding="utf-8"), uri=path.as_uri())
        assert found == expected[str(path)], path


NOT_RECIPES = {
    "workflow": "name: CI\non:\n  push:\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    "    steps: [\n",
    "compose": "services:\n  web:\n    image: nginx\n    ports: [80:80\n",
    "manifest": "apiVersion: v1\nkind: Pod\nmetadata: {name: x\n",
}


@pytest.mark.parametrize("name", sorted(NOT_RECIPES))
async def test_other_yaml_files_get_nothing(client: LanguageClient, name: str) -> None:
    text = NOT_RECIPES[name]
    assert [d["code"] for d in validate_text(text)] == ["yaml-syntax"]  # validate would object
    assert await Editor(client).check(text) == []


async def test_a_recipe_is_told_by_its_keys_or_its_modeline(client: LanguageClient) -> None:
    editor = Editor(client)
    broken = "model:\n  name: [x\n"
    assert await editor.check(broken) == []
    for marker in ("recipe: llm\n", "  _target_: x.Y\n", "# automodel-launch recipe\n"):
        text = marker + broken if marker.startswith("#") else broken + marker
        assert [d["code"] for d in await editor.check(text)] == ["yaml-syntax"], marker
    # not YAML: a recipe's text in a JSON document or a .txt file gets nothing
    recipe = "slurm:\n  nodes: 0\n" + RECIPE
    assert await editor.check(recipe, language="json") == []
    assert await editor.check(recipe, name="notes.txt", language="") == []
    assert [d["code"] for d in await editor.check(recipe, name="r.yml", language="")] == [
        "out-of-range"
    ]


BAD_INPUT = {
    "binary": ("slurm:\n\x00\x01\x02\xff", ["not-text"]),
    "huge": ("slurm:\n  nodes: 1\n" + "# padding\n" * 1_100_000, ["file-too-large"]),
    "half-typed": ('slurm:\n  nodes: 2\n  time: "04:0', ["yaml-syntax"]),
    "tab": ("slurm:\n\tnodes: 2\n", ["yaml-syntax"]),
    "deep": ("slurm: " + "[" * 5000, ["too-deep"]),
    "surrogate": ("slurm:\n  job_name: \ud800\n", ["not-text"]),
    "lists": ("recipe: x\n" + "- a\n", ["yaml-syntax"]),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
async def test_bad_input_is_a_diagnostic_and_the_server_keeps_serving(
    client: LanguageClient, name: str
) -> None:
    text, codes = BAD_INPUT[name]
    editor = Editor(client)
    found = await editor.check(text)
    assert [d["code"] for d in found] == codes
    assert found == validate_text(text)
    again = await editor.check("slurm:\n  nodes: 0\n" + RECIPE)
    assert [d["code"] for d in again] == ["out-of-range"]


async def test_a_document_deleted_under_the_server(client: LanguageClient, tmp_path: Path) -> None:
    editor = Editor(client)
    path = tmp_path / "recipe.yaml"
    path.write_text("slurm:\n  nodes: 0\n" + RECIPE, encoding="utf-8")
    uri = await editor.open(path.read_text(encoding="utf-8"), uri=path.as_uri())
    assert [key(d)["code"] for d in await editor.diagnostics(uri)] == ["out-of-range"]
    path.unlink()  # the editor's buffer is what is checked, not the file
    await editor.change(uri, 2, "slurm:\n  nodes: 1\n" + RECIPE)
    assert await editor.diagnostics(uri) == []
    editor.close(uri)
    assert await editor.diagnostics(uri) == []  # closing clears them
    # requests and changes about the closed document answer nothing, and nothing breaks
    await editor.change(uri, 3, "slurm:\n  nodes: 0\n" + RECIPE)
    assert await editor.hover(uri, 1, 3) is None
    assert await editor.complete(uri, 1, 2) == []
    await asyncio.sleep(0.1)
    assert uri not in client.diagnostics
    again = await editor.check("slurm:\n  nodes: 0\n" + RECIPE)
    assert [d["code"] for d in again] == ["out-of-range"]


async def test_typing_a_config_character_by_character(client: LanguageClient) -> None:
    """Every prefix of a recipe, typed with incremental changes: no crash, and the last
    publication is validate's answer for the whole text."""
    text = (ROOT / "examples" / "broken.yaml").read_text(encoding="utf-8")
    editor = Editor(client)
    uri = await editor.open("")
    line = character = 0
    for version, char in enumerate(text, start=2):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=line, character=character),
                            end=types.Position(line=line, character=character),
                        ),
                        text=char,
                    )
                ],
            )
        )
        line, character = (line + 1, 0) if char == "\n" else (line, character + 1)
        if version % 40 == 0:
            await asyncio.sleep(0)  # let the server answer now and then, as a typist would
    expected = validate_text(text)
    assert expected
    for _ in range(200):
        found = [key(d) for d in client.diagnostics.get(uri, [])]
        if found == expected:
            break
        await asyncio.sleep(0.02)
    assert found == expected
    assert await editor.hover(uri, 1, 1) is not None  # still serving


async def test_columns_are_in_the_clients_units(client: LanguageClient) -> None:
    """validate counts characters; LSP counts UTF-16 units: an emoji is two of them."""
    text = 'slurm: {job_name: "\U0001f600x", nodes: 0}\n'
    (expected,) = [d for d in validate_text(text) if d["code"] == "out-of-range"]
    editor = Editor(client)
    uri = await editor.open(text)
    (found,) = [d for d in await editor.diagnostics(uri) if d.code == "out-of-range"]
    prefix = text[: expected["column"] - 1]
    assert found.range.start.character == len(prefix.encode("utf-16-le")) // 2
    assert found.range.start.character == expected["column"]  # one more than characters
    assert (found.range.end.line, found.range.end.character) == (0, found.range.start.character + 1)


async def test_a_burst_of_edits_is_checked_once_for_its_last_version(
    client: LanguageClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Debounced: 100 changes sent at once give a handful of checks (the first edit after a
    quiet spell at once, then at most one per 30 ms), the last for the last version."""
    published: list[types.PublishDiagnosticsParams] = []
    features = client.protocol.fm.features
    original = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def count(params: types.PublishDiagnosticsParams) -> None:
        published.append(params)
        original(params)

    monkeypatch.setitem(features, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, count)
    editor = Editor(client)
    uri = await editor.open("slurm:\n  nodes: 1\n")
    await editor.diagnostics(uri)
    await asyncio.sleep(0.1)
    for version in range(2, 102):
        text = f"slurm:\n  nodes: {version % 2}\n" + RECIPE  # 0 is out of range, 1 is fine
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    for _ in range(200):
        mine = [p for p in published if p.uri == uri]
        if mine and mine[-1].version == 101:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)
    mine = [p for p in published if p.uri == uri]
    assert mine[0].version == 1
    assert 2 <= len(mine) <= 10, [p.version for p in mine]
    assert mine[-1].version == 101
    assert [key(d)["code"] for d in mine[-1].diagnostics] == []  # nodes: 1 (101 % 2)
