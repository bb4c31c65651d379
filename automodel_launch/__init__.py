"""automodel-launch: validate, render and submit NeMo AutoModel launcher configs."""

from __future__ import annotations

__version__ = "0.1.0"
