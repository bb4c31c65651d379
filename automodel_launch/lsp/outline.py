"""Where the cursor is in the mapping, read from indentation alone.

Hover and completion answer while the user types, when the document often does not
parse: the path of keys above a line is found by walking up to each less indented
key, as a reader of block YAML would. List items (``- key: value``) are seen through:
``slurm.extra_mounts[0].source`` is the path ``("slurm", "extra_mounts", "source")``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from automodel_launch.lsp.text import Lines

_ENTRY = re.compile(
    r"^(?P<indent>[ ]*)(?P<dash>(?:-[ ]+)*)(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?=\s|$)"
)


@dataclass(frozen=True)
class Entry:
    """A ``key:`` line: where its key starts and the column its children are below."""

    line: int
    column: int
    key: str


def entry(lines: Lines, line: int) -> Entry | None:
    match = _ENTRY.match(lines.line(line))
    if match is None:
        return None
    column = len(match.group("indent")) + len(match.group("dash"))
    return Entry(line, column, match.group("key"))


def indent_of(text: str) -> int:
    stripped = text.lstrip(" ")
    if stripped.startswith("-"):
        stripped = stripped[1:].lstrip(" ")
    return len(text) - len(stripped)


def parents(lines: Lines, line: int, column: int) -> tuple[str, ...]:
    """The keys of the mappings that hold a key starting at ``column`` on ``line``."""
    path: list[str] = []
    limit = column
    for index in range(line - 1, -1, -1):
        if limit == 0:
            break
        text = lines.line(index)
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        found = entry(lines, index)
        start = found.column if found else indent_of(text)
        if start < limit:
            if found is None:
                break  # a line that is not a key holds the cursor's block: give up
            if _opens_block(lines, found):
                path.append(found.key)
            limit = start
    return tuple(reversed(path))


def _opens_block(lines: Lines, found: Entry) -> bool:
    rest = lines.line(found.line)[found.column + len(found.key) :].split(":", 1)[-1]
    rest = re.sub(r"\s#.*$", "", rest).strip()
    return rest in ("", "|", ">") or rest.startswith(("&", "!"))


def siblings(lines: Lines, line: int, column: int) -> set[str]:
    """Keys already written beside a key at ``column`` (same block, same indentation)."""
    found: set[str] = set()
    for step in (-1, 1):
        index = line + step
        while 0 <= index < len(lines.lines):
            text = lines.line(index)
            if text.strip() and not text.lstrip().startswith("#"):
                here = entry(lines, index)
                start = here.column if here else indent_of(text)
                if start < column:
                    break
                if here is not None and here.column == column:
                    found.add(here.key)
            index += step
    return found
