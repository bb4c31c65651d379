"""Reading recipe files: YAML with positions, YAML 1.1 comparison, env references.

The loaders load with their module (ruamel.yaml and the diagnostics), when first asked
for: a job command reads job-directory files through :mod:`automodel_launch.loading.files`
and never a recipe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automodel_launch.loading.yaml import (
        LoadedFile,
        LoadResult,
        load_buffer,
        load_bytes,
        load_file,
        load_text,
    )

__all__ = ["LoadResult", "LoadedFile", "load_buffer", "load_bytes", "load_file", "load_text"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from automodel_launch.loading import yaml

    return getattr(yaml, name)
