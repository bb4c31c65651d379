"""Recipe overrides written into the recipe's own text, so the job config keeps its comments.

The job config is cut from the recipe's text (see
:mod:`automodel_launch.render.jobconfig`); with ``--set optimizer.lr=2e-5`` that text
no longer says what the job runs, and the job config would be dumped from the data,
comments lost. A ``--set`` that replaces one single-line value is written over that
value instead, spelled so YAML 1.1 (AutoModel's loader) reads it as meant: every line
keeps its number and every comment stays. Anything else (a new key, a mapping) leaves
the text alone, and the job config is dumped as before.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from ruamel.yaml.nodes import ScalarNode

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.loading import LoadedFile, load_text
from automodel_launch.loading.positions import Positions, find
from automodel_launch.loading.yaml11 import resolve
from automodel_launch.profiles.overrides import Override


def spliced(loaded: LoadedFile, overrides: Sequence[Override]) -> str | None:
    """The text with each recipe override written in place; None when one cannot be."""
    values = loaded.values
    if not isinstance(values, Positions) or values.root is None:
        return None
    last = {o.loc: o for o in overrides if o.loc[0] not in LAUNCHER_SECTIONS}
    edits: list[tuple[int, int, int, str]] = []
    for override in last.values():
        found = find(values.root, override.loc)
        node = found[1] if found is not None else None
        if not isinstance(node, ScalarNode) or node.start_mark.line != node.end_mark.line:
            return None
        text = scalar_text(override.value)
        if text is None:
            return None
        edits.append((node.start_mark.line, node.start_mark.column, node.end_mark.column, text))
    if not edits:
        return None
    lines = loaded.text.splitlines(keepends=True)
    for line, start, end, text in sorted(edits, reverse=True):  # right to left on a line
        lines[line] = lines[line][:start] + text + lines[line][end:]
    return "".join(lines)


def scalar_text(value: Any) -> str | None:
    """``value`` as one scalar YAML 1.1 (AutoModel) and 1.2 (this tool) both read as
    ``value`` (``1.0e-05``, ``'yes'``, ``"0o7"``), or None."""
    if isinstance(value, (dict, list)):
        return None
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 1)
    yaml.width = 1 << 20
    yaml.default_flow_style = False
    out = io.StringIO()
    yaml.dump({"v": value}, out)
    body = out.getvalue().split("\n---\n", 1)[-1]
    candidates = [body.removeprefix("v: ").removesuffix("\n")]
    if isinstance(value, str) and value.isprintable():
        # double-quoted: text to both; a character past U+FFFF as itself (YAML refuses
        # JSON's surrogate pairs)
        candidates.append(json.dumps(value, ensure_ascii=False))
    return next((text for text in candidates if _reads_as(text, value)), None)


def _reads_as(text: str, value: Any) -> bool:
    if len(f"{text}.".splitlines()) != 1:  # any line break Python or YAML 1.1 sees
        return False
    loaded = load_text(f"v: {text}").loaded
    if loaded is None or set(loaded.data) != {"v"}:
        return False
    read = loaded.data["v"]
    plain = loaded.plain.get(("v",))
    if plain is not None and type(resolve(plain)) is not type(value):
        return False  # YAML 1.1 would read the unquoted text as another kind
    return bool(read == value or (read != read and value != value)) and type(read) is type(value)
