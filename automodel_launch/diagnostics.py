"""The Diagnostic data type, the catalogue of codes, and where a diagnostic points.

Every problem the tool finds, from a YAML syntax error to a spot job without
checkpoints, becomes one :class:`Diagnostic`. Nothing is printed here: reporters
in :mod:`automodel_launch.report` turn lists of diagnostics into text, JSON or
GitHub annotations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from automodel_launch.secrets import display, redact_tokens

Loc = tuple[str | int, ...]


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    """Information, not a problem (what ``sbatch --test-only`` estimates): never fails a
    file, not even with ``--strict``."""


@dataclass(frozen=True)
class Origin:
    """Where a value came from when it is not the checked file itself: a profile file
    (``line``/``column`` of the diagnostic point into it) or a ``--set`` argument (no
    position: ``line`` and ``column`` are 0)."""

    kind: Literal["profile", "set"]
    where: str
    """The profile file's path, or the argument as given (``slurm.time=4h``)."""
    profile: str | None = None
    """The profile's name (profiles only)."""
    option: str = "--set"
    """The command-line option an argument was given to (``--set``, ``--sweep``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", display(self.where))

    @property
    def label(self) -> str:
        """How reports name the place: the file, or ``--set KEY=VALUE``."""
        return self.where if self.kind == "profile" else f"{self.option} {self.where}"

    def as_dict(self) -> dict[str, Any]:
        key = "file" if self.kind == "profile" else "argument"
        out: dict[str, Any] = {"kind": self.kind, key: self.where}
        if self.profile is not None:
            out["profile"] = self.profile
        if self.kind == "set" and self.option != "--set":
            out["option"] = self.option
        return out


@dataclass(frozen=True)
class Diagnostic:
    """One finding, located in a file: 1-based line and column, dotted path.

    Message, hint and path quote the config, so every diagnostic is cleaned where it is
    made, whoever makes it: no token, no control character, no megabyte value.
    """

    severity: Severity
    code: str
    path: str
    line: int
    column: int
    message: str
    hint: str | None = None
    origin: Origin | None = None
    """None: the value is in the checked file; else the profile or ``--set`` it came from."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", display(self.path))
        object.__setattr__(self, "message", display(self.message))
        if self.hint is not None:
            object.__setattr__(self, "hint", display(self.hint))

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    @property
    def is_problem(self) -> bool:
        """An error or a warning: what ``--strict`` fails on."""
        return self.severity is not Severity.NOTE

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "severity": self.severity.value,
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
        }
        if self.origin is not None:  # only then: older readers see the shape they know
            out["origin"] = self.origin.as_dict()
        return out


# code -> (default severity, one-line summary). Codes are stable: tools match on them.
CODES: dict[str, tuple[Severity, str]] = {
    # loading
    "file-not-found": (Severity.ERROR, "the path does not exist"),
    "file-unreadable": (Severity.ERROR, "the file cannot be read (permissions, a directory)"),
    "no-config-found": (Severity.ERROR, "a named directory holds no .yaml or .yml file"),
    "file-too-large": (Severity.ERROR, "the file is larger than a recipe can sensibly be"),
    "not-text": (Severity.ERROR, "the file is binary or not UTF-8"),
    "empty-file": (Severity.ERROR, "the file holds no YAML document"),
    "yaml-syntax": (Severity.ERROR, "the YAML parser rejected the file"),
    "multiple-documents": (Severity.ERROR, "more than one YAML document in the file"),
    "root-not-mapping": (Severity.ERROR, "the top level is not a mapping of sections"),
    "duplicate-key": (Severity.ERROR, "a key appears twice in one mapping"),
    "alias-bomb": (Severity.ERROR, "anchors and aliases expand to an unreasonable size"),
    "too-deep": (Severity.ERROR, "the YAML nests deeper than any recipe"),
    "yaml-tag": (Severity.ERROR, "a YAML tag this field cannot take, or text its tag cannot read"),
    "invalid-merge": (Severity.ERROR, "a merge key (<<) of something other than mappings"),
    "yaml11-trap": (Severity.WARNING, "YAML 1.1 (AutoModel's loader) reads the value differently"),
    "key-not-text": (Severity.ERROR, "a key YAML 1.1 reads as a bool, number, null or date"),
    "tab-not-space": (Severity.ERROR, "a tab outside quotes: AutoModel's loader (PyYAML) stops"),
    # structure
    "missing-recipe-key": (
        Severity.ERROR,
        "no recipe: key, which the selected AutoModel release needs to start the job",
    ),
    "unknown-automodel-version": (Severity.ERROR, "automodel_version names no known release"),
    "pipeline-batch-too-small": (
        Severity.ERROR,
        "local_batch_size // pp_microbatch_size below pp_size: AutoModel stops at startup",
    ),
    "no-max-steps": (
        Severity.ERROR,
        "a data set without a length and no step_scheduler.max_steps: AutoModel stops",
    ),
    "unresolved-interpolation": (
        Severity.WARNING,
        "an interpolation AutoModel's loader does not resolve (a resolver, another key)",
    ),
    "automodel-not-read": (
        Severity.NOTE,
        "AutoModel's source (repo_root, --automodel-source, installed) cannot be read: "
        "the release found next answers",
    ),
    "automodel-image-unknown": (
        Severity.NOTE,
        "an AutoModel image tag the release notes table does not have: its release is unknown",
    ),
    "unknown-key": (Severity.ERROR, "a key the launcher section does not have"),
    "missing-field": (Severity.ERROR, "a required field is absent"),
    "wrong-type": (Severity.ERROR, "the value has the wrong type"),
    "out-of-range": (Severity.ERROR, "a number outside its allowed range"),
    "invalid-choice": (Severity.ERROR, "a value outside the allowed set"),
    "invalid-value": (Severity.ERROR, "the value is not valid for the field"),
    "multiple-launchers": (Severity.ERROR, "two launcher sections (slurm, skypilot, k8s...)"),
    "unsupported-launcher": (Severity.ERROR, "a launcher section AutoModel does not define"),
    "launched-by-automodel": (
        Severity.ERROR,
        "render/submit of a nemo_run: file (AutoModel launches it) or a k8s: one (none does)",
    ),
    "own-sbatch-script": (
        Severity.ERROR,
        "render/submit of slurm.script: the user's own sbatch script, not rendered here",
    ),
    "nothing-to-train": (
        Severity.ERROR,
        "render/submit of a launcher section with no recipe, model or command",
    ),
    # files that are not what they seem, and launchers no release has
    "not-a-recipe": (
        Severity.NOTE,
        "a Kubernetes manifest, compose file, workflow...: nothing checked (render/submit: error)",
    ),
    "launcher-only": (
        Severity.NOTE,
        "a launcher section and nothing to train: render/submit will need a recipe or --entry",
    ),
    "unreleased-launcher": (
        Severity.NOTE,
        "a launcher section (lepton:) no AutoModel release has: nothing launches it",
    ),
    # k8s and nemo_run
    "k8s-not-launched": (
        Severity.WARNING,
        "a k8s: section, which no AutoModel release launches (`automodel` trains locally)",
    ),
    "invalid-image": (Severity.ERROR, "not a registry/image[:tag] a Kubernetes pod can pull"),
    "invalid-k8s-name": (Severity.ERROR, "not a valid Kubernetes name"),
    "invalid-executor": (Severity.ERROR, "not a NeMo-Run executor name"),
    "nemo-run-unknown-field": (
        Severity.WARNING,
        "a nemo_run key no NeMo-Run executor has: ignored, or refused by AutoModel 0.7.0",
    ),
    "nemo-run-field-replaced": (
        Severity.WARNING,
        "an executor field AutoModel or NeMo-Run sets itself after nemo_run: is applied",
    ),
    "nemo-run-not-in-release": (
        Severity.WARNING,
        "nemo_run: with an AutoModel release before 0.4.0, which never reads it",
    ),
    # slurm
    "invalid-time": (Severity.ERROR, "not a Slurm time limit"),
    "ambiguous-time": (Severity.WARNING, "a time that Slurm reads differently than it looks"),
    "invalid-job-name": (Severity.ERROR, "a job name with whitespace or shell metacharacters"),
    "invalid-slurm-word": (Severity.ERROR, "an account/partition that cannot be an #SBATCH value"),
    "invalid-port": (Severity.ERROR, "master_port outside 1024..65535 and not 'auto'"),
    "invalid-job-dir": (Severity.ERROR, "a job directory a script or #SBATCH line cannot carry"),
    "tasks-exceed-gpus": (Severity.ERROR, "more ranks per node than GPUs per node"),
    "invalid-mount": (Severity.ERROR, "a mount pyxis cannot express"),
    "duplicate-mount-dest": (Severity.ERROR, "two mounts land on the same container path"),
    "invalid-container-image": (Severity.ERROR, "not an enroot/pyxis image reference"),
    "nsys-diagnostic-only": (Severity.NOTE, "Nsight Systems profiling is on (information)"),
    "time-leaves-no-checkpoint-margin": (
        Severity.WARNING,
        "with async checkpointing, the time limit leaves too little room for one to finish",
    ),
    "invalid-signal": (Severity.ERROR, "not a --signal value the job script can trap"),
    "requeue-needs-signal": (Severity.ERROR, "requeue: true without a signal to requeue at"),
    "signal-without-requeue": (Severity.WARNING, "a signal that only gets logged"),
    "max-requeues-without-requeue": (Severity.WARNING, "max_requeues without requeue: true"),
    "requeue-without-checkpoint": (Severity.WARNING, "requeued runs with checkpointing off"),
    "requeue-fixed-restore": (Severity.WARNING, "requeued runs resume from one fixed checkpoint"),
    "requeue-signal-unhandled": (
        Severity.WARNING,
        "the recipe does not catch the SIGTERM that stops the ranks before a requeue",
    ),
    "signal-exceeds-time": (Severity.ERROR, "a signal time not shorter than the time limit"),
    "signal-margin-short": (
        Severity.WARNING,
        "the signal comes later than the checkpoint margin before the limit",
    ),
    "fault-tolerance-needs-slurm": (Severity.ERROR, "fault_tolerance: without slurm:"),
    "invalid-constraint": (Severity.ERROR, "not a Slurm node feature expression"),
    "invalid-memory": (Severity.ERROR, "not a Slurm memory size such as 64G"),
    "invalid-mail-type": (Severity.ERROR, "not an sbatch --mail-type value"),
    "invalid-mail-user": (Severity.ERROR, "not a mail address or user name"),
    "invalid-dependency": (Severity.ERROR, "not an sbatch --dependency expression"),
    "invalid-chdir": (Severity.ERROR, "a working directory an #SBATCH line cannot carry"),
    "invalid-sbatch-arg": (Severity.ERROR, "an sbatch_args entry sbatch would not read as meant"),
    "unknown-sbatch-option": (Severity.ERROR, "not one of sbatch's options"),
    "sbatch-option-has-field": (Severity.ERROR, "an sbatch option a field of slurm: sets"),
    "sbatch-option-refused": (Severity.ERROR, "an sbatch option that would break the job"),
    "conflicting-sbatch-options": (Severity.ERROR, "options sbatch refuses together"),
    "ranks-without-gpus": (Severity.WARNING, "ranks per node with no GPU request"),
    "command-replaces-torchrun": (Severity.WARNING, "command runs instead of torchrun"),
    "mail-user-without-type": (Severity.WARNING, "mail_user without mail_type: no mail is sent"),
    "relative-repo-root": (Severity.ERROR, "a relative repo_root cannot be mounted"),
    "invalid-notify-event": (Severity.ERROR, "not a notification event"),
    "notify-url-literal": (Severity.ERROR, "a webhook URL where its variable's name belongs"),
    "notify-webhook-reference": (Severity.ERROR, "a ${VAR} where the variable's name belongs"),
    "notify-webhook-name": (Severity.ERROR, "a webhook variable whose name is no credential's"),
    "invalid-notify-command": (Severity.ERROR, "a notify command that is not a list of words"),
    "notify-nowhere": (Severity.ERROR, "notify without a webhook or a command"),
    "notify-near-unlimited": (Severity.WARNING, "time_limit_near with no time limit to be near"),
    # skypilot
    "invalid-accelerators": (Severity.ERROR, "not NAME:COUNT"),
    "unknown-accelerator": (Severity.WARNING, "an accelerator name SkyPilot is unlikely to know"),
    "unknown-region": (Severity.WARNING, "a region or zone that does not look like the cloud's"),
    "gpus-exceed-accelerators": (Severity.ERROR, "gpus_per_node larger than the accelerator count"),
    "spot-unsupported": (Severity.ERROR, "use_spot on a cloud without spot instances"),
    "invalid-cluster-name": (Severity.ERROR, "a SkyPilot job name that is not a cluster name"),
    "invalid-file-mount": (Severity.ERROR, "a file_mounts entry SkyPilot cannot mount"),
    "checkpoint-on-vm-disk": (
        Severity.WARNING,
        "checkpoints on SkyPilot nodes' own disks: deleted with the cluster, or split over nodes",
    ),
    "no-automodel-on-nodes": (
        Severity.WARNING,
        "a SkyPilot task with neither setup nor image_id: nothing installs AutoModel",
    ),
    # spot checkpoint rules
    "spot-no-checkpoint-interval": (Severity.ERROR, "a spot job without a checkpoint interval"),
    "spot-long-checkpoint-interval": (Severity.WARNING, "a spot job with a long interval"),
    "spot-checkpoint-disabled": (Severity.ERROR, "a spot job with checkpointing turned off"),
    "spot-relative-checkpoint-dir": (Severity.WARNING, "spot checkpoints on the VM's own disk"),
    # environment and secrets
    "invalid-env-name": (Severity.ERROR, "not a valid environment variable name"),
    "invalid-env-reference": (Severity.ERROR, "a malformed ${...} reference"),
    "bare-env-reference": (Severity.WARNING, "$VAR is not expanded: it stays literal text"),
    "command-substitution": (Severity.WARNING, "$(...) or backticks stay literal text"),
    "secret-in-plain-text": (Severity.ERROR, "a token, key or password written in the file"),
    "env-unset": (Severity.WARNING, "a referenced variable is not set here"),
    "secret-in-recipe": (
        Severity.WARNING,
        "a token-shaped value in a recipe section (an error when rendering a job)",
    ),
    "control-character": (Severity.ERROR, "a terminal escape or other control character"),
    "secret-in-comment": (
        Severity.WARNING,
        "a comment holds a token (redacted in the job config)",
    ),
    # the whole recipe
    "path-not-mounted": (
        Severity.WARNING,
        "a path the job writes to under no container mount: lost when the job ends",
    ),
    "placeholder-value": (Severity.WARNING, "a placeholder copied from documentation"),
    # AutoModel's startup checks on sizes (StepScheduler, device mesh)
    "size-not-positive": (Severity.ERROR, "a StepScheduler size or step count of 0 or less"),
    "batch-not-divisible": (
        Severity.ERROR,
        "global_batch_size not a multiple of local_batch_size x dp",
    ),
    "mesh-not-dividing-ranks": (
        Severity.ERROR,
        "tp x cp x pp does not divide the ranks the launcher starts",
    ),
    "dp-size-mismatch": (
        Severity.ERROR,
        "an explicit dp_size whose mesh is not the ranks the launcher starts",
    ),
    "ep-size-mismatch": (Severity.ERROR, "an ep_size the expert-parallel mesh cannot split"),
    "dp-replicate-mismatch": (Severity.ERROR, "a dp_replicate_size the mesh cannot split dp by"),
    "strategy-unsupported-size": (
        Severity.ERROR,
        "a parallel size the distributed strategy does not support",
    ),
    "mesh-needs-nodes": (
        Severity.WARNING,
        "no launcher section, and a mesh larger than one 8-GPU node",
    ),
    # the recipe as the AutoModel release that runs it builds it
    "unknown-argument": (Severity.ERROR, "a key the callable AutoModel builds does not take"),
    "missing-argument": (Severity.ERROR, "an argument the callable needs and nothing gives"),
    "unknown-target": (Severity.ERROR, "a _target_ the AutoModel release cannot import"),
    "unknown-recipe": (Severity.ERROR, "a recipe: name the AutoModel release has no recipe for"),
    # host checks
    "path-missing": (Severity.ERROR, "a path the job needs does not exist on this host"),
    # live preflight against the cluster (validate --cluster, submit)
    "cluster-unanswered": (Severity.WARNING, "the cluster did not answer in time: not checked"),
    "scheduler-output": (
        Severity.NOTE,
        "a scheduler command's answer could not be read: those values were not checked",
    ),
    "unknown-partition": (Severity.ERROR, "a partition the cluster does not have"),
    "partition-unavailable": (Severity.ERROR, "a partition that is not UP: the job never starts"),
    "time-over-partition-limit": (Severity.ERROR, "a time limit over the partition's MaxTime"),
    "nodes-outside-partition-limits": (
        Severity.ERROR,
        "more nodes than the partition has or allows, or fewer than its MinNodes",
    ),
    "nodes-out-of-service": (
        Severity.WARNING,
        "more nodes than the partition has in service (others down, drained, failing): it waits",
    ),
    "gpus-over-node-gres": (Severity.ERROR, "more GPUs per node than the partition's nodes have"),
    "no-gpus-on-partition": (Severity.WARNING, "ranks on a partition whose nodes have no GPUs"),
    "cpus-over-node": (Severity.ERROR, "more CPUs per node than the partition's nodes have"),
    "mem-over-node": (Severity.ERROR, "more memory per node than the partition's nodes have"),
    "unknown-account": (Severity.ERROR, "an account the user has no association with"),
    "unknown-qos": (Severity.ERROR, "a QOS the user's associations do not allow"),
    "associations-not-checked": (
        Severity.NOTE,
        "the cluster keeps no accounting: account and qos were not checked",
    ),
    "no-pyxis": (Severity.ERROR, "a container image on a cluster without pyxis"),
    "image-read-as-docker-hub": (
        Severity.WARNING,
        "enroot 3 reads REGISTRY/IMAGE as a Docker Hub image; write REGISTRY#IMAGE",
    ),
    "sbatch-refused": (Severity.ERROR, "sbatch --test-only refused the rendered script"),
    "sbatch-estimate": (Severity.NOTE, "sbatch --test-only's estimate of when the job starts"),
    "array-too-large": (
        Severity.ERROR,
        "a job array of more tasks than the cluster's MaxArraySize",
    ),
    "array-over-partition": (
        Severity.NOTE,
        "more of an array's tasks at once than the partition has nodes for: the others wait",
    ),
    # profiles and --set
    "unknown-profile": (Severity.ERROR, "a profile name no profile file defines"),
    "invalid-profile": (Severity.ERROR, "a profile file entry that is not launcher sections"),
    "profile-not-applied": (Severity.NOTE, "the profile has no section for the recipe's launcher"),
    "invalid-override": (Severity.ERROR, "a --set KEY that cannot be applied to this recipe"),
}


@dataclass
class Collector:
    """Gathers diagnostics for one file, resolving a loc to a line and column.

    ``keys`` and ``values`` map a loc (``("slurm", "time")``) to the 1-based
    (line, column) of the key token and of the value node.
    """

    keys: Mapping[Loc, tuple[int, int]] = field(default_factory=dict)
    values: Mapping[Loc, tuple[int, int]] = field(default_factory=dict)
    items: list[Diagnostic] = field(default_factory=list)
    hide: Callable[[str], str] = str
    """Applied to every message, hint and path: removes this file's credential values
    (a :class:`automodel_launch.secrets.Redactor`)."""
    where: Callable[[Loc, bool], tuple[Origin | None, int, int]] | None = None
    """With a profile or ``--set`` in play: the origin and position of a loc (see
    :mod:`automodel_launch.profiles.provenance`); None: ``keys``/``values`` of the file."""

    def add(
        self,
        code: str,
        loc: Loc,
        message: str,
        hint: str | None = None,
        *,
        at_key: bool = False,
        severity: Severity | None = None,
    ) -> None:
        origin = None
        if self.where is not None:
            origin, line, column = self.where(loc, at_key)
            if origin is not None:
                origin = Origin(origin.kind, self.hide(origin.where), origin.profile,
                                origin.option)  # fmt: skip
        else:
            line, column = self.position(loc, at_key=at_key)
        self.items.append(
            Diagnostic(
                severity=severity or CODES[code][0],
                code=code,
                path=self.hide(dotted(loc)),
                line=line,
                column=column,
                message=self.hide(message),
                hint=None if hint is None else self.hide(hint),
                origin=origin,
            )
        )

    def position(self, loc: Loc, *, at_key: bool = False) -> tuple[int, int]:
        """The nearest known position: the loc itself, else its closest ancestor."""
        first, second = (self.keys, self.values) if at_key else (self.values, self.keys)
        for end in range(len(loc), 0, -1):
            part = loc[:end]
            if part in first:
                return first[part]
            if part in second:
                return second[part]
        return (1, 1)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)


def dotted(loc: Loc) -> str:
    """``("slurm", "extra_mounts", 0, "source")`` -> ``slurm.extra_mounts[0].source``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, str]:
    """The checked file's own diagnostics first, then the others grouped by their origin."""
    origin = diagnostic.origin
    return ("" if origin is None else origin.label, diagnostic.line, diagnostic.column,
            diagnostic.code)  # fmt: skip


# ------------------------------------------------------------- pydantic errors
_TYPE_MESSAGES = {
    "int_type": "expected a whole number",
    "int_from_float": "expected a whole number",
    "int_parsing": "expected a whole number",
    "bool_type": "expected true or false",
    "bool_parsing": "expected true or false",
    "string_type": "expected text",
    "float_type": "expected a number",
    "model_type": "expected a mapping of keys",
    "model_attributes_type": "expected a mapping of keys",
    "dict_type": "expected a mapping of keys",
    "list_type": "expected a list",
}
_RANGE = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}


def from_pydantic(
    errors: Iterable[Mapping[str, Any]],
    prefix: Loc,
    sink: Collector,
    unknown_key_hint: Callable[[Loc, str], str],
) -> None:
    """Turn pydantic's error list into diagnostics, one per error."""
    for error in errors:
        raw_loc = tuple(error["loc"])
        at_key = "[key]" in raw_loc
        loc = (*prefix, *(p for p in raw_loc if isinstance(p, int) or _is_path_part(p)))
        code, message, hint = _describe(error, loc, unknown_key_hint)
        sink.add(code, loc, message, hint, at_key=at_key or code == "unknown-key")


def _is_path_part(part: str) -> bool:
    """Not pydantic's own loc parts: ``[key]``, ``function-before[...]``, ``list[int]``."""
    return not any(ch in part for ch in "[]()")


def _describe(
    error: Mapping[str, Any], loc: Loc, unknown_key_hint: Callable[[Loc, str], str]
) -> tuple[str, str, str | None]:
    kind: str = error["type"]
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    where = dotted(loc[:-1]) or "the top level"
    field_name = str(loc[-1]) if loc else ""
    if kind in CODES:
        return kind, str(ctx.get("message", error["msg"])), ctx.get("hint")
    if kind == "extra_forbidden":
        hint = unknown_key_hint(loc[:-1], field_name)
        return "unknown-key", f"unknown key '{field_name}' in {where}", hint
    if kind == "missing":
        return "missing-field", f"{where} needs '{field_name}'", f"add {field_name}: <value>"
    if kind in _TYPE_MESSAGES:
        got = _describe_input(error.get("input"))
        return "wrong-type", f"{_TYPE_MESSAGES[kind]}, got {got}", None
    if kind in _RANGE:
        key, words = _RANGE[kind]
        return "out-of-range", f"must be {words} {ctx.get(key)}", None
    if kind in ("literal_error", "enum"):
        return "invalid-choice", f"must be one of {ctx.get('expected')}", None
    return "invalid-value", str(error["msg"]), None


def _describe_input(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = redact_tokens(repr(value) if isinstance(value, str) else str(value))
    return text if len(text) <= 40 else text[:37] + "..."
