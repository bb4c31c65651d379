"""Bound the nesting of a YAML text before the C composer sees it.

libyaml's composer (``ruamel.yaml.clib``) recurses once per nesting level on the C
stack: some tens of thousands of ``[`` crash the process with a segmentation fault,
which no ``except`` can catch and which would take a whole directory run down.

Each nesting level needs an opener in the text: a flow ``[`` or ``{``, a block ``-`` or
``?`` indicator followed by whitespace, or a deeper indentation for a block mapping.
Their count is an upper bound of the depth, taken with a few C-speed ``str.count``
calls; real recipes stay far below :data:`MAX_DEPTH` and cost nothing more. Only a
text past that bound is parsed for real, with libyaml's event parser (a state
machine, no recursion), counting collection starts and stopping at the first one
past the limit.
"""

from __future__ import annotations

from ruamel.yaml.cyaml import CSafeLoader
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

from automodel_launch.loading.nodes import MAX_DEPTH

_OPENERS = ("[", "{", "- ", "-\n", "-\t", "-\r", "? ", "?\n", "?\t", "?\r")


def _within(text: str, limit: int) -> bool:
    """True when ``text`` surely nests at most ``limit`` levels; cheap, not exact."""
    bound = 1
    for opener in _OPENERS:
        bound += text.count(opener)
        if bound >= limit:
            return False
    # a block mapping nests one level deeper only on a line indented further
    indent = " " * (limit - bound)
    return not text.startswith(indent) and "\n" + indent not in text


def too_deep(text: str, limit: int = MAX_DEPTH) -> tuple[int, int] | None:
    """The 1-based (line, column) where nesting first passes ``limit``, or None.

    A syntax error found on the way is left to the composer, which reports it
    with its usual message: the text before it nests less than ``limit``.
    """
    if _within(text, limit):
        return None
    parser = CSafeLoader(text)
    depth = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > limit:
                    mark = event.start_mark
                    return (mark.line + 1, mark.column + 1)
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        return None
    finally:
        parser.dispose()
    return None
