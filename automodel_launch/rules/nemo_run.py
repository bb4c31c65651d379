"""``nemo_run:`` against the AutoModel release that reads it (``automodel_version``).

Every key that is not AutoModel's own is set on the NeMo-Run executor (see
:mod:`automodel_launch.config.nemo_run`), so each one is checked against the fields of
the executor it reaches: ``executor: local`` builds a LocalExecutor, whose fields are
known exactly; a name from ``EXECUTOR_MAP`` may be any executor, taken to be a
SlurmExecutor or a LocalExecutor (the two AutoModel's documentation configures).

- A key no such executor has: 0.7.0 raises ValueError while building the executor
  (``apply_overrides``: ``hasattr(executor, key)`` or the error), for ``executor: local``
  and a named executor alike (an error); the other releases and main set it where
  nothing reads it (a warning: silently ignored). A release read from its source says
  itself whether it refuses (the table's ``nemo_run_refuses``).
- A field AutoModel or NeMo-Run sets after the section is applied (``launcher``,
  ``packager``...): a warning, the value never counts.
- A release before 0.4.0: no NeMo-Run launcher at all; the section is never read.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from automodel_launch.config.nemo_run import (
    FIRST_RELEASE,
    LOCAL,
    OWN_KEYS,
    REFUSING_RELEASES,
    REPLACED,
    UNRELEASED,
    executor_fields,
    launches_nemo_run,
)
from automodel_launch.diagnostics import Loc, Severity
from automodel_launch.rules.context import Context

NAMED_CLASSES = ("SlurmExecutor", "LocalExecutor")
"""What a named executor is taken to be."""


def nemo_run_rules(ctx: Context) -> None:
    raw = ctx.data.get("nemo_run")
    if not isinstance(raw, dict):
        return
    version = ctx.release().version
    if not launches_nemo_run(version):
        ctx.sink.add(
            "nemo-run-not-in-release",
            ("nemo_run",),
            f"AutoModel {version} has no NeMo-Run launcher: `automodel` never reads nemo_run: "
            "and runs the recipe as if the section were not there",
            f"nemo_run: is read by AutoModel {FIRST_RELEASE} and later: set automodel_version to "
            "the release that runs the job, or launch with slurm: or skypilot: here",
            at_key=True,
        )
        return
    executor = raw.get("executor", LOCAL)
    named = executor if isinstance(executor, str) and executor != LOCAL else None
    classes = NAMED_CLASSES if named else ("LocalExecutor",)
    known = executor_fields()
    fields = frozenset().union(*(known[name] for name in classes))
    for loc, key in _executor_keys(raw):
        if key in REPLACED:
            ctx.sink.add(
                "nemo-run-field-replaced",
                loc,
                f"{key} is set on the executor after nemo_run: is applied ({REPLACED[key]}): "
                "this value never counts",
                f"remove {key}",
                at_key=True,
            )
        elif key not in fields:
            _not_a_field(ctx, loc, key, version, named, classes, known)


def _executor_keys(raw: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """Every key that reaches the executor: the section's others, and ``overrides``'."""
    for key in raw:
        if isinstance(key, str) and key not in OWN_KEYS:
            yield ("nemo_run", key), key
    overrides = raw.get("overrides")
    if isinstance(overrides, dict):
        for key in overrides:
            if isinstance(key, str):
                yield ("nemo_run", "overrides", key), key


def _not_a_field(
    ctx: Context,
    loc: Loc,
    key: str,
    version: str,
    named: str | None,
    classes: tuple[str, ...],
    known: dict[str, frozenset[str]],
) -> None:
    said = ctx.release().table().nemo_run_refuses
    refused = version in REFUSING_RELEASES if said is None else said
    which = " or ".join(f"NeMo-Run's {name}" if i == 0 else name for i, name in enumerate(classes))
    if named is None:
        subject = f"'{key}' is no field of {which} (executor: local)"
    else:
        subject = f"'{key}' is no field of {which}"
    if refused:
        outcome = f"AutoModel {version} refuses it when it builds the executor (ValueError)"
        if named is not None:
            outcome += f" unless '{named}' in EXECUTOR_MAP is another kind that has it"
    else:
        outcome = f"AutoModel {version} sets it on the executor, where nothing reads it: ignored"
        if named is not None:
            outcome += f", unless '{named}' in EXECUTOR_MAP is another kind of executor that has it"
    severity = Severity.ERROR if refused else Severity.WARNING
    ctx.sink.add(
        "nemo-run-unknown-field",
        loc,
        f"{subject}: {outcome}",
        _fix(key, named, known),
        at_key=True,
        severity=severity,
    )


def _fix(key: str, named: str | None, known: dict[str, frozenset[str]]) -> str:
    if key in UNRELEASED:
        return f"{UNRELEASED[key]} ('{key}' was never in a released AutoModel)"
    if named is None and key in known["SlurmExecutor"]:
        return (
            f"{key} is a SlurmExecutor field: name a Slurm executor of EXECUTOR_MAP in "
            f"executor:, or remove {key}"
        )
    every = sorted(set(OWN_KEYS).union(*(known[name] for name in NAMED_CLASSES)))
    close = difflib.get_close_matches(key, every, n=1, cutoff=0.7)
    if close:
        return f"did you mean '{close[0]}'?"
    return f"remove {key}, or write a field of the executor (nodes, ntasks_per_node, time, ...)"
