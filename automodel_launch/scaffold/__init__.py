"""``init``: add a launcher section to an existing recipe, changing nothing else.

The section is written by ruamel.yaml's round-trip dumper (comments, quoting) and
spliced into the recipe's text: every line the user wrote stays byte for byte, the
section goes at the end (or where the replaced one stood, with ``--force``), and the
schema modeline goes on the first line when the file has none. A value YAML 1.1 would
read otherwise (``"04:00:00"``, ``"yes"``) is written quoted.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from automodel_launch.config.document import LAUNCHERS
from automodel_launch.errors import LaunchError
from automodel_launch.loading import LoadedFile
from automodel_launch.loading.yaml11 import resolve

STARTERS: dict[str, dict[str, Any]] = {
    "slurm": {"nodes": 1, "ntasks_per_node": 8, "time": "04:00:00"},
    "skypilot": {"cloud": "aws", "accelerators": "H100:8", "num_nodes": 1},
}
"""What a section starts with: every required field (skypilot's cloud) and the few
every job decides; a profile's values come on top."""
MODELINE_MARKERS = ("yaml-language-server: $schema=", "# $schema:")
NOTE_PREFIX = "# values of profile "


class InitError(LaunchError, ValueError):
    """The section cannot be added as asked (one is there already, without --force)."""


@dataclass(frozen=True)
class Added:
    text: str
    """The whole new file."""
    replaced: bool


def section_values(launcher: str, profile: dict[str, Any] | None) -> dict[str, Any]:
    return {**STARTERS[launcher], **(profile or {})}


def add_section(
    loaded: LoadedFile,
    section: str | None,
    values: dict[str, Any],
    *,
    modeline: str,
    force: bool = False,
    note: str | None = None,
) -> Added:
    """The recipe's text with ``section:`` set to ``values`` (None: no launcher section)."""
    present = [name for name in LAUNCHERS if name in loaded.data]
    if present and not force:
        raise InitError(f"{loaded.path} already has {present[0]}:; --force replaces it")
    if present and not loaded.sections:
        raise InitError(f"{loaded.path} is written in flow style ({{...}}); edit it by hand")
    lines = loaded.text.splitlines(keepends=True)
    eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"  # the file's own line ends
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += eol
    dumped = "" if section is None else dump_section(section, values, note)
    block = [line + eol for line in dumped.splitlines()]
    at = len(lines)
    for name in present:  # drop the old section; the new one takes its place
        start, end = loaded.sections[name]
        if start and lines[start - 1].startswith(NOTE_PREFIX):  # and the note init wrote
            start -= 1
        at = min(at, start)
        lines[start:end] = [""] * (end - start)
    lines[at:at] = block
    text = "".join(lines)
    if not any(marker in text.partition("\n")[0] for marker in MODELINE_MARKERS):
        text = modeline + eol + text
    return Added(text, bool(present))


def dump_section(launcher: str, values: dict[str, Any], note: str | None = None) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    yaml = YAML()  # round-trip: keeps the comment and the quoting chosen below
    yaml.indent(sequence=4, offset=2)  # mappings: 2, the default
    yaml.width = 4096
    root = CommentedMap({launcher: _quoted(values)})
    if note:
        root.yaml_set_start_comment(note)
    out = io.StringIO()
    yaml.dump(root, out)
    return out.getvalue()


def _quoted(value: Any) -> Any:
    """Text YAML 1.1 would read as something else is written double-quoted."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, dict):
        return CommentedMap({k: _quoted(v) for k, v in value.items()})
    if isinstance(value, list):
        return CommentedSeq([_quoted(v) for v in value])
    if isinstance(value, str) and (resolve(value) != value or ":" in value or not value):
        return DoubleQuotedScalarString(value)
    return value
