"""Function bodies left out before parsing: most of a package's text, and none of its signatures.

Parsing AutoModel's 800 files whole costs seconds (most of it inside function bodies);
what a recipe can name is in the module and class statements and in each ``def``'s
header. :func:`elide` replaces each function body by ``...`` unless the function's text
holds something the extractor reads inside bodies (``keep``: the calls and names
:mod:`~automodel_launch.automodel.extract.builds` and
:mod:`~automodel_launch.automodel.extract.facts` look for: ``marks``), in which case the
whole function is kept, nested functions included.

The body is found by indentation, as Python finds it: the lines after the header up to the
first one (not blank, not a comment) indented no deeper than the ``def``. A body that is
not plainly closed there (an odd number of triple quotes, unbalanced brackets: a string
or a bracket spanning a shallower line) is kept as written. What cannot be told for sure
only keeps more text; a result that does not parse is parsed whole instead
(:func:`automodel_launch.automodel.extract.index.parse`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from functools import cache

_DEF = re.compile(r"def[ \t]")
"""A ``def`` keyword (a literal first: the search skips from one to the next); its line is
then checked to start with it (:func:`_def_indent`)."""
_COMMENT = re.compile(r"#[^\"'\n]*$")
_HEADER_LINES = 100
"""A header longer than this is not looked for (it is kept)."""
_HEADER_TOKEN = re.compile(
    r'''(?P<string>[rRbBuUfF]{0,2}(?:"""(?:[^"\\]|\\.|"(?!""))*"""'''
    r"""|'''(?:[^'\\]|\\.|'(?!''))*'''"""
    r"""|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))"""
    r"|(?P<comment>#[^\n]*)|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<mark>[,:=])"
    r"|(?P<other>[^\s\"'#()\[\]{},:=]+)|(?P<space>\s+)",
    re.DOTALL,
)
"""The pieces of a ``def`` header: whole strings, comments, brackets, the marks that end a
parameter's name (``,`` ``:`` ``=``), and the rest."""
_NAME_PART = re.compile(r"def[ \t]+\w+[ \t]*\(")
_PARAMETER = re.compile(r"\*{0,2}\w+|\*|/")


@cache
def _dedent_at(indent: int) -> re.Pattern[str]:
    """The newline before a line holding code (not blank, not a comment) indented at most
    ``indent`` spaces (a literal first: the search skips from newline to newline)."""
    return re.compile(rf"\n(?= {{0,{indent}}}[^ \t\r\n#])")


def _header_end(text: str, at: int) -> int:
    """Where the line ending the ``def`` header that starts before ``at`` ends (after its
    newline); -1 when the header is not plainly found or the body sits on its line."""
    depth = 0
    for _ in range(_HEADER_LINES):
        newline = text.find("\n", at)
        end = len(text) if newline < 0 else newline + 1
        line = text[at:end]
        depth += line.count("(") + line.count("[") + line.count("{")
        depth -= line.count(")") + line.count("]") + line.count("}")
        code = _COMMENT.sub("", line.rstrip("\r\n")).rstrip()
        if depth <= 0 and not code.endswith("\\"):
            return end if code.endswith(":") and newline >= 0 else -1
        if newline < 0:
            return -1
        at = end
    return -1


def _closed(body: str) -> bool:
    return (
        body.count('"""') % 2 == 0
        and body.count("'''") % 2 == 0
        and body.count("(") == body.count(")")
        and body.count("[") == body.count("]")
        and body.count("{") == body.count("}")
    )


def _def_indent(text: str, at: int) -> int:
    """The indentation (in spaces) of the line whose ``def`` starts at ``at``; -1 when the
    line holds anything else before it but ``async``, or is indented with tabs."""
    start = text.rfind("\n", 0, at) + 1
    before = text[start:at]
    if before.startswith(" " * len(before)):
        return len(before)
    head, word, tail = before.rpartition("async")
    if word and head.startswith(" " * len(head)) and tail.strip(" \t") == "" and tail:
        return len(head)
    return -1


def _first_indent(text: str, at: int, end: int) -> int:
    """The indentation of the first line of code in ``text[at:end]``; -1 when it holds a
    tab (how deep that is is Python's to say)."""
    while at < end:
        newline = text.find("\n", at, end)
        stop = end if newline < 0 else newline
        line = text[at:stop]
        code = line.lstrip(" \t")
        if code.strip() and not code.startswith("#"):
            indent = line[: len(line) - len(code)]
            return -1 if "\t" in indent else len(indent)
        at = stop + 1
    return -1


def bare_header(header: str) -> str:
    """``def name(a, b=..., *c, **d):`` of a header, its annotations and default values
    left out (whether a parameter has a default is what the extractor reads; the nodes of
    the annotations are a third of a package's tree). The header as written when it has
    neither, or holds what a plain reading could misplace (a ``lambda``, a string or
    bracket it cannot follow, what is not Python)."""
    named = _NAME_PART.match(header)
    if named is None or "lambda" in header:
        return header
    if header.count(":") == 1 and "=" not in header:
        return header  # nothing to leave out but a return annotation
    params: list[str] = []
    name = ""
    part = ","  # what began the part read: "," a name, ":" an annotation, "=" a default
    depth = 1
    at = named.end()
    for token in _HEADER_TOKEN.finditer(header, at):
        if token.start() != at:
            return header  # a character no piece begins with (an unclosed string)
        at = token.end()
        kind = token.lastgroup
        text = token.group()
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and kind == "mark":
            if text == ",":
                if not _PARAMETER.fullmatch(name := name.strip()):
                    return header  # a mark with no parameter before it, or not one name
                params.append(name + ("=..." if part == "=" else ""))
                name, part = "", ","
            elif text == ":" and part != ",":
                return header  # a second ':' in one parameter (no lambda): not Python
            elif part == "," or (text == "=" and part == ":"):
                part = text
            continue
        if part == ",":
            if kind == "string":
                return header
            if kind != "comment":
                name += text
    else:
        return header  # the parameters never close
    if name.strip():
        if not _PARAMETER.fullmatch(name := name.strip()):
            return header
        params.append(name + ("=..." if part == "=" else ""))
    elif part != ",":
        return header
    return f"{named.group()[:-1].rstrip()}({', '.join(params)}):\n"


def elide(text: str, marks: Sequence[int]) -> str:
    """``text`` with the bodies of the functions holding none of ``marks`` (sorted offsets
    of what the extractor reads) replaced by ``...``; a kept function keeps its nested
    ones."""
    out: list[str] = []
    emitted = 0
    skip_to = 0
    for found in _DEF.finditer(text):
        start = found.start()
        if start < skip_to:
            continue  # inside a body already kept or left out
        indent = _def_indent(text, start)
        if indent < 0:
            continue
        header_end = _header_end(text, found.end())
        if header_end < 0:
            continue
        dedent = _dedent_at(indent).search(text, header_end - 1)
        body_end = dedent.end() if dedent is not None else len(text)
        skip_to = body_end
        body = text[header_end:body_end]
        mark = bisect_left(marks, start)
        if mark < len(marks) and marks[mark] < body_end:
            continue
        indent = _first_indent(text, header_end, body_end)
        if indent < 0 or not _closed(body):
            continue
        out.append(text[emitted:start])
        out.append(bare_header(text[start:header_end]))
        out.append(" " * indent + "...\n")
        emitted = body_end
    out.append(text[emitted:])
    return "".join(out)
