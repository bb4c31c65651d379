"""What decides a run besides the recipe and the code, as the manifest records it: the
profile that applied, each ``--set`` (and a sweep point's ``--sweep``) argument, where
every launcher value that is not the recipe's own came from, and the container image as
the recipe (or its profile, or ``--set``) writes it.

Each is taken from the validated report's merge (:mod:`automodel_launch.profiles`), so it
is what the job was checked with, not what the command line seemed to say. Every text is
masked on the way in, before it is cut (:func:`automodel_launch.written.record_mask`): a
secret variable's value or a token shape is written as ``***``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from automodel_launch.remote.fields import ClusterName, Host, Port, RemotePath

if TYPE_CHECKING:
    from automodel_launch.results import FileReport

MAX_OVERRIDES = 32
"""``--set`` values kept (the rest are counted: ``more_overrides``); all of them are in the
command line and the job config."""
MAX_ORIGINS = 32
"""Launcher values' origins kept (the rest are counted: ``more_origins``)."""
MAX_TEXT = 160
"""Characters of one argument, origin, path or image kept. With the bounds above, the
worst a job's settings add to its manifest is under 100 KB, escaped: the largest manifest
stays under the reader's limit with its code record at every bound too."""
IMAGE_KEYS = {"slurm": "container_image", "skypilot": "image_id", "k8s": "image"}
"""The launcher field that names the container image the job runs in."""

Text = Annotated[str, Field(max_length=MAX_TEXT)]
OriginKey = Annotated[str, Field(pattern=r"^[^\x00-\x1f\x7f]{1,100}$")]


class ProfileRecord(BaseModel):
    """The profile that applied: its name and the file that defines it."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    name: Annotated[str, Field(max_length=255)]
    file: Text


class OverrideRecord(BaseModel):
    """One command-line value: ``--set slurm.nodes=2`` (or a sweep point's ``--sweep``)."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    option: Literal["--set", "--sweep"]
    argument: Text
    """As given (``slurm.nodes=2``), redacted and shortened."""

    @property
    def key(self) -> str:
        return self.argument.partition("=")[0]


class EntryRecord(BaseModel):
    """What the job runs in each rank (``--entry``, or ``--command``/``--domain``'s
    AutoModel entry point) and ``--nproc-per-node``: what ``rerun`` renders it with again."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    text: Annotated[str, Field(max_length=4096)] | None = None
    """``--entry`` as given (None: AutoModel's own entry point)."""
    command: Annotated[str, Field(max_length=255)] = "finetune"
    domain: Annotated[str, Field(max_length=255)] = "llm"
    nproc_per_node: Annotated[int, Field(ge=1, le=4096)] = 1


class RemoteRecord(BaseModel):
    """Where a job submitted over SSH is: the cluster's name (its connection is the profile
    file's ``clusters:`` entry of that name, else ``host`` and ``port``) and the job
    directory there; the local job directory holds the manifest and what was copied back.
    Each field is the type the cluster's definition has (:mod:`automodel_launch.remote.fields`):
    a manifest holding a host no cluster may have is not a manifest."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    name: ClusterName
    host: Host
    port: Port | None = None
    job_dir: RemotePath


def cut(text: str) -> str:
    """``text`` at most :data:`MAX_TEXT` characters; what is cut says how much."""
    if len(text) <= MAX_TEXT:
        return text
    return text[: MAX_TEXT - 24] + f"...(+{len(text) - (MAX_TEXT - 24)} chars)"


def run_settings(report: FileReport, environ: Mapping[str, str]) -> dict[str, Any]:
    """The manifest's ``profile``, ``overrides``, ``origins`` and ``image`` of a validated
    ``report``, each text masked of ``environ``'s secret values and of token shapes before
    it is cut (a token cut in two would leave a piece the mask no longer knows) and sorted."""
    from automodel_launch.diagnostics import dotted
    from automodel_launch.profiles.merge import MergedFile
    from automodel_launch.written import record_mask

    hide = record_mask(environ)

    document = report.document
    launcher = document.launcher if document is not None else None
    loaded = report.loaded
    data = loaded.data if loaded is not None else {}
    found: dict[str, Any] = {"profile": None, "image": None}
    section = data.get(launcher) if launcher is not None else None
    image = section.get(IMAGE_KEYS.get(launcher or "", "")) if isinstance(section, dict) else None
    if isinstance(image, str):
        found["image"] = cut(hide(image))
    if not isinstance(loaded, MergedFile):
        return found
    if loaded.profile is not None:
        profile = loaded.profile
        found["profile"] = {"name": hide(profile.name)[:255], "file": cut(hide(profile.file.path))}
    overrides = []
    origins: dict[str, str] = {}
    for loc, source in loaded.provenance.owner.items():
        if source.kind == "set" and source.origin is not None and loc == source.base:
            option = source.origin.option
            if option in ("--set", "--sweep"):
                overrides.append({"option": option, "argument": cut(hide(source.origin.where))})
        if source.kind == "recipe" or not loc or loc[0] != launcher:
            continue
        if not isinstance(_at(data, loc), dict | list):
            origins[_key(dotted(loc))] = cut(hide(loaded.provenance.describe(loc)))
    overrides.sort(key=lambda o: (o["option"], o["argument"]))
    found["overrides"] = tuple(overrides[:MAX_OVERRIDES])
    found["more_overrides"] = max(0, len(overrides) - MAX_OVERRIDES)
    found["origins"] = dict(list(origins.items())[:MAX_ORIGINS])
    found["more_origins"] = max(0, len(origins) - MAX_ORIGINS)
    return found


def rerun_settings(
    first: Any, settings: dict[str, Any], replaced: Iterable[str] = ()
) -> dict[str, Any]:
    """A rerun's settings: those of the job ``first`` (its :class:`Manifest`) it runs again
    (its profile, overrides and origins are in the config run again), with the rerun's own
    ``--set`` values on top; ``replaced``: keys the rerun gives another value itself (its
    own checkpoint directory), whose overrides of ``first`` no longer hold."""
    again = [o for o in settings.get("overrides", ()) if o["option"] == "--set"]
    keys = {o["argument"].partition("=")[0] for o in again} | set(replaced)
    kept = [o.model_dump() for o in first.overrides if o.key not in keys]
    overrides = kept + again
    origins = {**first.origins, **settings.get("origins", {})}
    return {
        "profile": first.profile.model_dump() if first.profile is not None else None,
        "image": settings.get("image"),
        "overrides": tuple(overrides[:MAX_OVERRIDES]),
        "more_overrides": first.more_overrides + max(0, len(overrides) - MAX_OVERRIDES),
        "origins": dict(list(origins.items())[:MAX_ORIGINS]),
        "more_origins": first.more_origins + max(0, len(origins) - MAX_ORIGINS),
    }


def _key(key: str) -> str:
    return key if len(key) <= 100 else key[:97] + "..."


def _at(data: Any, loc: tuple[str | int, ...]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data
