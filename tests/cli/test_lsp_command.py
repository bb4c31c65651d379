"""``automodel-launch lsp`` without the lsp extra: a clear message and exit 2."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_without_pygls_the_command_says_how_to_install_it() -> None:
    script = (
        "import sys\n"
        "sys.modules['pygls'] = None  # as if the lsp extra were not installed\n"
        "from automodel_launch.cli import main\n"
        "sys.argv = ['automodel-launch', 'lsp']\n"
        "main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error: the language server needs pygls\n    hint: pip install 'automodel-launch[lsp]'\n"
    )
