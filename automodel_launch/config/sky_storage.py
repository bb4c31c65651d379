"""``skypilot.file_mounts``: what a task puts on its nodes, and what of it outlives them.

SkyPilot's ``file_mounts`` maps a path on each node to what it holds. A local path or a
bucket URL written as text is *copied* onto each node's disk: what the job writes there
stays on that disk, and goes with it. A storage mount (a mapping) in ``MOUNT`` mode
(SkyPilot's default) or ``MOUNT_CACHED`` writes through to its bucket, which outlives the
cluster, unless SkyPilot created the bucket (``name:`` without ``source:``) and
``persistent: false`` deletes it with the cluster. Node paths are absolute, ``~/...``, or
relative to ``~/sky_workdir``, the directory SkyPilot runs the task in (so AutoModel's
default ``checkpoints/`` is ``~/sky_workdir/checkpoints``).
"""

from __future__ import annotations

import posixpath
from typing import Annotated, Any

from pydantic import BeforeValidator, Discriminator, Field, Tag, WithJsonSchema, model_validator

from automodel_launch.config.types import StrictSection, fail, kind, show

REMOTE_WORKDIR = "~/sky_workdir"
"""Where SkyPilot runs a task's ``setup`` and ``run``, and what relative node paths mean."""
RESERVED = "~/.automodel-launch"
"""Where the rendered task puts each job's config on the nodes."""
STORES = (
    "s3", "gcs", "azure", "r2", "ibm", "oci", "nebius", "coreweave", "vastdata", "hf", "volume",
)  # fmt: skip
"""SkyPilot 0.14's store types (``store:``), any case."""
MODES = ("MOUNT", "COPY", "MOUNT_CACHED")
WRITE_THROUGH = frozenset({"MOUNT", "MOUNT_CACHED"})
SHAPE = "{/checkpoints: {source: s3://BUCKET/run1, mode: MOUNT}}"
"""A bucket mount as a user writes it, for hints."""


def _one_of(words: tuple[str, ...], what: str) -> Any:
    """One of ``words`` in any case, as SkyPilot reads it."""

    def check(value: Any) -> Any:
        if isinstance(value, str) and value.upper() in {w.upper() for w in words}:
            return value
        fail("invalid-choice", f"{what} {show(value)} is not one of {', '.join(words)}")

    return BeforeValidator(check)


def _any_case(words: tuple[str, ...]) -> Any:
    spelled = ("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in w) for w in words)
    pattern = "^(" + "|".join(spelled) + ")$"
    return WithJsonSchema({"type": "string", "pattern": pattern, "examples": list(words)})


Store = Annotated[str, _one_of(STORES, "store"), _any_case(STORES)]
Mode = Annotated[str, _one_of(MODES, "mode"), _any_case(MODES)]


class StorageMount(StrictSection):
    """A bucket on every node (a SkyPilot storage mount): with `mode: MOUNT` (the default) or
    `MOUNT_CACHED`, what the job writes under it reaches the bucket."""

    model_config = StrictSection.model_config | {"title": "SkyPilot storage mount"}

    source: str | list[str] | None = Field(
        default=None,
        description="The bucket (`s3://BUCKET/path`, `gs://...`, `r2://...`) or local "
        "directories to upload into a new bucket named `name`.",
    )
    name: str | None = Field(
        default=None, description="Bucket name: SkyPilot creates it when it does not exist."
    )
    store: Store | None = Field(
        default=None, description="Store type of a new bucket: s3, gcs, azure, r2, ..."
    )
    mode: Mode | None = Field(
        default=None,
        description="MOUNT (SkyPilot's default: writes reach the bucket), MOUNT_CACHED "
        "(written to the bucket in the background) or COPY (copied onto each node's disk "
        "once: writes stay there).",
    )
    persistent: bool | None = Field(
        default=None,
        description="Keep a bucket SkyPilot created when the cluster is torn down (default true).",
    )
    type: str | None = Field(default=None, description="MOUNT_CACHED preset, passed to SkyPilot.")
    config: dict[str, Any] | None = Field(
        default=None, description="Store-specific settings, passed to SkyPilot as written."
    )

    @model_validator(mode="after")
    def _named_or_sourced(self) -> StorageMount:
        if self.source is None and self.name is None:
            fail(
                "invalid-file-mount",
                "a storage mount needs a source (a bucket URL) or a name (a bucket to create)",
                "e.g. {source: s3://BUCKET/run1, mode: MOUNT}",
            )
        return self

    @property
    def writes_through(self) -> bool:
        """What the job writes under it reaches a bucket that outlives the cluster."""
        if (self.mode or "MOUNT").upper() not in WRITE_THROUGH:
            return False
        return not (self.persistent is False and self.source is None)


def _node_path(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        fail(
            "invalid-file-mount", f"a file_mounts key must be a path on the node, not {kind(value)}"
        )
    if value == RESERVED or node_path(value).startswith(RESERVED + "/"):
        fail(
            "invalid-file-mount",
            f"{show(value)} is where the task puts the job's config",
            "mount somewhere else, e.g. /checkpoints",
        )
    return value


def _source_text(value: Any) -> Any:
    if not isinstance(value, str):
        fail(
            "wrong-type",
            f"a file_mounts value is a local path or bucket URL, or a storage mount mapping, "
            f"not {kind(value)}",
            "e.g. /data: s3://BUCKET/data, or " + SHAPE,
        )
    return value


def _held(value: Any) -> str:
    return "(storage)" if isinstance(value, dict) else "(text)"


NodePath = Annotated[str, BeforeValidator(_node_path)]
Held = Annotated[
    Annotated[str, BeforeValidator(_source_text), Tag("(text)")]
    | Annotated[StorageMount, Tag("(storage)")],
    Discriminator(_held),
]
"""A copied path or URL, or a storage mount; the tags (in parentheses, so they stay out of
a diagnostic's path) pick the branch, so an error names only the one meant."""
FileMounts = dict[NodePath, Held]


def node_path(path: str) -> str:
    """A path on a node as SkyPilot reads it: absolute, ``~/...``, or under ~/sky_workdir."""
    if not (path.startswith("/") or path == "~" or path.startswith("~/")):
        path = f"{REMOTE_WORKDIR}/{path}"
    return posixpath.normpath(path)


def holder(
    mounts: dict[str, str | StorageMount], path: str
) -> tuple[str, str | StorageMount] | None:
    """The mount a node path lies under (the deepest, when mounts nest), or None."""
    target = node_path(path)
    inside = [
        (node_path(dest), dest, source)
        for dest, source in mounts.items()
        if target == node_path(dest) or target.startswith(node_path(dest).rstrip("/") + "/")
    ]
    if not inside:
        return None
    _, dest, source = max(inside, key=lambda found: len(found[0]))
    return dest, source
