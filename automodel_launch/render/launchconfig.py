"""The job's whole config as one file (``launch.yaml``), so the job can be run again.

The job config (``job_config.yaml``) is what the ranks read, and leaves the launcher's
sections out; the recipe file itself may have changed since, and the profile and
``--set`` values that applied live nowhere as a file. ``launch.yaml`` holds both halves
as they were checked: the recipe's values as AutoModel read them, and the launcher's
sections after the profile and every override (a ``profile:`` key dropped: its values
are already in). ``rerun`` validates and renders it like any recipe.

The recipe half is the job config's own text, so a rerun's job config reads as the first
job's did; the launcher half is written from the data
(:mod:`automodel_launch.render.yaml11_text`: strings double-quoted, so this tool and
AutoModel read the same values). It holds no credential: an environment value names its
variable (``${HF_TOKEN}``) as the recipe wrote it, and a token shape is masked
(:func:`automodel_launch.written.job_file`, as the writer masks it).
"""

from __future__ import annotations

from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.layout import LAUNCH_CONFIG
from automodel_launch.loading import LoadedFile
from automodel_launch.render import yaml11_text
from automodel_launch.render.jobconfig import as_automodel_reads
from automodel_launch.written import job_file


def launch_config_text(job_config: str, loaded: LoadedFile, launcher_data: dict[str, Any]) -> str:
    """``job_config``: the job config's text; ``launcher_data``: the file's data as
    validated (each unquoted environment value kept as its text, ``3.10`` not ``3.1``).

    The job config's text (comments and spelling as the user wrote them), then the
    launcher's sections; when more keys cannot follow that text (a document marker, a
    directive, a flow mapping), the whole is written from the data instead."""
    sections = {
        key: {k: v for k, v in value.items() if k != "profile"}
        if isinstance(value, dict)
        else value
        for key, value in launcher_data.items()
        if key in LAUNCHER_SECTIONS
    }
    if not sections:
        return job_config
    tail = job_file(LAUNCH_CONFIG, yaml11_text.dump(sections))
    if _block_mapping(job_config):
        return (job_config if job_config.endswith("\n") else job_config + "\n") + tail
    whole = {k: v for k, v in as_automodel_reads(loaded).items() if k not in LAUNCHER_SECTIONS}
    return job_file(LAUNCH_CONFIG, yaml11_text.dump({**whole, **sections}))


def _block_mapping(text: str) -> bool:
    """Whether more top-level keys can be written after ``text`` and read as part of its
    mapping: one document, no directive or document marker, a block mapping (its first
    line that says something starts a key at column 0, not a flow ``{``)."""
    first = None
    for line in text.splitlines():
        if line.startswith(("%", "---", "...")):
            return False
        stripped = line.strip()
        if first is None and stripped and not stripped.startswith("#"):
            first = line
    return first is not None and not first[0].isspace() and not first.startswith(("{", "[", "-"))
