"""The AutoModel releases files were checked against, as every reporter words them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from automodel_launch.results import FileReport


def checked_against(reports: Sequence[FileReport], version: str | None) -> list[str]:
    """The AutoModel releases the files were checked against, in release order (``main``,
    the branch ahead of every release, last)."""
    found = {r.automodel_version for r in reports if r.automodel_version is not None}
    if not found and version is not None:
        found = {version}
    return sorted(found, key=_release_order)


def _release_order(version: str) -> tuple[bool, list[int]]:
    """``0.10.0`` after ``0.9.0``, ``main`` last (reporters read results, not the tables)."""
    parts = (p[: len(p) - len(p.lstrip("0123456789"))] for p in version.split("."))
    return version == "main", [int(p) if p else 0 for p in parts]


def described(reports: Sequence[FileReport], version: str | None) -> list[str]:
    """:func:`checked_against`, each with how it was found where the summary says it
    (``0.5.0 (installed here)``, ``main (repo_root at 3f2a9c1, dirty)``)."""
    pairs = {(r.automodel_version, r.automodel_why) for r in reports if r.automodel_version}
    if not pairs:
        return checked_against(reports, version)
    ordered = sorted(pairs, key=lambda pair: (_release_order(pair[0]), pair[1] or ""))
    return [f"{v} ({why})" if why else v for v, why in ordered]
