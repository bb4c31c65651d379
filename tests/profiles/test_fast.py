"""validate stays light: the profiles room is imported only when a profile or --set is in play."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = """\
import sys
from automodel_launch.cli import main
sys.argv = ['automodel-launch', 'validate', *{args!r}]
try:
    main()
except SystemExit:
    pass
print('LOADED', sorted(m for m in sys.modules
                       if m.startswith('automodel_launch.profiles')
                       or m.split('.')[0] in {{'platformdirs', 'typer', 'rich', 'click'}}),
      file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], []),
        # the fast path still (no typer, rich or click); no profile file is read
        (["--set", "slurm.nodes=2"], [f"automodel_launch.profiles{m}" for m in
                                      ("", ".files", ".jobtext", ".merge", ".overrides",
                                       ".provenance")]),
    ],
)  # fmt: skip
def test_the_profiles_room_only_when_in_play(
    tmp_path: Path, args: list[str], expected: list[str]
) -> None:
    recipe = tmp_path / "r.yaml"
    recipe.write_text("slurm:\n  nodes: 1\n")
    script = SCRIPT.format(args=[str(recipe), *args])
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert f"LOADED {expected!r}" in result.stderr, result.stderr
