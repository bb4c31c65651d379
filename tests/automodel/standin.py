"""A stand-in AutoModel: a small tree shaped like ``nemo_automodel`` (a StepScheduler, the
fine-tuning recipe that builds it, the CLI a job runs), and an installed distribution of it.

Its CLI (``python -m nemo_automodel.cli.app CONFIG``) does what AutoModel's does first with
a recipe's ``step_scheduler:``: it calls the StepScheduler with the section's keys, so a
keyword the stand-in does not take fails the run as AutoModel's would.
"""

from __future__ import annotations

from pathlib import Path

SCHEDULER = """
class StepScheduler:
    def __init__(self, global_batch_size, dp_size, dataloader, local_batch_size=1,
                 ckpt_every_steps=None, num_epochs=10, max_steps=None{extra}):
        self.sizes = (global_batch_size, local_batch_size, dp_size)
"""
RECIPE = """
from nemo_automodel.components.training.step_scheduler import StepScheduler


class BaseRecipe:
    pass


def build_step_scheduler(cfg, dataloader, dp_size):
    kwargs = dict(dataloader=dataloader, dp_size=dp_size)
    kwargs.update(cfg)
    return StepScheduler(**kwargs)


class TrainFinetuneRecipeForNextTokenPrediction(BaseRecipe):
    def __init__(self, cfg):
        self.cfg = cfg
"""
CLI = """
import sys

import yaml

from nemo_automodel.recipes.llm.train_ft import build_step_scheduler


def main():
    with open(sys.argv[1]) as stream:
        cfg = yaml.safe_load(stream)
    build_step_scheduler(cfg.get("step_scheduler", {}), dataloader=None, dp_size=1)
    print("stand-in AutoModel trained with", sorted(cfg.get("step_scheduler", {})), flush=True)


if __name__ == "__main__":
    main()
"""
FILES = {
    "nemo_automodel/__init__.py": "",
    "nemo_automodel/components/__init__.py": "",
    "nemo_automodel/components/training/__init__.py": "",
    "nemo_automodel/recipes/__init__.py": "",
    "nemo_automodel/recipes/llm/__init__.py": "",
    "nemo_automodel/recipes/llm/train_ft.py": RECIPE,
    "nemo_automodel/cli/__init__.py": "",
    "nemo_automodel/cli/app.py": CLI,
}


def standin(root: Path, extra: str = "") -> dict[str, str]:
    """Write the stand-in's package under ``root``; ``extra``: keyword parameters its
    StepScheduler takes besides AutoModel's (``", warmup_steps=0"``). Returns the files."""
    files = {
        **FILES,
        "nemo_automodel/components/training/step_scheduler.py": SCHEDULER.format(extra=extra),
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return files


def installed(site: Path, version: str, extra: str = "") -> Path:
    """A site directory holding the stand-in installed as ``nemo-automodel`` ``version``."""
    standin(site, extra)
    meta = site / f"nemo_automodel-{version}.dist-info"
    meta.mkdir(parents=True, exist_ok=True)
    (meta / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: nemo-automodel\nVersion: {version}\n", encoding="utf-8"
    )
    return site
