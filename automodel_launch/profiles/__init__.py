"""Site and user profiles, ``--set`` overrides, and where each merged value came from.

Validation asks :func:`automodel_launch.validation.layers_in_play` first, which imports
nothing: this room is imported only when a profile or an override is in play.
"""

from __future__ import annotations

from automodel_launch.launcher_names import WITH_SECTION
from automodel_launch.settings import PROFILE_VARIABLE, SITE_PROFILES_VARIABLE

SITE_VARIABLE = SITE_PROFILES_VARIABLE
LAUNCHERS = WITH_SECTION
"""The launcher sections a profile may hold."""

__all__ = ["LAUNCHERS", "PROFILE_VARIABLE", "SITE_VARIABLE"]
