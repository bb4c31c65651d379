"""What AutoModel checks as it starts, read from its sources."""

from __future__ import annotations

from automodel_launch.automodel.extract.signatures import Index


def startup_facts(index: Index, callables: dict[str, str]) -> dict[str, object]:
    return {}
