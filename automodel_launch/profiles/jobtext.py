"""Recipe overrides written into the recipe's own text, so the job config keeps its comments.

The job config is cut from the recipe's text (see
:mod:`automodel_launch.render.jobconfig`); with ``--set optimizer.lr=2e-5`` that text
no longer says what the job runs, and the job config would be dumped from the data,
comments lost. A ``--set`` that replaces one single-line value is written over that
value instead, spelled so YAML 1.1 (AutoModel's loader) reads it as meant: every line
keeps its number and every comment stays. A single-line value of a section the recipe
does not have (a sweep point's ``checkpoint.checkpoint_dir``) is added as that section at
the end, after every line of the file. Anything else (a new key in a section, a mapping)
leaves the text alone, and the job config is dumped as before.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.loading import LoadedFile, load_text
from automodel_launch.loading.positions import Positions, child, find
from automodel_launch.loading.yaml11 import resolve
from automodel_launch.profiles.overrides import Override


def spliced(loaded: LoadedFile, overrides: Sequence[Override]) -> str | None:
    """The text with each recipe override written in place; None when one cannot be."""
    values = loaded.values
    if not isinstance(values, Positions) or values.root is None:
        return None
    last = {o.loc: o for o in overrides if o.loc[0] not in LAUNCHER_SECTIONS}
    edits: list[tuple[int, int, int, str]] = []
    added: dict[str, Any] = {}
    for override in last.values():
        found = find(values.root, override.loc)
        node = found[1] if found is not None else None
        text = scalar_text(override.value)
        if text is None:
            return None
        if node is None and _new_section(values.root, override.loc):
            if not _put(added, [str(part) for part in override.loc], text):
                return None
            continue
        if not isinstance(node, ScalarNode) or node.start_mark.line != node.end_mark.line:
            return None
        edits.append((node.start_mark.line, node.start_mark.column, node.end_mark.column, text))
    if not edits and not added:
        return None
    lines = loaded.text.splitlines(keepends=True)
    for line, start, end, text in sorted(edits, reverse=True):  # right to left on a line
        lines[line] = lines[line][:start] + text + lines[line][end:]
    if added:
        section = _section_lines(added, "")
        if None in section:
            return None
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines += [text for text in section if text is not None]
    return "".join(lines)


def _new_section(root: Node, loc: Sequence[str | int]) -> bool:
    """A loc under a top-level key a block-style file does not have: its lines can go at
    the end, where no line of the file moves."""
    return (
        isinstance(root, MappingNode)
        and not root.flow_style
        and all(isinstance(part, str) for part in loc)
        and child(root, loc[0]) is None
    )


def _put(tree: dict[str, Any], keys: list[str], text: str) -> bool:
    """``text`` at ``keys`` in ``tree``; False where another value holds the place."""
    for key in keys[:-1]:
        tree = tree.setdefault(key, {})
        if not isinstance(tree, dict):
            return False
    if keys[-1] in tree:
        return False
    tree[keys[-1]] = text
    return True


def _section_lines(tree: dict[str, Any], indent: str) -> list[str | None]:
    """The lines of a block mapping (None for a key no single line can hold)."""
    lines: list[str | None] = []
    for key, value in tree.items():
        name = scalar_text(key)
        if name is None:
            return [None]
        if isinstance(value, dict):
            lines += [f"{indent}{name}:\n", *_section_lines(value, indent + "  ")]
        else:
            lines.append(f"{indent}{name}: {value}\n")
    return lines


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
