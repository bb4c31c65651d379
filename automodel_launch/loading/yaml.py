"""Load a recipe YAML into plain Python data plus the position of every key and value.

Parsing uses ruamel.yaml's C composer (``ruamel.yaml.clib``): nodes carry line and
column marks, so positions cost nothing extra and the slow round-trip loader is not
needed. Values are built from the composed nodes with YAML 1.2 rules (what this
tool, yaml-language-server and SkyPilot read); :mod:`automodel_launch.loading.yaml11`
compares them with what AutoModel's YAML 1.1 loader would read.

Bad input of any kind becomes a diagnostic, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ruamel.yaml.cyaml import CSafeLoader
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from automodel_launch.diagnostics import CODES, Collector, Diagnostic, Loc
from automodel_launch.loading import pyyaml
from automodel_launch.loading.depth import too_deep
from automodel_launch.loading.files import NotRegular, TooLarge, read_regular
from automodel_launch.loading.nodes import (
    MAX_DEPTH,
    MAX_EXPANDED_NODES,
    Builder,
    TooDeep,
    expansion_is_bounded,
    section_lines,
)
from automodel_launch.loading.positions import Positions, tag
from automodel_launch.loading.tags import YAML_TAG, Resolved

_TOO_DEEP = (
    f"the YAML nests more than {MAX_DEPTH} levels deep",
    "a recipe nests a few levels; check the file's structure",
)
MAX_BYTES = 5 * 1024 * 1024
"""The largest real recipe in the corpus is about 10 KB; 5 MB is far past any config."""


@dataclass
class LoadedFile:
    """A loaded recipe: its data and where each loc sits in the file."""

    path: str
    data: dict[str, Any]
    keys: Mapping[Loc, tuple[int, int]] = field(default_factory=dict)
    values: Mapping[Loc, tuple[int, int]] = field(default_factory=dict)
    """Where each loc's key and value sit, looked up when asked (see positions.py)."""
    plain: dict[Loc, str] = field(default_factory=dict)
    """The source text of each unquoted scalar without a tag, for the YAML 1.1 comparison."""
    tags: dict[Loc, str] = field(default_factory=dict)
    """Tags other than the core ones (``!custom``, ``!!timestamp``), as written."""
    text: str = ""
    sections: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Top-level key -> (first line, end line), 0-based, end exclusive: where it sits in text."""

    def collector(self) -> Collector:
        return Collector(keys=self.keys, values=self.values)


@dataclass
class LoadResult:
    loaded: LoadedFile | None
    diagnostics: list[Diagnostic]


def load_file(path: str | Path) -> LoadResult:
    """Read and load one regular file; every failure is a diagnostic at the file's start."""
    name = str(path)
    sink = Collector()
    try:
        raw = read_regular(path, MAX_BYTES)
    except FileNotFoundError:
        sink.add("file-not-found", (), f"no such file: {name}", "check the path")
        return LoadResult(None, sink.items)
    except TooLarge as exc:
        return _too_large(exc.size)
    except NotRegular as exc:
        sink.add(
            "file-unreadable",
            (),
            f"cannot read {name}: it is {exc.kind}, not a regular file",
            "name a recipe file",
        )
        return LoadResult(None, sink.items)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc.__class__.__name__
        sink.add("file-unreadable", (), f"cannot read {name}: {reason}", None)
        return LoadResult(None, sink.items)
    return load_bytes(raw, name)


def _too_large(size: int) -> LoadResult:
    sink = Collector()
    sink.add(
        "file-too-large",
        (),
        f"{size / 1e6:.1f} MB is far larger than any recipe (limit {MAX_BYTES // 10**6} MB)",
        "check that this is the config you meant",
    )
    return LoadResult(None, sink.items)


def load_buffer(text: str, name: str = "<string>") -> LoadResult:
    """An editor's buffer, checked as :func:`load_file` checks the same text saved.

    The size limit, NUL bytes and text that is not UTF-8 (lone surrogates) give the
    diagnostics the file would give.
    """
    if len(text) > MAX_BYTES:  # at least one byte a character: too large before encoding
        return _too_large(len(text.encode("utf-8", "surrogatepass")))
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) > MAX_BYTES:
        return _too_large(len(raw))
    return load_bytes(raw, name)


def load_bytes(raw: bytes, name: str = "<string>") -> LoadResult:
    """A file's bytes, read already (``name``: its path, for messages), checked as
    :func:`load_file` checks the file."""
    if len(raw) > MAX_BYTES:
        return _too_large(len(raw))
    sink = Collector()
    if b"\x00" in raw:
        sink.add("not-text", (), "the file contains NUL bytes: it is binary, not YAML")
        return LoadResult(None, sink.items)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        sink.add("not-text", (), f"the file is not UTF-8 (byte {exc.start}): it is not YAML text")
        return LoadResult(None, sink.items)
    return load_text(text, name)


def load_text(text: str, name: str = "<string>") -> LoadResult:
    sink = Collector()
    deep = too_deep(text)
    if deep is not None:
        sink.items.append(_diagnostic_at("too-deep", *deep, *_TOO_DEEP))
        return LoadResult(None, sink.items)
    documents = _compose(text, sink)
    if documents is None:
        return LoadResult(None, sink.items)
    if not documents:
        sink.add("empty-file", (), "the file holds no YAML document", "a recipe is a mapping")
        return LoadResult(None, sink.items)
    if len(documents) > 1:
        mark = documents[1].start_mark
        sink.items.append(
            _diagnostic_at(
                "multiple-documents",
                mark.line + 1,
                mark.column + 1,
                f"the file holds {len(documents)} YAML documents; a recipe is one",
                "remove the '---' separators and keep a single document",
            )
        )
        return LoadResult(None, sink.items)
    root = documents[0]
    if isinstance(root, ScalarNode) and tag(root).endswith(":null") and not root.value:
        sink.add("empty-file", (), "the file holds no YAML document", "a recipe is a mapping")
        return LoadResult(None, sink.items)
    if not isinstance(root, MappingNode):
        kind = "a list" if isinstance(root, SequenceNode) else "a single value"
        sink.add(
            "root-not-mapping",
            (),
            f"the top level is {kind}, not a mapping of sections",
            "a recipe starts with keys such as 'model:' or 'slurm:'",
        )
        return LoadResult(None, sink.items)
    # an alias needs an anchor (the composer refuses an unknown one): no '&', no alias
    if "&" in text and "*" in text and not expansion_is_bounded(root):
        sink.add(
            "alias-bomb",
            (),
            "anchors and aliases expand past "
            f"{MAX_EXPANDED_NODES:,} nodes (or refer to themselves)",
            "write the values out instead of nesting aliases",
        )
        return LoadResult(None, sink.items)
    if "\t" in text:
        sink.items.extend(pyyaml.tab_diagnostics(root, text))
    builder = Builder(sink)
    try:
        data = builder.build(root, ())
    except TooDeep:
        sink.add("too-deep", (), *_TOO_DEEP)
        return LoadResult(None, sink.items)
    loaded = LoadedFile(
        path=name,
        data=data if isinstance(data, dict) else {},
        keys=Positions(root, at_key=True),
        values=Positions(root),
        plain=builder.plain,
        tags=builder.tags,
        text=text,
        sections=section_lines(root),
    )
    return LoadResult(loaded, sink.items)


def _plain_text_starters() -> frozenset[str] | None:
    """The first characters of the resolver's implicit patterns; None when it has a
    pattern for any start, or path resolvers (then every plain scalar asks it)."""
    patterns = CSafeLoader.yaml_implicit_resolvers
    if None in patterns or CSafeLoader.yaml_path_resolvers:
        return None
    return frozenset(k for k in patterns if k)


_STARTERS = _plain_text_starters()


class _CachedResolve:
    """libyaml parses; the implicit tag of a plain scalar is looked up once per value.

    Recipes repeat the same scalars (true, 1, null, ...), and ruamel's resolver is Python.
    A plain scalar whose first character starts none of the resolver's patterns (most
    text: names, paths) is text without asking it, exactly as it would answer. The
    composer asks only for nodes without a tag in the file; the answer is marked
    :class:`~automodel_launch.loading.tags.Resolved` so the builder can tell the two apart.
    """

    _tags: ClassVar[dict[Any, Resolved]] = {}
    _text = Resolved(suffix=YAML_TAG + "str")

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        plain = kind is ScalarNode and implicit[0]
        if plain and value and _STARTERS is not None and value[0] not in _STARTERS:
            return self._text
        if plain and len(value) > 64:
            return Resolved(suffix=str(super().resolve(kind, value, implicit)))  # type: ignore[misc]
        # outside plain scalars the tag depends on the kind of node alone
        key = value if plain else (kind, implicit)
        tag = self._tags.get(key)
        if tag is None:
            tag = Resolved(suffix=str(super().resolve(kind, value, implicit)))  # type: ignore[misc]
            if len(self._tags) < 50_000:
                self._tags[key] = tag
        return tag


class _Loader(_CachedResolve, CSafeLoader):
    """The fast loader: libyaml composes."""


def _compose(text: str, sink: Collector) -> list[Node] | None:
    """libyaml composes; a ':' inside a plain scalar of a flow collection, which libyaml
    refuses and PyYAML reads (``{timeout: 1:00:00}``), is composed again in Python."""
    failed = Collector()
    documents = _compose_with(_Loader, text, failed)
    if documents is None and any(d.message == _FLOW_COLON for d in failed.items):
        documents = _compose_with(_pure_loader(), text, Collector())
    if documents is None:
        sink.items.extend(failed.items)
    return documents


_FLOW_COLON = "found unexpected ':'"


def _pure_loader() -> Any:
    from ruamel.yaml.loader import SafeLoader

    class _PureLoader(_CachedResolve, SafeLoader):
        """Python composes: slower, and reads flow scalars as PyYAML does."""

        max_depth = None  # what ruamel's YAML() sets; depth is bounded before composing

    return _PureLoader


def _compose_with(loader_class: Any, text: str, sink: Collector) -> list[Node] | None:
    loader = loader_class(text)
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                documents.append(node)
        return documents
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        hint = (
            "YAML indents with spaces: replace the tab"
            if _char_at(text, line, column) == "\t"
            else None
        )
        sink.items.append(_diagnostic_at("yaml-syntax", line, column, problem, hint))
    except RecursionError:
        sink.items.append(
            _diagnostic_at(
                "too-deep", 1, 1, "the YAML nests too deep to read", "a recipe nests a few levels"
            )
        )
    except (YAMLError, ValueError) as exc:
        sink.items.append(_diagnostic_at("yaml-syntax", 1, 1, str(exc) or "invalid YAML"))
    finally:
        loader.dispose()
    return None


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.splitlines()
    if 0 < line <= len(lines) and 0 < column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""


def _diagnostic_at(
    code: str, line: int, column: int, message: str, hint: str | None = None
) -> Diagnostic:
    return Diagnostic(CODES[code][0], code, "", line, column, message, hint)
