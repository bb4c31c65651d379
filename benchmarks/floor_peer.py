"""The floor for one config: what any pydantic validator of a YAML file pays at least.

Imports pydantic, loads the file with libyaml (ruamel.yaml's C loader), validates one
small model, exits. ``bench_validate.py`` times ``automodel-launch validate`` on one
config against this process: everything we do beyond it (the other models, positions,
rules, the report) must stay within the benchmark's ratio of it.
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel, ConfigDict
from ruamel.yaml import YAML


class Launcher(BaseModel):
    """A launcher section with a few typed fields; the rest passes."""

    model_config = ConfigDict(extra="allow")

    cloud: str | None = None
    accelerators: str | None = None
    num_nodes: int = 1
    use_spot: bool = False


def main(path: str) -> int:
    with open(path, encoding="utf-8") as stream:
        data: Any = YAML(typ="safe", pure=False).load(stream)
    section = data.get("skypilot") or data.get("slurm") or {} if isinstance(data, dict) else {}
    Launcher.model_validate(section)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
