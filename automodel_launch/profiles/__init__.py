"""Site and user profiles, ``--set`` overrides, and where each merged value came from.

Imports nothing on its own: :func:`in_play` is asked on every validate, which must stay
fast; the merge itself (:mod:`automodel_launch.profiles.merge`) is imported only when a
profile or an override is in play.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automodel_launch.profiles.overrides import Layers

PROFILE_VARIABLE = "AUTOMODEL_LAUNCH_PROFILE"
SITE_VARIABLE = "AUTOMODEL_LAUNCH_SITE_PROFILES"
LAUNCHERS = ("slurm", "skypilot")


def in_play(data: Mapping[str, Any], layers: Layers | None) -> bool:
    """Whether a profile or an override changes this recipe (cheap: no import)."""
    if layers is not None and (layers.profile or layers.overrides):
        return True
    if os.environ.get(PROFILE_VARIABLE):
        return True
    return any(isinstance(data.get(n), dict) and "profile" in data[n] for n in LAUNCHERS)
