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
variable (``${HF_TOKEN}``) as the recipe wrote it, and a token shape is redacted.
"""

from __future__ import annotations

from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.loading import LoadedFile, load_text
from automodel_launch.render import yaml11_text
from automodel_launch.render.jobconfig import as_automodel_reads
from automodel_launch.secrets import redact_tokens


def launch_config_text(job_config: str, loaded: LoadedFile, launcher_data: dict[str, Any]) -> str:
    """``job_config``: the job config's text; ``launcher_data``: the file's data as
    validated (each unquoted environment value kept as its text, ``3.10`` not ``3.1``).

    The job config's text (comments and spelling as the user wrote them), then the
    launcher's sections; when that text does not read back as the two halves (a document
    end marker, a directive), the whole is written from the data instead."""
    sections = {
        key: {k: v for k, v in value.items() if k != "profile"}
        if isinstance(value, dict)
        else value
        for key, value in launcher_data.items()
        if key in LAUNCHER_SECTIONS
    }
    if not sections:
        return job_config
    tail = redact_tokens(yaml11_text.dump(sections))
    text = job_config if job_config.endswith("\n") or not job_config else job_config + "\n"
    joined = text + tail
    recipe = load_text(job_config, loaded.path).loaded
    again = load_text(joined, loaded.path).loaded
    if recipe is not None and again is not None and again.data == {**recipe.data, **sections}:
        return joined
    whole = {k: v for k, v in as_automodel_reads(loaded).items() if k not in LAUNCHER_SECTIONS}
    return redact_tokens(yaml11_text.dump({**whole, **sections}))
