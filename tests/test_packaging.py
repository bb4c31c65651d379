"""What the package declares is what it ships: one version, no pattern matching nothing."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest
import tomllib

import automodel_launch
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_kept_once() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "automodel_launch.version.__version__"
    }
    assert importlib.metadata.version("automodel-launch") == automodel_launch.__version__


def test_every_package_data_pattern_ships_a_file() -> None:
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        folder = ROOT / package.replace(".", "/")
        for pattern in patterns:
            assert list(folder.glob(pattern)), f"{package}: {pattern} matches nothing"


@pytest.mark.parametrize(
    "args",
    [
        ["schema"],
        ["validate", "examples/llm_finetune_slurm.yaml", "--no-check-paths"],
        ["render", "examples/llm_finetune_slurm.yaml", "--no-check-paths"],
    ],
    ids=lambda a: a[0],
)
def test_only_the_lsp_command_imports_the_language_server(args: list[str]) -> None:
    """With the lsp extra installed, the other commands still import none of it."""
    script = (
        "import sys\n"
        "from automodel_launch.cli import main\n"
        f"sys.argv = ['automodel-launch', *{args!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules\n"
        "                if m.split('.')[0] in {'pygls', 'lsprotocol', 'sky', 'plotext',\n"
        "                                       'matplotlib'}\n"
        "                or m.startswith('automodel_launch.lsp'))\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert "LOADED []" in result.stderr, result.stderr
