"""automodel-launch: validate, render and submit NeMo AutoModel launcher configs.

The Python API (:mod:`automodel_launch.api`) is exported here too, loaded when first
asked for, so ``import automodel_launch`` stays cheap::

    from automodel_launch import submit, status

``plan``, ``jobs``, ``render`` and ``settings`` are names of this package's own modules:
take those from :mod:`automodel_launch.api`.
"""

from __future__ import annotations

from typing import Any

from automodel_launch.version import __version__

API = ("validate", "submit", "status", "cancel", "find", "job", "job_list", "diff", "rerun")
"""What ``from automodel_launch import ...`` takes from the API."""
__all__ = ["__version__", *API]


def __getattr__(name: str) -> Any:
    if name in API:
        from automodel_launch import api

        return getattr(api, name)
    raise AttributeError(f"module 'automodel_launch' has no attribute {name!r}")
