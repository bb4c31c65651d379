"""The job config each rank reads: the recipe without the launcher's own sections.

Cut from the original text, so comments, formatting and every recipe value stay
exactly as the user wrote them (AutoModel reads YAML 1.1, which a re-dump could
change). When the cut is not faithful (a flow-style document, anchors shared with a
launcher section), the data is dumped instead, quoted for YAML 1.1.

A job config never holds a token: a key or value holding one is an error before
anything is rendered, and a comment holding one is redacted here (validation warns
about it as ``secret-in-comment``).
"""

from __future__ import annotations

import io
from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS, job_config
from automodel_launch.loading import LoadedFile, load_text
from automodel_launch.secrets import redact_tokens


def job_config_text(loaded: LoadedFile) -> str:
    expected = job_config(loaded.data)
    text = _cut(loaded)
    if text is not None:
        text = redact_tokens(text)
        reread = load_text(text, loaded.path).loaded
        if reread is not None and reread.data == expected:
            return text
    return redact_tokens(dump_yaml11(expected))


def _cut(loaded: LoadedFile) -> str | None:
    if not loaded.sections:
        return None
    lines = loaded.text.splitlines(keepends=True)
    drop: set[int] = set()
    for name in LAUNCHER_SECTIONS & loaded.sections.keys():
        start, end = loaded.sections[name]
        drop.update(range(start, end))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def dump_yaml11(data: dict[str, Any]) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 1)
    yaml.default_flow_style = False
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
