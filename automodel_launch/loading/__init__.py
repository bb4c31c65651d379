"""Reading recipe files: YAML with positions, YAML 1.1 comparison, env references."""

from __future__ import annotations

from automodel_launch.loading.yaml import (
    LoadedFile,
    LoadResult,
    load_buffer,
    load_bytes,
    load_file,
    load_text,
)

__all__ = ["LoadResult", "LoadedFile", "load_buffer", "load_bytes", "load_file", "load_text"]
