"""Hover and completion answers, from the field metadata the schema and fields.md share."""

from __future__ import annotations

import json
import re

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from automodel_launch.config.skypilot import CLOUDS, SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.fieldref import field_doc
from automodel_launch.loading.env import RUNTIME_NAMES
from tests.conftest import RECIPE as RECIPE_LINE
from tests.conftest import ROOT
from tests.lsp.conftest import VALUE_NEVER_SHOWN, Editor, apply, validate_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIELDS = (ROOT / "docs" / "fields.md").read_text(encoding="utf-8")
RECIPE = """\
slurm:
  nodes: 2
  time: "04:00:00"
  extra_mounts:
    - source: /lustre
      dest: /data
  env_vars:
    A: ${LSP_TEST_SET_VARIABLE}/x
    B: ${LSP_TEST_UNSET_VARIABLE}
    C: ${SLURM_JOB_ID}
"""


def expand(snippet: str) -> str:
    """An LSP snippet with each placeholder at its default (a choice at its first option)."""
    text = re.sub(r"\$\{\d+\|([^,|]*)[^|]*\|\}", r"\1", snippet)
    text = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", text)
    return re.sub(r"\$\d+", "", text)


async def test_completion_past_the_last_line_is_invalid_params(client: LanguageClient) -> None:
    editor = Editor(client)
    uri = await editor.open("slurm:\n  nodes: 2\n")
    for line in (40, 3):
        with pytest.raises(JsonRpcInvalidParams) as raised:
            await editor.complete(uri, line, 0)
        assert raised.value.code == -32602
        assert raised.value.message == (
            f"textDocument/completion: position line {line} is past the document's last line (2)"
        )
    assert "skypilot" in [i.label for i in await editor.complete(uri, 2, 0)]  # the last line
    # a character past the line's end means the end of the line (the LSP says so)
    assert [i.label for i in await editor.complete(uri, 2, 99)] == [
        i.label for i in await editor.complete(uri, 2, 0)
    ]


@pytest.mark.parametrize(
    ("line", "character", "path"),
    [(1, 3, "slurm.nodes"), (2, 2, "slurm.time"), (2, 10, "slurm.time"), (5, 7, "dest")],
)
async def test_hover_on_a_key_is_its_field_reference_row(
    client: LanguageClient, line: int, character: int, path: str
) -> None:
    editor = Editor(client)
    uri = await editor.open(RECIPE)
    text = await editor.hover(uri, line, character)
    assert text is not None
    loc = ("slurm", "extra_mounts", "dest") if path == "dest" else tuple(path.split("."))
    doc = field_doc(loc)
    assert doc is not None
    # the same description, type and default as the row of docs/fields.md
    row = f"| `{loc[-1]}` | {doc.kind} | {doc.default} | {doc.description} |"
    assert row in FIELDS
    assert doc.description in text
    assert f"Default: {doc.default}" in text
    assert re.sub(r"\[([^\]]+)\]\(#[^)]*\)", r"\1", doc.kind) in text
    if loc == ("slurm", "time"):
        assert 'Example: `"04:00:00"`, `"2-00:00:00"`' in text


async def test_hover_on_a_reference_says_whether_it_is_set_never_its_value(
    client: LanguageClient,
) -> None:
    editor = Editor(client)
    uri = await editor.open(RECIPE)
    is_set = await editor.hover(uri, 7, 10)
    unset = await editor.hover(uri, 8, 10)
    runtime = await editor.hover(uri, 9, 10)
    assert is_set is not None and unset is not None and runtime is not None
    assert is_set.startswith("`${LSP_TEST_SET_VARIABLE}`: set in this environment")
    assert VALUE_NEVER_SHOWN not in is_set
    assert unset.startswith("`${LSP_TEST_UNSET_VARIABLE}`: **not set** in this environment")
    assert "Slurm resolves it in the job's shell at run time" in unset
    assert runtime.startswith("`${SLURM_JOB_ID}`: set by the job itself at run time")
    assert await editor.hover(uri, 7, 33) is None  # after the reference: plain text


async def test_completion_in_a_section_offers_its_missing_keys(client: LanguageClient) -> None:
    editor = Editor(client)
    uri = await editor.open("slurm:\n  nodes: 2\n  \n")
    items = await editor.complete(uri, 2, 2)
    assert sorted(i.label for i in items) == sorted(set(SlurmConfig.model_fields) - {"nodes"})
    uri = await editor.open("skypilot:\n  cloud: aws\n  use\n")
    labels = [i.label for i in await editor.complete(uri, 2, 5)]
    assert labels == [k for k in SkyPilotConfig.model_fields if k != "cloud"]


async def test_key_snippets_insert_valid_values(client: LanguageClient) -> None:
    editor = Editor(client)
    text = "slurm:\n  \n" + RECIPE_LINE
    uri = await editor.open(text)
    items = {i.label: i for i in await editor.complete(uri, 1, 2)}
    for name in ("time", "master_port", "nodes", "nsys_enabled"):
        edit = items[name].text_edit
        assert edit is not None
        filled = apply(text, [edit.__class__(range=edit.range, new_text=expand(edit.new_text))])
        assert validate_text(filled) == [], filled
    assert expand(items["time"].text_edit.new_text) == 'time: "04:00:00"'  # type: ignore[union-attr]
    # at the top level a launcher section opens with the schema's snippet
    uri = await editor.open("recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel:\n  x: 1\n\n")
    items = {i.label: i for i in await editor.complete(uri, 3, 0)}
    assert "slurm" in items and "k8s" in items and "recipe" not in items
    assert "kubernetes" not in items  # no launcher of AutoModel's: deprecated, not offered
    assert "lepton" not in items  # no released launcher: nothing launches it
    edit = items["skypilot"].text_edit
    assert edit is not None
    body = expand(edit.new_text)
    assert body.startswith("skypilot:\n  cloud: aws\n")
    after = "recipe: TrainFinetuneRecipeForNextTokenPrediction\nmodel:\n  x: 1\n" + body + "\n"
    assert [d for d in validate_text(after) if d["severity"] == "error"] == []


@pytest.mark.parametrize(
    ("text", "line", "character", "values"),
    [
        ("skypilot:\n  cloud: \n", 1, 9, list(CLOUDS)),
        ("skypilot:\n  cloud: a\n", 1, 10, list(CLOUDS)),
        ("skypilot:\n  job_recovery:\n    strategy: \n", 2, 14, ["EAGER_NEXT_REGION", "FAILOVER"]),
        ("skypilot:\n  use_spot: \n", 1, 12, ["true", "false"]),
        ("slurm:\n  nodes: \n", 1, 9, []),
    ],
)
async def test_completion_of_values(
    client: LanguageClient, text: str, line: int, character: int, values: list[str]
) -> None:
    editor = Editor(client)
    uri = await editor.open(text)
    assert [i.label for i in await editor.complete(uri, line, character)] == values


async def test_completion_after_dollar_brace_offers_variable_names(
    client: LanguageClient,
) -> None:
    editor = Editor(client)
    text = "slurm:\n  env_vars:\n    A: ${LSP_TEST\n    B: ${}\n"
    uri = await editor.open(text)
    items = await editor.complete(uri, 2, 17)
    labels = [i.label for i in items]
    assert "LSP_TEST_SET_VARIABLE" in labels
    assert "LSP_TEST_UNSET_VARIABLE" not in labels
    assert set(RUNTIME_NAMES) <= set(labels)
    assert VALUE_NEVER_SHOWN not in json.dumps([repr(i) for i in items])
    (item,) = [i for i in items if i.label == "LSP_TEST_SET_VARIABLE"]
    assert item.text_edit is not None
    assert apply(text, [item.text_edit]).splitlines()[2] == "    A: ${LSP_TEST_SET_VARIABLE}"
    (closed,) = [i for i in await editor.complete(uri, 3, 9) if i.label == "MASTER_ADDR"]
    assert closed.text_edit is not None
    assert apply(text, [closed.text_edit]).splitlines()[3] == "    B: ${MASTER_ADDR}"
