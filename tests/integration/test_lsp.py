"""Editors: the committed JSON Schema in the real yaml-language-server, over stdio LSP.

The server is the pinned npm package in tests/integration/lsp/ (``npm ci --prefix
tests/integration/lsp``). Both ways an editor binds a file to the schema are exercised,
each exactly as ``automodel-launch schema`` prints it: the ``yaml.schemas`` setting
(``--editor vscode``) and the modeline (``--modeline``). Documents are sent with didOpen
under this repository's ``examples/`` folder and are never written to disk.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from automodel_launch import editors
from automodel_launch.cli.app import app
from automodel_launch.config.skypilot import CLOUDS
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.loading import load_text
from automodel_launch.schema import schema_text
from automodel_launch.validation import validate_loaded
from tests.conftest import CORPUS, ROOT, offline_settings
from tests.integration.conftest import unavailable
from tests.integration.lsp.client import (
    SERVER_JS,
    YamlLanguageServer,
    server_command,
    yaml_settings,
)

SCHEMA_PATH = ROOT / "schemas" / "automodel-launch.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
EXAMPLES = ROOT / "examples"
ERROR = 1  # LSP DiagnosticSeverity.Error

BAD = """\
slurm:
  job_name: llm_finetune
  time: "4h"
  master_port: 99999
  ntask_per_node: 8
"""


def bad_expected() -> list[tuple[int, int, int, int, str]]:
    """(line, start, end, severity, message) for BAD: one diagnostic on each bad line."""
    time_message = SCHEMA["$defs"]["SlurmConfig"]["properties"]["time"]["patternErrorMessage"]
    return [
        (2, 8, 12, ERROR, time_message),
        (3, 15, 20, ERROR, "Value is above the maximum of 65535."),
        (4, 2, 16, ERROR, "Property ntask_per_node is not allowed."),
    ]


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, ["schema", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def unescape(markdown: str) -> str:
    """Hover text is Markdown: the server escapes characters such as '_' and '*'."""
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|~])", r"\1", markdown)


def expand(snippet: str) -> str:
    """An LSP snippet with every placeholder at its default (a choice at its first option)."""
    text = re.sub(r"\$\{\d+\|([^,|]*)[^|]*\|\}", r"\1", snippet)
    while True:
        replaced = re.sub(r"\$\{\d+:([^${}]*)\}", r"\1", text)
        if replaced == text:
            break
        text = replaced
    return re.sub(r"\$\d+", "", text)


# --------------------------------------------------------------------------- server
def server() -> list[str]:
    if not SERVER_JS.exists():
        unavailable("yaml-language-server is not installed: npm ci --prefix tests/integration/lsp")
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (yaml-language-server 1.25 needs Node >= 20)")
    return server_command(node)


@dataclass
class Doc:
    """One open document; ``offset`` lines (a modeline) precede the text under test."""

    ls: YamlLanguageServer
    uri: str
    offset: int

    def diagnostics(self) -> list[tuple[int, int, int, int, str]]:
        found = [
            (
                int(d["range"]["start"]["line"]) - self.offset,
                int(d["range"]["start"]["character"]),
                int(d["range"]["end"]["character"]),
                int(d.get("severity", 0)),
                str(d["message"]),
            )
            for d in self.ls.diagnostics(self.uri)
        ]
        return sorted(found)

    def completion_items(self, line: int, character: int) -> list[dict[str, Any]]:
        return self.ls.completion_items(self.uri, line + self.offset, character)

    def completion(self, line: int, character: int) -> list[str]:
        return [str(item["label"]) for item in self.completion_items(line, character)]

    def hover(self, line: int, character: int) -> str:
        return unescape(self.ls.hover(self.uri, line + self.offset, character))


class Editor:
    """A running server and how its documents are bound to the schema."""

    def __init__(self, ls: YamlLanguageServer, header: str = "") -> None:
        self.ls = ls
        self.header = header
        self.count = 0

    def open(self, text: str, folder: Path = EXAMPLES, name: str | None = None) -> Doc:
        self.count += 1
        uri = (folder / (name or f"_lsp_test_{self.count}.yaml")).as_uri()
        self.ls.open(uri, self.header + text)
        return Doc(self.ls, uri, self.header.count("\n"))


def start(settings: dict[str, Any], header: str = "") -> Iterator[Editor]:
    with YamlLanguageServer(server(), settings, root=ROOT) as ls:
        yield Editor(ls, header)


@pytest.fixture(scope="module")
def settings_editor() -> Iterator[Editor]:
    """``yaml.schemas`` as ``schema --editor vscode`` prints it (default glob)."""
    printed = json.loads(cli("--editor", "vscode", "--location", str(SCHEMA_PATH)))
    yield from start(yaml_settings(printed["yaml.schemas"]))


@pytest.fixture(scope="module")
def modeline_editor() -> Iterator[Editor]:
    """No settings; each document starts with ``schema --modeline`` (relative to examples/)."""
    header = cli("--modeline", "--location", str(SCHEMA_PATH), "--relative-to", str(EXAMPLES))
    yield from start(yaml_settings({}), header)


@pytest.fixture(params=["settings", "modeline"])
def editor(request: pytest.FixtureRequest) -> Editor:
    editor: Editor = request.getfixturevalue(f"{request.param}_editor")
    return editor


# --------------------------------------------------------------------------- behaviour
@pytest.mark.integration
def test_completion_inside_slurm_offers_every_slurm_key(editor: Editor) -> None:
    doc = editor.open("slurm:\n  nodes: 2\n  \n")
    labels = doc.completion(2, 2)
    snippets = [s["label"] for s in SCHEMA["$defs"]["SlurmConfig"]["defaultSnippets"]]
    assert {"ntasks_per_node", "master_port", "extra_mounts"} <= set(labels)
    assert sorted(labels) == sorted([*snippets, *(set(SlurmConfig.model_fields) - {"nodes"})])


@pytest.mark.integration
def test_completion_after_cloud_offers_exactly_the_five_clouds(editor: Editor) -> None:
    doc = editor.open("skypilot:\n  cloud: \n")
    assert doc.completion(1, 9) == list(CLOUDS) == ["aws", "gcp", "azure", "lambda", "kubernetes"]


@pytest.mark.integration
@pytest.mark.parametrize(
    ("line", "key"),
    [(1, "ntasks_per_node"), (2, "time"), (3, "master_port"), (4, "extra_mounts")],
)
def test_hover_shows_the_field_description(editor: Editor, line: int, key: str) -> None:
    doc = editor.open(
        'slurm:\n  ntasks_per_node: 8\n  time: "04:00:00"\n  master_port: 13742\n'
        "  extra_mounts:\n    - /lustre:/lustre\n"
    )
    description = SlurmConfig.model_fields[key].description
    assert description
    assert description in doc.hover(line, 4)


@pytest.mark.integration
def test_bad_values_get_diagnostics_on_exactly_their_lines(editor: Editor) -> None:
    assert editor.open(BAD).diagnostics() == bad_expected()


CORPUS_CASES = [
    # (file, a top-level section whose hover proves the schema is bound)
    ("automodel-head/llm_finetune/llama3_2/llama3_2_1b_squad_skypilot.yaml", "skypilot"),
    ("automodel-docs/docs__launcher__cluster.md__0.yaml", "slurm"),
    ("automodel-head/llm_finetune/gpt_oss/customizer_gpt_oss_full_sft_chat.yaml", "checkpoint"),
]


@pytest.mark.integration
@pytest.mark.parametrize(("name", "key"), CORPUS_CASES, ids=[c[0] for c in CORPUS_CASES])
def test_real_corpus_configs_get_no_diagnostics(editor: Editor, name: str, key: str) -> None:
    path = CORPUS / name
    if not path.is_file():
        unavailable(f"the AutoModel config corpus is missing: {path}")
    text = path.read_text(encoding="utf-8")
    doc = editor.open(text)
    assert doc.diagnostics() == []
    # The schema is bound (recipe sections are open): hover on the section shows its model.
    line = text.splitlines().index(f"{key}:")
    ref = SCHEMA["properties"][key]["anyOf"][0]["$ref"].rsplit("/", 1)[-1]
    assert SCHEMA["$defs"][ref]["description"] in doc.hover(line, 1)


@pytest.mark.integration
def test_slurm_snippet_completes_with_a_quoted_time(editor: Editor) -> None:
    doc = editor.open("slurm:\n  \n")
    label = SCHEMA["$defs"]["SlurmConfig"]["defaultSnippets"][0]["label"]
    (item,) = [i for i in doc.completion_items(1, 2) if i["label"] == label]
    body = expand(item.get("insertText") or item["textEdit"]["newText"])
    quoted = re.search(r'^time: "\d+(:\d+)*"$', body, re.MULTILINE)
    assert quoted, (
        f"the slurm snippet must write time quoted (YAML 1.1 reads 1:00:00 as 3600):\n{body}"
    )
    inserted = "slurm:\n" + "".join(f"  {line}\n" for line in body.splitlines())
    assert editor.open(inserted).diagnostics() == []
    assert accepted_by_cli(inserted)


@pytest.mark.integration
def test_skypilot_snippet_completes_to_a_valid_section(editor: Editor) -> None:
    doc = editor.open("skypilot:\n  \n")
    label = SCHEMA["$defs"]["SkyPilotConfig"]["defaultSnippets"][0]["label"]
    (item,) = [i for i in doc.completion_items(1, 2) if i["label"] == label]
    body = expand(item.get("insertText") or item["textEdit"]["newText"])
    inserted = "skypilot:\n" + "".join(f"  {line}\n" for line in body.splitlines())
    assert "  cloud: aws\n" in inserted
    assert editor.open(inserted).diagnostics() == []
    assert accepted_by_cli(inserted)


def accepted_by_cli(text: str) -> bool:
    """What the editor inserted also passes ``automodel-launch validate`` (no error)."""
    result = load_text(text, "snippet.yaml")
    assert result.loaded is not None, result.diagnostics
    report = validate_loaded(result.loaded, offline_settings())
    errors = [d for d in result.diagnostics + report.diagnostics if d.is_error]
    assert errors == [], errors
    return True


# --------------------------------------------------------------------------- association
@pytest.mark.integration
def test_default_glob_binds_examples_only(settings_editor: Editor) -> None:
    assert settings_editor.open(BAD, folder=ROOT / "examples" / "llm").diagnostics() == (
        bad_expected()
    )
    assert settings_editor.open(BAD, folder=ROOT / "configs").diagnostics() == []


def _vscode_relative() -> tuple[dict[str, Any], str]:
    printed = json.loads(cli("--editor", "vscode", "--relative-to", str(ROOT)))
    assert printed == {
        "yaml.schemas": {"schemas/automodel-launch.schema.json": ["examples/**/*.yaml"]}
    }
    return yaml_settings(printed["yaml.schemas"]), ""


def _helix() -> tuple[dict[str, Any], str]:
    tomllib = pytest.importorskip("tomllib")
    printed = tomllib.loads(cli("--editor", "helix", "--location", str(SCHEMA_PATH)))
    config = printed["language-server"]["yaml-language-server"]["config"]
    return {"yaml": yaml_settings()["yaml"] | config["yaml"]}, ""


def _jetbrains() -> tuple[dict[str, Any], str]:
    header = cli("--modeline", "--editor", "jetbrains", "--relative-to", str(EXAMPLES))
    assert header == "# $schema: ../schemas/automodel-launch.schema.json\n"
    return yaml_settings({}), header


def _absolute_modeline() -> tuple[dict[str, Any], str]:
    header = cli("--modeline", "--location", str(SCHEMA_PATH))
    assert header == f"# yaml-language-server: $schema={SCHEMA_PATH.as_posix()}\n"
    return yaml_settings({}), "# A recipe.\n" + header  # any line of the leading comments


@pytest.mark.integration
@pytest.mark.parametrize(
    "variant",
    [_vscode_relative, _helix, _jetbrains, _absolute_modeline],
    ids=["vscode-relative-to-workspace", "helix-languages-toml", "jetbrains-comment", "modeline"],
)
def test_every_printed_association_binds_the_schema(variant: Any) -> None:
    settings, header = variant()
    for editor in start(settings, header):
        assert editor.open(BAD).diagnostics() == bad_expected()


@pytest.mark.integration
def test_a_missing_schema_is_reported_on_the_first_node() -> None:
    """So a clean document really means "checked", never "schema not found"."""
    header = "# yaml-language-server: $schema=../schemas/missing.schema.json\n"
    missing = ROOT / "schemas" / "missing.schema.json"
    for editor in start(yaml_settings({}), header):
        assert editor.open(BAD).diagnostics() == [
            (0, 0, 1, ERROR, f"Unable to load schema from '{missing}': No content.")
        ]


@pytest.mark.integration
def test_every_corpus_config_is_clean_in_the_editor(settings_editor: Editor) -> None:
    """All real AutoModel configs at once: no editor diagnostic on any of them."""
    files = sorted(CORPUS.rglob("*.yaml"))
    if not files:
        unavailable(f"the AutoModel config corpus is missing: {CORPUS}")
    sentinel = settings_editor.open(BAD, folder=EXAMPLES / "_corpus")
    docs = {
        path: settings_editor.open(
            path.read_text(encoding="utf-8"),
            folder=EXAMPLES / "_corpus" / path.parent.relative_to(CORPUS),
            name=path.name,
        )
        for path in files
    }
    ls = settings_editor.ls
    for doc in [sentinel, *docs.values()]:
        ls.diagnostics(doc.uri, settle=0)  # every first publication is in
    time.sleep(0.5)  # then one settle period for re-publications, for all documents at once
    assert len(ls.diagnostics(sentinel.uri, settle=0)) == 3
    dirty = {
        str(path.relative_to(CORPUS)): found
        for path, doc in docs.items()
        if (found := ls.diagnostics(doc.uri, settle=0))
    }
    assert dirty == {}


# --------------------------------------------------------------------------- printed text
def test_modeline_and_snippets_text() -> None:
    location = "https://example.com/s.json"
    assert cli("--modeline", "--location", location) == (
        "# yaml-language-server: $schema=https://example.com/s.json\n"
    )
    assert cli(
        "--editor", "vscode", "--location", location, "--glob", "a/*.yaml", "--glob", "b.yml"
    ) == (
        '{\n  "yaml.schemas": {\n    "https://example.com/s.json": [\n'
        '      "a/*.yaml",\n      "b.yml"\n    ]\n  }\n}\n'
    )
    assert cli("--editor", "helix", "--location", location) == (
        "# languages.toml (~/.config/helix/ or .helix/ in the project)\n"
        "[language-server.yaml-language-server.config.yaml.schemas]\n"
        '"https://example.com/s.json" = ["examples/**/*.yaml"]\n'
    )
    neovim = cli("--editor", "neovim", "--location", location)
    assert 'require("lspconfig").yamlls.setup({\n' in neovim
    assert '        ["https://example.com/s.json"] = { "examples/**/*.yaml" },\n' in neovim
    assert cli("--editor", "jetbrains", "--location", location) == (
        "# $schema: https://example.com/s.json\n"
    )


def test_default_location_is_the_committed_schema_in_a_checkout() -> None:
    assert editors.committed_schema() == SCHEMA_PATH
    assert cli("--modeline") == f"# yaml-language-server: $schema={SCHEMA_PATH.as_posix()}\n"
    assert editors.raw_url("1.2.3") == (
        "https://raw.githubusercontent.com/automodel-launch/automodel-launch/v1.2.3/"
        "schemas/automodel-launch.schema.json"
    )


@pytest.mark.integration
def test_outside_a_checkout_the_modeline_points_at_the_installed_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An installed package has no schemas/ folder: the modeline names the copy installed
    with it, which exists, and the real server loads it (nothing is published at a URL)."""
    monkeypatch.setattr(editors, "committed_schema", lambda: None)
    header = cli("--modeline")
    installed = editors.installed_schema()
    assert header == f"# yaml-language-server: $schema={installed.as_posix()}\n"
    assert installed.read_text(encoding="utf-8") == schema_text()
    for editor in start(yaml_settings({}), header):
        assert editor.open(BAD).diagnostics() == bad_expected()


def test_output_file_is_written_and_pointed_at(tmp_path: Path) -> None:
    target = tmp_path / "my schemas" / "recipe.schema.json"
    target.parent.mkdir()
    printed = cli("-o", str(target), "--modeline")
    assert target.read_text(encoding="utf-8") == schema_text()
    assert printed == f"# yaml-language-server: $schema={target.as_uri()}\n"  # a space: URI


def test_usage_errors() -> None:
    runner = CliRunner()
    bad_editor = runner.invoke(app, ["schema", "--editor", "emacs"])
    assert bad_editor.exit_code == 2
    message = " ".join(re.sub(r"[│╭╮╰╯─]", " ", bad_editor.output).split())
    assert (
        "Invalid value for --editor: 'emacs' is not vscode, neovim, helix or jetbrains" in message
    )
    glob_on_modeline = runner.invoke(app, ["schema", "--modeline", "--glob", "*.yaml"])
    assert glob_on_modeline.exit_code == 2
