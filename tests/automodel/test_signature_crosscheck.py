"""The tables against ``inspect.signature`` of the installed packages.

The tests session installs nemo-automodel 0.7.0 without its dependencies, torch, and the
light ones that let most of its modules import (transformers, torchdata, einops, pillow:
noxfile.py). Every entry whose module imports here is compared; a minimum count keeps the
comparison from passing on nothing. A child process does the importing (AutoModel's
modules patch libraries and install import hooks).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from automodel_launch.automodel.versions import DEFAULT

HERE = Path(__file__).resolve().parent
RELEASES = HERE.parents[1] / "automodel_launch" / "automodel" / "releases"

# What ast cannot see, each with the reason; anything else that differs is a defect.
DIFFERENT = {
    # transformers' PreTrainedConfig.__init_subclass__ rebuilds every subclass as a
    # dataclass: inspect shows the rebuilt fields, the table the class's own __init__
    # (with **kwargs: it refuses no keyword).
    "nemo_automodel.components.models.step3p7.configuration_step3p7.Step3p5VConfig",
}
MINIMUM = {DEFAULT: 2000, "thirdparty": 700}


def inspected(targets: list[str]) -> dict[str, str | None]:
    child = subprocess.run(
        [sys.executable, str(HERE / "inspect_signatures.py")],
        input="\n".join(targets),
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    found: dict[str, str | None] = json.loads(child.stdout)
    return found


@pytest.mark.parametrize("name", [DEFAULT, "thirdparty"])
def test_the_table_agrees_with_inspect_on_every_entry_that_imports(name: str) -> None:
    callables = json.loads((RELEASES / f"{name}.json").read_text(encoding="utf-8"))["callables"]
    # "**" alone: the class takes what a base outside the package takes (not read)
    targets = [t for t, text in callables.items() if text != "**"]
    real = inspected(targets)
    compared = {t: real[t] for t in targets if real.get(t) is not None}
    differ = {
        t: (callables[t], seen)
        for t, seen in compared.items()
        if seen != callables[t]
        # a wrapper without functools.wraps hides the signature: the table keeps the
        # parameters of the function it wraps
        and not (seen == "**" and callables[t].endswith("**"))
    }
    assert set(differ) <= DIFFERENT, differ
    assert len(compared) >= MINIMUM[name], f"only {len(compared)} entries import here"
