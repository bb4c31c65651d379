"""The version of automodel-launch (the package root and the build read it here)."""

from __future__ import annotations

__version__ = "0.1.0"
