"""Which documents the server checks: AutoModel recipes, and no other YAML.

A YAML document (language ``yaml``, or a ``.yaml``/``.yml`` name) is a recipe when

- a line at the top level starts one of the sections only recipes have: ``recipe:``,
  ``slurm:``, ``skypilot:``, ``step_scheduler:``, ``fault_tolerance:`` or the launchers
  automodel-launch names but does not run (``k8s:``, ``nemo_run:``); or
- any line is a ``_target_:`` key (how AutoModel recipes name their classes); or
- a leading comment binds it to this tool's schema (a modeline naming
  ``automodel-launch``).

Every real config of the corpus that ``validate`` has something to say about matches;
CI workflows, compose files and Kubernetes manifests have none of these keys. The test
is on the text, so a half-typed recipe that no longer parses is still a recipe.
"""

from __future__ import annotations

import re

from automodel_launch.launcher_names import SECTIONS

_SECTIONS = ("recipe", *SECTIONS, "step_scheduler", "fault_tolerance")
_MARKER = re.compile(
    r"^(?:(?:" + "|".join(_SECTIONS) + r")[ \t]*:(?:[ \t]|$)|[ \t]*(?:-[ \t]+)?_target_[ \t]*:)",
    re.MULTILINE,
)
_MODELINE = re.compile(r"^#.*\bautomodel-launch\b", re.MULTILINE)
SUFFIXES = (".yaml", ".yml")


def is_yaml(uri: str, language_id: str | None) -> bool:
    if language_id:
        return language_id.lower() == "yaml"
    return uri.lower().split("?", 1)[0].endswith(SUFFIXES)


def is_recipe(text: str) -> bool:
    """The text holds a recipe marker (see the module docstring)."""
    return _MARKER.search(text) is not None or _leading_modeline(text)


def _leading_modeline(text: str) -> bool:
    head = []
    for line in text[:4096].splitlines()[:20]:
        if line.strip() and not line.lstrip().startswith("#"):
            break
        head.append(line.strip())
    return _MODELINE.search("\n".join(head)) is not None
