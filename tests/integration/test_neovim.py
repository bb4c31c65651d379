"""A real editor: Debian's Neovim, headless, with the configuration docs/editors.md gives.

Neovim opens a recipe file, attaches ``automodel-launch lsp`` from its FileType
autocommand, and the test reads back what Neovim itself holds (``vim.diagnostic.get``):
the diagnostics of ``validate``. Then a quick fix is asked for and applied through
Neovim's own LSP client, and the fixed buffer's diagnostics are read back again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.integration.conftest import unavailable
from tests.lsp.conftest import validate_text

pytest.importorskip("pygls", reason="the lsp extra is not installed")

DOCS = ROOT / "docs" / "editors.md"
RECIPE = """\
recipe: TrainFinetuneRecipeForNextTokenPrediction
slurm:
  ntask_per_node: 8
  time: 1:00:00
"""

PROBE = """\
local out = {}
local function snapshot()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(found, {
      line = d.lnum + 1, column = d.col + 1, code = d.code or d.user_data.lsp.code,
      severity = d.severity == vim.diagnostic.severity.ERROR and "error" or "warning",
      message = d.message, source = d.source,
    })
  end
  table.sort(found, function(a, b) return a.line < b.line end)
  return found
end
local function settle(count)
  return vim.wait(20000, function() return #vim.diagnostic.get(0) == count end, 10)
end
out.attached = vim.wait(20000, function() return #vim.lsp.get_active_clients() > 0 end, 10)
out.settled = settle(2)
out.before = snapshot()
out.version = vim.version().major .. "." .. vim.version().minor
-- the did-you-mean fix on line 3, as :lua vim.lsp.buf.code_action() would offer it
local client = vim.lsp.get_active_clients()[1]
local params = vim.lsp.util.make_range_params()
params.range = { start = { line = 2, character = 2 }, ["end"] = { line = 2, character = 2 } }
params.context = { diagnostics = {} }
local answers = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000) or {}
out.titles = {}
for _, answer in pairs(answers) do
  for _, action in ipairs(answer.result or {}) do
    table.insert(out.titles, action.title)
    if action.title == "Change to 'ntasks_per_node'" then
      vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
    end
  end
end
out.fixed_settled = settle(1)
out.after = snapshot()
out.text = vim.api.nvim_buf_get_lines(0, 0, -1, false)
vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.PROBE_OUT)
vim.cmd("qa!")
"""


def documented_config() -> str:
    """The Neovim 0.7-0.10 block of docs/editors.md, with this interpreter as the command."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"<!-- neovim-0\.7 -->\n```lua\n(.*?)```", text, re.DOTALL)
    assert block is not None, "docs/editors.md lost its tested Neovim block"
    command = '{ "automodel-launch", "lsp" }'
    assert command in block.group(1)
    words = [sys.executable, "-m", "automodel_launch", "lsp"]
    return block.group(1).replace(command, "{ " + ", ".join(json.dumps(w) for w in words) + " }")


def run_neovim(tmp_path: Path) -> dict[str, Any]:
    nvim = shutil.which("nvim")
    if nvim is None:
        unavailable("Neovim is not installed (apt-get install neovim)")
    assert nvim is not None
    (tmp_path / "init.lua").write_text(documented_config(), encoding="utf-8")
    (tmp_path / "probe.lua").write_text(PROBE, encoding="utf-8")
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(RECIPE, encoding="utf-8")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AUTOMODEL_LAUNCH_")},
        "PYTHONPATH": str(ROOT),
        "PROBE_OUT": str(tmp_path / "out.json"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    command = [nvim, "--headless", "--clean", "-u", str(tmp_path / "init.lua")]
    command += ["-c", f"luafile {tmp_path / 'probe.lua'}", str(recipe)]
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.integration
def test_neovim_shows_validates_diagnostics_and_applies_a_quick_fix(tmp_path: Path) -> None:
    data = run_neovim(tmp_path)
    assert data["attached"] and data["settled"], data
    expected = validate_text(RECIPE)
    assert [d["code"] for d in expected] == ["unknown-key", "yaml11-trap"]
    assert data["before"] == [
        {k: d[k] for k in ("line", "column", "code", "severity", "message")}
        | {"source": "automodel-launch"}
        for d in expected
    ]
    assert "Change to 'ntasks_per_node'" in data["titles"]
    assert data["fixed_settled"], data
    assert data["text"][2] == "  ntasks_per_node: 8"
    assert [d["code"] for d in data["after"]] == ["yaml11-trap"]
    assert [d["code"] for d in validate_text("\n".join(data["text"]) + "\n")] == ["yaml11-trap"]
