"""The recipe document as a whole: which launcher, and the sections launching reads."""

from __future__ import annotations

import difflib
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, Field

from automodel_launch.config.k8s import K8sConfig
from automodel_launch.config.nemo_run import NemoRunConfig
from automodel_launch.config.recipe import (
    Checkpoint,
    FaultTolerance,
    RestoreFrom,
    StepScheduler,
)
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.config.types import OpenSection
from automodel_launch.launcher_names import INTERACTIVE, PLUGGED, SECTIONS, with_section

LAUNCHERS: list[str] = [*SECTIONS]
"""Every launcher section AutoModel defines, then those plugged in (:func:`plug_section`);
a recipe has at most one."""
LAUNCHED_BY_AUTOMODEL = {
    "k8s": "no AutoModel release launches k8s: (`automodel FILE` trains on the local node, "
    "or stops before 0.4.0): launch on Kubernetes here with skypilot: and cloud: kubernetes",
    "nemo_run": "run `automodel FILE` with nemo-run installed: AutoModel hands the recipe "
    "to the NeMo-Run executor (or launch here with slurm: or skypilot:)",
}
"""Launchers validated here but launched by AutoModel itself, and how to launch them."""
LAUNCHER_SECTIONS: set[str] = {*SECTIONS, "fault_tolerance"}
"""Sections the launcher owns: strict, and removed from the job config (a plugged
launcher's too)."""
UNSUPPORTED_LAUNCHERS = {
    "kubernetes": "no AutoModel release launches Kubernetes (nor its k8s: form): use skypilot: "
    "with cloud: kubernetes",
}
_UNSUPPORTED_NOTE = "Not launched by automodel-launch: "
UNRELEASED_LAUNCHERS = {
    "lepton": "to run on Lepton, name a NeMo-Run LeptonExecutor of your EXECUTOR_MAP in "
    "nemo_run.executor (AutoModel 0.4.0 and later launch that), or launch here with slurm: "
    "or skypilot:",
}
"""Launcher sections of AutoModel's development branches that no release reads: neither
automodel-launch nor a released ``automodel`` launches them (a note, never silence)."""
_UNRELEASED_NOTE = (
    "Not launched by automodel-launch nor by any AutoModel release: AutoModel's Lepton "
    "launcher never left a development branch (a released `automodel` ignores this section)."
)

SECTION_MODELS: dict[str, type[BaseModel]] = {
    "slurm": SlurmConfig,
    "skypilot": SkyPilotConfig,
    "k8s": K8sConfig,
    "nemo_run": NemoRunConfig,
    "fault_tolerance": FaultTolerance,
    "step_scheduler": StepScheduler,
    "checkpoint": Checkpoint,
    "restore_from": RestoreFrom,
}


def _unsupported(name: str) -> Any:
    return _not_launched(_UNSUPPORTED_NOTE + UNSUPPORTED_LAUNCHERS[name])


def _not_launched(note: str) -> Any:
    """A section no launcher runs: described, flagged to editors, never offered."""
    return Field(default=None, description=note, json_schema_extra={"deprecationMessage": note})


def _section_snippets(model: type[BaseModel]) -> Any:
    """Completing the section key inserts the model's snippet, not ``null``."""
    model_extra = model.model_config.get("json_schema_extra")
    snippets = model_extra.get("defaultSnippets", []) if isinstance(model_extra, dict) else []

    def extra(schema: dict[str, Any]) -> None:
        schema.pop("default", None)
        schema["defaultSnippets"] = snippets

    return extra


class LaunchDocument(OpenSection):
    """A NeMo AutoModel recipe. Recipe sections pass through; at most one launcher section."""

    model_config = OpenSection.model_config | {"title": "NeMo AutoModel recipe"}

    slurm: SlurmConfig | None = Field(
        default=None,
        description="Submit to a Slurm cluster. Excludes skypilot:.",
        json_schema_extra=_section_snippets(SlurmConfig),
    )
    skypilot: SkyPilotConfig | None = Field(
        default=None,
        description="Launch on a cloud or Kubernetes. Excludes slurm:.",
        json_schema_extra=_section_snippets(SkyPilotConfig),
    )
    fault_tolerance: FaultTolerance | None = Field(
        default=None, description="Restart on failure; valid only next to slurm:."
    )
    step_scheduler: StepScheduler | None = None
    checkpoint: Checkpoint | None = None
    restore_from: RestoreFrom | None = None
    recipe: Any = Field(
        default=None,
        description="Recipe class (AutoModel 0.7+); selects the `nemo_automodel.cli.app` entry.",
    )
    k8s: K8sConfig | None = Field(
        default=None,
        description="A Kubeflow PyTorchJob form from AutoModel's documentation that no "
        "AutoModel release launches (`automodel FILE` trains on the local node). Validated "
        "here, not launched: use skypilot: with cloud: kubernetes.",
        json_schema_extra=_section_snippets(K8sConfig),
    )
    nemo_run: NemoRunConfig | None = Field(
        default=None,
        description="AutoModel's NeMo-Run launcher (AutoModel 0.4.0 and later). Validated "
        "here; launched by `automodel FILE` with nemo-run installed.",
        json_schema_extra=_section_snippets(NemoRunConfig),
    )
    kubernetes: Any = _unsupported("kubernetes")
    lepton: Any = _not_launched(_UNRELEASED_NOTE)

    @property
    def launcher(self) -> str:
        """The launcher whose section the document has (at most one); none: interactive.
        A plugged launcher's section is kept beside the fields (the document is open)."""
        present = (name for name in with_section() if getattr(self, name, None) is not None)
        return next(present, INTERACTIVE)

    @property
    def launcher_section(self) -> LauncherSection | None:
        """The launcher's own section; None for a run on this node."""
        name = self.launcher
        return None if name == INTERACTIVE else getattr(self, name, None)


class LauncherSection(Protocol):
    """What every launcher's section model has, read beyond its own launcher: the job's
    name and directory, and when its ``${VAR}`` references are resolved."""

    references_resolved: ClassVar[str]
    """Ends "export VAR before ...": ``the job starts``, ``you submit``."""

    @property
    def job_name(self) -> str | None: ...

    @property
    def job_dir(self) -> str | None: ...

    def model_dump(self, *, mode: str = ..., exclude_defaults: bool = ...) -> dict[str, Any]: ...


def plug_section(name: str, model: type[BaseModel]) -> None:
    """A launcher's section ``name:``, validated on ``model`` (strict: a
    :class:`~automodel_launch.config.types.StrictSection`), joins the launcher sections:
    it chooses that launcher, at most one launcher section stands in a recipe, and the job
    config leaves it out. The exported schema is not changed: it is the shipped one."""
    taken = name in LAUNCHER_SECTIONS or name in LaunchDocument.model_fields
    if taken or hasattr(LaunchDocument, name) or not name.isidentifier():
        raise ValueError(f"{name!r} cannot name a launcher section: it is taken, or no name")
    SECTION_MODELS[name] = model
    LAUNCHERS.append(name)
    LAUNCHER_SECTIONS.add(name)
    PLUGGED.append(name)


def unplug_section(name: str) -> None:
    """Undo :func:`plug_section` (the shipped sections stay)."""
    if name not in PLUGGED:
        raise ValueError(f"{name!r} is no plugged launcher section")
    for names in (LAUNCHERS, PLUGGED):
        names.remove(name)
    LAUNCHER_SECTIONS.discard(name)
    del SECTION_MODELS[name]


def job_config(data: dict[str, Any]) -> dict[str, Any]:
    """The recipe each rank reads: the file's data without the launcher's own sections."""
    return {key: value for key, value in data.items() if key not in LAUNCHER_SECTIONS}


def unknown_key_hint(loc: tuple[str | int, ...], key: str) -> str:
    """Did-you-mean for a key the strict mapping at ``loc`` does not have."""
    valid = allowed_keys(loc)
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.75)
    if close:
        return f"did you mean '{close[0]}'?"
    for other in LAUNCHERS:
        if len(loc) == 1 and other != loc[0] and key in allowed_keys((other,)):
            return f"'{key}' is a {other}: field; {loc[0]}: does not have it"
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    return "valid keys: " + ", ".join(valid)


def allowed_keys(loc: tuple[str | int, ...]) -> list[str]:
    """The keys a strict mapping at ``loc`` accepts, for did-you-mean hints."""
    model: Any = LaunchDocument
    if loc and loc[0] in PLUGGED:  # a plugged launcher's section: not a field of the document
        model, loc = SECTION_MODELS[str(loc[0])], loc[1:]
    keyed = False  # the part is a key of a mapping of sections (skypilot.file_mounts./data)
    for part in loc:
        if isinstance(part, int) or keyed:
            keyed = False
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        model = _model_in(field.annotation)
        if model is None:
            return []
        keyed = getattr(field.annotation, "__origin__", None) is dict
    return list(model.model_fields)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) + getattr(annotation, "__metadata__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    origin = getattr(annotation, "__origin__", None)
    return _model_in(origin) if origin is not None and origin is not annotation else None
