"""The job config each rank reads: the recipe without the launcher's own sections.

AutoModel reads it with PyYAML (YAML 1.1), and must read exactly what it would read
from the original file. Two ways get there:

- cut: the launcher sections' lines are left out of the original text, so comments,
  formatting and every recipe value stay as the user wrote them, and PyYAML reads
  the rest as it would have. Used whenever the cut reads back as the recipe.
- re-dump: when the cut is not faithful (a flow-style document, an anchor in a
  launcher section used by a recipe section), the data is written out again, as
  AutoModel reads the original: each unquoted scalar takes its YAML 1.1 value
  (``yes`` is true, ``1:00:00`` is 3600, ``010`` is 8, ``2024-01-05`` a date), in
  text PyYAML reads back to exactly those values (:mod:`~automodel_launch.render.yaml11_text`).

A job config never holds a token: a key or value holding one is an error before
anything is rendered, and a comment holding one is masked here, as the job directory's
writer masks the file (:func:`automodel_launch.written.job_file`), before the cut is
checked to read back as the recipe (validation warns about it as ``secret-in-comment``).
"""

from __future__ import annotations

from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS, job_config
from automodel_launch.layout import JOB_CONFIG
from automodel_launch.loading import LoadedFile, load_text
from automodel_launch.loading.yaml11 import resolve_document_scalar
from automodel_launch.render import yaml11_text
from automodel_launch.written import job_file


def job_config_text(loaded: LoadedFile) -> str:
    expected = job_config(loaded.data)
    text = _cut(loaded)
    if text is not None:
        text = job_file(JOB_CONFIG, text)
        reread = load_text(text, loaded.path).loaded
        if reread is not None and reread.data == expected and _same_text(reread, loaded):
            return text
    return job_file(JOB_CONFIG, yaml11_text.dump(job_config(as_automodel_reads(loaded))))


def _kept(loaded: LoadedFile) -> dict[Any, str]:
    """The unquoted scalars of the recipe sections: the cut must keep each as written,
    so that YAML 1.1 reads them as it reads the original."""
    return {
        loc: text for loc, text in _from_the_file(loaded).items() if loc[0] not in LAUNCHER_SECTIONS
    }


def _from_the_file(loaded: LoadedFile) -> dict[Any, str]:
    """The unquoted scalars the recipe file itself holds. A merged file (profiles, ``--set``)
    knows each value's layer: a profile's or an override's value is meant as this tool
    reads it, and is written so (see :mod:`automodel_launch.profiles.jobtext`)."""
    provenance = getattr(loaded, "provenance", None)
    owner = getattr(provenance, "owner", None)
    if not isinstance(owner, dict):
        return loaded.plain
    return {
        loc: text
        for loc, text in loaded.plain.items()
        if getattr(owner.get(loc), "kind", "recipe") == "recipe"
    }


def _same_text(reread: LoadedFile, loaded: LoadedFile) -> bool:
    kept = _kept(loaded)
    return all(reread.plain.get(loc) == text for loc, text in kept.items())


def _cut(loaded: LoadedFile) -> str | None:
    if not loaded.sections:
        return None
    lines = loaded.text.splitlines(keepends=True)
    drop: set[int] = set()
    for name in LAUNCHER_SECTIONS & loaded.sections.keys():
        start, end = loaded.sections[name]
        drop.update(range(start, end))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def as_automodel_reads(loaded: LoadedFile) -> dict[str, Any]:
    """The file's data with every unquoted scalar read as YAML 1.1 (PyYAML) reads it (a
    section the file wrote empty that ``--set`` filled is a mapping now: kept)."""
    data: dict[str, Any] = _copy(loaded.data)
    for loc, text in _from_the_file(loaded).items():
        parent: Any = data
        for part in loc[:-1]:
            parent = parent[part]
        if not isinstance(parent[loc[-1]], (dict, list)):
            parent[loc[-1]] = resolve_document_scalar(text)
    return data


def _copy(value: Any) -> Any:
    """Containers copied one by one: an alias shares one object, which is read once per use."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value
