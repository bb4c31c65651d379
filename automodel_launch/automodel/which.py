"""Which AutoModel will run the job, found rather than assumed, and what it accepts.

In this order, the first that answers (:func:`choose`):

1. ``--automodel-source DIR`` (the ``automodel_source`` setting): the code named outright;
2. ``automodel_version`` from ``--set``, the profile, or the settings (as before);
3. the checkout in ``slurm.repo_root``: the job puts it first on ``PYTHONPATH``, so its
   code runs whatever the image or the environment holds;
4. the tag of an AutoModel container image (``nvcr.io/nvidia/nemo-automodel:26.04`` is
   0.4.0, :mod:`.images`): the job runs the image's Python, not this host's;
5. the ``nemo-automodel`` distribution installed beside this tool (:mod:`.installed`);
6. the default, the newest release on the package index.

A tree (1, 3, an installed release no table has, an editable install of a checkout) is
read from its source (:mod:`.source`, :mod:`.extract`), once per content
(:mod:`.cache`); one that cannot be read (not there, not AutoModel, too large, hostile)
gives a note saying why, and the next way of knowing decides. A tree's startup rules that
are not read from source (the device mesh, the entry point) are those of the shipped
release its signatures are closest to (``nearest``; a fork of main is main).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from automodel_launch.automodel.versions import DEFAULT, KNOWN

if TYPE_CHECKING:
    from automodel_launch.automodel.cache import Entry
    from automodel_launch.automodel.source import Listing
    from automodel_launch.automodel.table import Table
    from automodel_launch.diagnostics import Loc

Found = Literal["source", "set", "profile", "setting", "repo_root", "image", "installed", "default"]
SHOWN: frozenset[str] = frozenset({"source", "repo_root", "image", "installed"})
"""How a release was found that the summary says (set, profile and settings are the
user's own words; the default says nothing)."""
IMAGE_KEYS: tuple[tuple[str, str], ...] = (
    ("slurm", "container_image"), ("skypilot", "image_id"), ("nemo_run", "container_image"),
)  # fmt: skip
"""Where a recipe names the image its job runs in (``k8s.image`` does not count: no
release launches ``k8s:``)."""
NOT_READ = "automodel-not-read"
_MEMO: dict[str, Entry] = {}
_MEMO_SIZE = 8


@dataclass(frozen=True)
class Note:
    code: str
    """``automodel-not-read`` or ``automodel-image-unknown``."""
    loc: Loc
    message: str
    hint: str | None = None


@dataclass
class Choice:
    version: str
    """The release label the startup rules follow (``0.7.0``, ``main``, ``0.8.0``)."""
    found: Found
    why: str
    """How it was found, in words (``installed here``, ``image tag 26.04``)."""
    entry: Entry | None = None
    """What was read from a tree (None: the shipped table of ``version``)."""
    notes: list[Note] = field(default_factory=list)
    _table: Table | None = None

    @property
    def shown(self) -> str | None:
        return self.why if self.found in SHOWN else None

    def table(self) -> Table:
        if self._table is None:
            from automodel_launch.automodel import table as tables

            if self.entry is None:
                self._table = tables.load(self.version)
            else:
                self._table = tables.from_data(self.version, self.entry.table)
        return self._table


@dataclass(frozen=True)
class Explicit:
    version: str
    found: Found
    why: str


@dataclass(frozen=True)
class Tree:
    """A directory to read, named by ``name`` (``slurm.repo_root``, ``--automodel-source``)."""

    name: str
    loc: Loc
    path: Path | None
    problem: str | None = None
    """Why there is no directory to read (not on this host...), said in a note."""


def choose(
    data: Mapping[str, Any],
    *,
    source: Tree | None,
    explicit: Explicit | None,
    repo_root: Tree | None,
) -> Choice:
    """The release of a recipe (``data``, merged); the notes say what could not be read."""
    notes: list[Note] = []
    chosen = _from_tree(source, "source", notes) if source is not None else None
    if chosen is None and explicit is not None:
        chosen = _explicit(explicit, notes)
    if chosen is None and explicit is None and repo_root is not None:
        chosen = _from_tree(repo_root, "repo_root", notes)
    if chosen is None and explicit is None:
        chosen = _from_image(data, notes) or _installed(notes)
    chosen = chosen or Choice(DEFAULT, "default", "the default")
    chosen.notes = notes
    return chosen


def _explicit(explicit: Explicit, notes: list[Note]) -> Choice | None:
    if explicit.version in KNOWN:
        return Choice(explicit.version, explicit.found, explicit.why)
    from automodel_launch.automodel import installed

    here = installed.find()  # a release no table has, named as the one installed here
    if here is not None and here.version == explicit.version and here.package is not None:
        read = _read(here.package, here.version, (), "the installed release", notes)
        if read is not None:
            return Choice(explicit.version, explicit.found, explicit.why, read[0])
    return None


def _from_tree(tree: Tree, found: Found, notes: list[Note]) -> Choice | None:
    from automodel_launch.automodel.source import package_in

    if tree.path is None:
        if tree.problem is not None:
            notes.append(Note(NOT_READ, tree.loc, f"{tree.problem}: its code is not read"))
        return None
    package = package_in(tree.path)
    if package is None:
        notes.append(
            Note(
                NOT_READ,
                tree.loc,
                f"{tree.name} {tree.path} holds no nemo_automodel package: its code is not read",
                "point it at a checkout of AutoModel (the directory holding nemo_automodel/)",
            )
        )
        return None
    read = _read(package, None, tree.loc, tree.name, notes)
    if read is None:
        return None
    entry, listed = read
    return Choice(entry.nearest, found, _tree_why(tree, listed), entry)


def _tree_why(tree: Tree, listed: Listing) -> str:
    from automodel_launch.automodel import gitstate

    label = gitstate.state(listed).label()
    return f"{tree.name} at {label}" if label else f"{tree.name} {tree.path}"


def _from_image(data: Mapping[str, Any], notes: list[Note]) -> Choice | None:
    from automodel_launch.automodel.images import automodel_image, known_tags

    for section, key in IMAGE_KEYS:
        block = data.get(section)
        value = block.get(key) if isinstance(block, dict) else None
        image = automodel_image(value) if isinstance(value, str) else None
        if image is None:
            continue
        if image.version is not None:
            return Choice(image.version, "image", f"image tag {image.tag}")
        tags = ", ".join(known_tags())
        notes.append(
            Note(
                "automodel-image-unknown",
                (section, key),
                f"image tag {image.tag} is not in this tool's table of AutoModel images "
                f"({tags}): the release it holds is not known here",
                "set automodel_version to the release the image holds (--set "
                'automodel_version="0.7.0", or a profile\'s automodel_version:)',
            )
        )
        return None
    return None


def _installed(notes: list[Note]) -> Choice | None:
    from automodel_launch.automodel import installed

    here = installed.find()
    if here is None:
        return None
    base = here.version.split("+", 1)[0]
    if base in KNOWN and not here.editable:
        return Choice(base, "installed", "installed here")
    if here.package is None:
        notes.append(
            Note(
                NOT_READ,
                (),
                f"nemo-automodel {here.version} is installed here, but its package is not "
                "found on the path: its code is not read",
            )
        )
        return None
    version = None if here.editable else here.version
    read = _read(here.package, version, (), f"nemo-automodel {here.version}", notes)
    if read is None:
        return None
    entry = read[0]
    why = "installed here, editable" if here.editable else "installed here"
    return Choice(entry.nearest if here.editable else here.version, "installed", why, entry)


def _read(
    package: Path, version: str | None, loc: Loc, name: str, notes: list[Note]
) -> tuple[Entry, Listing] | None:
    from automodel_launch.automodel import source

    try:
        listed = source.listing(package)
        return read_tree(listed, version), listed
    except source.Unreadable as exc:
        notes.append(
            Note(
                NOT_READ,
                loc,
                f"the AutoModel source of {name} cannot be read: {exc}",
                "the shipped table of the release found next answers instead",
            )
        )
        return None


def read_ahead(directory: str) -> None:
    """Start reading the ``nemo_automodel`` package in ``directory`` in a worker while this
    process goes on (:mod:`.prefetch`): nothing when there is none, it cannot be listed
    (validation says why when it gets there) or the cache holds it (kept here, read once)."""
    from automodel_launch.automodel import cache, prefetch, source

    package = source.package_in(Path(directory))
    if package is None:
        return
    try:
        found = source.listing(package)
    except source.Unreadable:
        return
    key = cache.key(found)
    entry = _MEMO.get(key) or cache.load(key)
    if entry is not None:
        _MEMO[key] = entry
        return
    prefetch.start(str(found.root), lambda: read_tree(source.listing(found.root), None))


def read_tree(found: Listing, version: str | None) -> Entry:
    """What the listed package accepts (cached by content); ``version``: the release it is,
    when known (an installed distribution), else the nearest shipped one is found."""
    from automodel_launch.automodel import cache, prefetch, source

    key = cache.key(found)
    if key not in _MEMO:
        prefetch.wait(found.root)  # a worker reading it since the command began
    entry = _MEMO.get(key) or cache.load(key)
    if entry is None:
        from automodel_launch.automodel.extract import Unparsed, automodel_table

        sources = source.read(found)
        try:
            data = automodel_table(sources, version or "tree", str(found.root), every_module=True)
        except Unparsed as exc:
            raise source.Unreadable(f"Python cannot parse {exc}") from None
        nearest = version or _nearest(data["callables"])  # type: ignore[arg-type]
        data["version"] = nearest
        entry = cache.Entry(key, nearest, cache.checked(data))
        cache.store(entry)
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[key] = entry
    return entry


def _nearest(callables: Mapping[str, str]) -> str:
    """The shipped release with the most callables taking exactly what the tree's take;
    the newest among equals (a small fork of main shares little, and is main)."""
    from automodel_launch.automodel import table as tables
    from automodel_launch.automodel.versions import order

    def shared(version: str) -> tuple[int, tuple[int, ...]]:
        theirs = tables.read_data(version).get("callables", {})
        same = sum(1 for name, text in callables.items() if theirs.get(name) == text)
        return same, order(version)

    return max(KNOWN, key=shared)
