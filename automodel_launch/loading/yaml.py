"""Load a recipe YAML into plain Python data plus the position of every key and value.

Parsing uses ruamel.yaml's C composer (``ruamel.yaml.clib``): nodes carry line and
column marks, so positions cost nothing extra and the slow round-trip loader is not
needed. Values are built from the composed nodes with YAML 1.2 rules (what this
tool, yaml-language-server and SkyPilot read); :mod:`automodel_launch.loading.yaml11`
compares them with what AutoModel's YAML 1.1 loader would read.

Bad input of any kind becomes a diagnostic, never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ruamel.yaml.cyaml import CSafeLoader
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from automodel_launch.diagnostics import CODES, Collector, Diagnostic, Loc, dotted

MAX_BYTES = 5 * 1024 * 1024
"""The largest real recipe in the corpus is about 10 KB; 5 MB is far past any config."""
MAX_DEPTH = 200
"""Real recipes nest under 10 levels; the builder recurses once per level."""
MAX_EXPANDED_NODES = 200_000
"""Aliases may share nodes; past this many nodes after expansion, it is a bomb."""

_YAML_TAG = "tag:yaml.org,2002:"


@dataclass
class LoadedFile:
    """A loaded recipe: its data and where each loc sits in the file."""

    path: str
    data: dict[str, Any]
    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    plain: dict[Loc, str] = field(default_factory=dict)
    """The source text of each unquoted scalar, for the YAML 1.1 comparison."""
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
    """Read and load one file; every failure is a diagnostic at the file's start."""
    name = str(path)
    sink = Collector()
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            sink.add(
                "file-too-large",
                (),
                f"{size / 1e6:.1f} MB is far larger than any recipe "
                f"(limit {MAX_BYTES // 10**6} MB)",
                "check that this is the config you meant",
            )
            return LoadResult(None, sink.items)
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        sink.add("file-not-found", (), f"no such file: {name}", "check the path")
        return LoadResult(None, sink.items)
    except (IsADirectoryError, PermissionError, OSError) as exc:
        reason = exc.strerror or exc.__class__.__name__
        sink.add("file-unreadable", (), f"cannot read {name}: {reason}", None)
        return LoadResult(None, sink.items)
    return load_bytes(raw, name)


def load_bytes(raw: bytes, name: str = "<string>") -> LoadResult:
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
    if isinstance(root, ScalarNode) and _tag(root).endswith(":null") and not root.value:
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
    if "*" in text and not _expansion_is_bounded(root):
        sink.add(
            "alias-bomb",
            (),
            "anchors and aliases expand past "
            f"{MAX_EXPANDED_NODES:,} nodes (or refer to themselves)",
            "write the values out instead of nesting aliases",
        )
        return LoadResult(None, sink.items)
    loaded = LoadedFile(path=name, data={}, text=text, sections=_section_lines(root))
    builder = _Builder(loaded, sink)
    try:
        data = builder.build(root, ())
    except _TooDeep:
        sink.add(
            "too-deep",
            (),
            f"the YAML nests more than {MAX_DEPTH} levels deep",
            "a recipe nests a few levels; check the file's structure",
        )
        return LoadResult(None, sink.items)
    loaded.data = data if isinstance(data, dict) else {}
    return LoadResult(loaded, sink.items)


class _Loader(CSafeLoader):
    """libyaml parses; the implicit tag of a plain scalar is looked up once per value.

    Recipes repeat the same scalars (true, 1, null, ...), and ruamel's resolver is Python.
    """

    _tags: ClassVar[dict[str, Any]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not ScalarNode or not implicit[0] or len(value) > 64:
            return super().resolve(kind, value, implicit)
        tag = self._tags.get(value)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(self._tags) < 50_000:
                self._tags[value] = tag
        return tag


def _compose(text: str, sink: Collector) -> list[Node] | None:
    loader = _Loader(text)
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


def _section_lines(root: MappingNode) -> dict[str, tuple[int, int]]:
    """Line span of each top-level entry of a block mapping (empty for flow style)."""
    if root.flow_style:
        return {}
    spans: dict[str, tuple[int, int]] = {}
    for key, value in root.value:
        end = value.end_mark
        last = end.line if end.column == 0 else end.line + 1
        spans[_key_text(key)] = (key.start_mark.line, max(last, key.start_mark.line + 1))
    return spans


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.splitlines()
    if 0 < line <= len(lines) and 0 < column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""


def _diagnostic_at(
    code: str, line: int, column: int, message: str, hint: str | None = None
) -> Diagnostic:
    return Diagnostic(CODES[code][0], code, "", line, column, message, hint)


def _expansion_is_bounded(root: Node) -> bool:
    """Count nodes as if every alias were copied out; stop at the limit or a cycle."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise OverflowError
        active.add(key)
        total = 1
        if isinstance(node, MappingNode):
            for k, v in node.value:
                total += size(k) + size(v)
        elif isinstance(node, SequenceNode):
            for item in node.value:
                total += size(item)
        active.discard(key)
        if total > MAX_EXPANDED_NODES:
            raise OverflowError
        sizes[key] = total
        return total

    try:
        size(root)
    except (OverflowError, RecursionError):
        return False
    return True


class _TooDeep(Exception):
    pass


class _Builder:
    def __init__(self, loaded: LoadedFile, sink: Collector) -> None:
        self.loaded = loaded
        self.sink = sink

    def build(self, node: Node, loc: Loc) -> Any:
        if len(loc) >= MAX_DEPTH:
            raise _TooDeep
        self.loaded.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, MappingNode):
            return self._mapping(node, loc)
        if isinstance(node, SequenceNode):
            return [self.build(item, (*loc, i)) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        if not node.style and _tag(node).startswith(_YAML_TAG):
            self.loaded.plain[loc] = node.value
        return scalar_value(node)

    def _mapping(self, node: MappingNode, loc: Loc) -> dict[str, Any]:
        """Explicit keys first; merged ones (``<<: *anchor``) only fill what is left."""
        out: dict[str, Any] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and _tag(key_node) == _YAML_TAG + "merge":
                merges.append(value_node)
                continue
            key = _key_text(key_node)
            child = (*loc, key)
            position = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if key in out:
                self._duplicate(key, child, position)
                continue
            self.loaded.keys[child] = position
            out[key] = self.build(value_node, child)
        for merge in merges:
            merged = self.build(merge, loc)
            for source in merged if isinstance(merged, list) else [merged]:
                for k, v in source.items() if isinstance(source, dict) else []:
                    out.setdefault(k, v)
        return out

    def _duplicate(self, key: str, loc: Loc, position: tuple[int, int]) -> None:
        first = self.loaded.keys[loc]
        self.sink.items.append(
            Diagnostic(
                CODES["duplicate-key"][0], "duplicate-key", dotted(loc), *position,
                f"key '{key}' appears twice in this mapping (first on line {first[0]}); "
                "AutoModel silently keeps the last one",
                "delete or rename one of them",
            )
        )  # fmt: skip


def _tag(node: Node) -> str:
    """The node's tag text; a plain suffix skips ruamel's URI decoding on every call."""
    ctag = node.ctag
    suffix = ctag.suffix if ctag is not None else None
    if ctag is not None and ctag.handle is None and isinstance(suffix, str) and "%" not in suffix:
        return suffix
    return str(node.tag)


def _key_text(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return str(node.value)
    return f"<{type(node).__name__.removesuffix('Node').lower()} key>"


def scalar_value(node: ScalarNode) -> Any:
    """Construct a YAML 1.2 scalar from its resolved tag; unknown tags stay text."""
    text: str = node.value
    tag = _tag(node).removeprefix(_YAML_TAG)
    try:
        if tag == "null":
            return None
        if tag == "bool":
            return text.lower() == "true"
        if tag == "int":
            return _int(text)
        if tag == "float":
            return _float(text)
    except ValueError:
        return text
    return text


def _int(text: str) -> int:
    clean = text.replace("_", "")
    sign = -1 if clean.startswith("-") else 1
    body = clean.lstrip("+-")
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if body.lower().startswith(prefix):
            return sign * int(body[2:], base)
    return sign * int(body, 10)


def _float(text: str) -> float:
    lowered = text.lower().replace("_", "")
    if lowered in (".inf", "+.inf"):
        return math.inf
    if lowered == "-.inf":
        return -math.inf
    if lowered == ".nan":
        return math.nan
    return float(lowered)
