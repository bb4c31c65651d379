"""The JSON Schema (draft 2020-12) that editors and other tools read, generated from the models.

pydantic writes the schema; this module only adds what editors show
(``markdownDescription`` next to each description) and the document header.
The committed copy lives at ``schemas/automodel-launch.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any

from automodel_launch.config.document import LaunchDocument

SCHEMA_ID = (
    "https://github.com/automodel-launch/automodel-launch/schemas/automodel-launch.schema.json"
)
DESCRIPTION = (
    "A NeMo AutoModel recipe. Recipe sections (model, dataset, ...) are open; the launcher "
    "sections slurm: and skypilot: are checked field by field, and at most one may be present."
)


def build_schema() -> dict[str, Any]:
    body = LaunchDocument.model_json_schema()
    header = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "NeMo AutoModel recipe (automodel-launch)",
        "description": DESCRIPTION,
    }
    body.pop("title", None)
    body.pop("description", None)
    schema = header | body
    _add_markdown(schema)
    return schema


def _add_markdown(node: Any) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("description"), str) and "markdownDescription" not in node:
            node["markdownDescription"] = node["description"]
        for value in node.values():
            _add_markdown(value)
    elif isinstance(node, list):
        for item in node:
            _add_markdown(item)


def schema_text() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"
