"""What differs between two jobs: where and how they ran (launcher settings, image,
profile, ``--set`` values), what they trained (the recipe values of their job configs),
and which code (commit, branch, uncommitted changes).

Everything comes from the two job directories: the manifests (:mod:`.manifest`) and each
job's ``job_config.yaml``, read through the job-directory reader (regular files only,
bounded: a link, a named pipe or a huge file is a clear error, never a hang). Texts are
shown cleaned (:func:`automodel_launch.secrets.display`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.errors import LaunchError
from automodel_launch.layout import JOB_CONFIG

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest

CONFIG_BYTES = 4 * 1024 * 1024
"""The largest ``job_config.yaml`` read back (the recipe the job's ranks read)."""
ABSENT = "(none)"
_RUN_DETAILS = frozenset({"pid", "max_steps", "num_epochs", "ckpt_every_steps", "checkpoints",
                          "checkpoint_dir", "checkpoint_note"})  # fmt: skip
"""Details that belong to one run, not to its settings, or that repeat the recipe's (what
``status`` reads its progress with: the config's own difference says it)."""


class JobConfigError(LaunchError):
    """A job's ``job_config.yaml`` that cannot be read back as a recipe."""


@dataclass(frozen=True)
class Difference:
    key: str
    """``slurm.nodes``, ``--set optimizer.lr``, ``config.optimizer.lr``, ``code.commit``."""
    old: Any
    new: Any
    """None where the job has no such value."""

    def line(self) -> str:
        return f"{self.key}: {shown(self.old)} -> {shown(self.new)}"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "old": _clean(self.old), "new": _clean(self.new)}


@dataclass(frozen=True)
class Comparison:
    """Two jobs and what differs between them."""

    old: Manifest
    new: Manifest
    differences: list[Difference]

    def lines(self) -> list[str]:
        if not self.differences:
            return [f"jobs {self.old.id} and {self.new.id} do not differ"]
        return [d.line() for d in self.differences]

    def to_json(self) -> dict[str, Any]:
        """The object of ``diff --format json`` (docs/json-output.md)."""
        found = [d.to_json() for d in self.differences]
        return {"old": self.old.id, "new": self.new.id, "differences": found}


def compare(old: Manifest, new: Manifest, environ: Mapping[str, str] | None = None) -> Comparison:
    """The differences, each text holding a secret variable's value of ``environ`` (this
    process's by default) masked as records are (:func:`automodel_launch.written.record_mask`):
    a job config holds the values as the ranks read them."""
    from automodel_launch.written import record_mask

    hide = record_mask(os.environ if environ is None else environ)

    def hidden(value: Any) -> Any:
        if isinstance(value, (list, dict)):
            value = json.dumps(value, sort_keys=True)
        return hide(value) if isinstance(value, str) else value

    found = [Difference(d.key, hidden(d.old), hidden(d.new)) for d in differences(old, new)]
    return Comparison(old, new, found)


def shown(value: Any) -> str:
    from automodel_launch.secrets import display

    if value is None:
        return ABSENT
    if isinstance(value, str):
        return display(value)
    return display(json.dumps(value, sort_keys=True))


def _clean(value: Any) -> Any:
    from automodel_launch.secrets import display

    if isinstance(value, str):
        return display(value)
    if isinstance(value, (list, dict)):
        return display(json.dumps(value, sort_keys=True))
    return value


def differences(old: Manifest, new: Manifest) -> list[Difference]:
    """Every key whose value differs, settings first, then ``--set`` values, code, and the
    recipe's values (sorted)."""
    found = []
    for part in (settings, overrides, code, config):
        left, right = part(old), part(new)
        keys = list(left) + [k for k in right if k not in left]
        if part is config:
            keys.sort()
        found += [Difference(k, left.get(k), right.get(k)) for k in keys
                  if _differ(left.get(k), right.get(k))]  # fmt: skip
    return found


def _differ(old: Any, new: Any) -> bool:
    """``1`` and ``1.0`` (or ``true``) are different values of a recipe."""
    return old != new or type(old) is not type(new)


def settings(m: Manifest) -> dict[str, Any]:
    """Where and how the job ran."""
    out: dict[str, Any] = {"launcher": m.launcher, "cluster": m.cluster}
    out |= {f"{m.launcher}.{k}": v for k, v in sorted(m.details.items()) if k not in _RUN_DETAILS}
    out |= {
        "image": m.image,
        "profile": None if m.profile is None else m.profile.name,
        "automodel_version": m.automodel_version,
        "tool_version": m.tool_version,
    }
    return out


def overrides(m: Manifest) -> dict[str, Any]:
    """``--set KEY`` (and a sweep point's ``--sweep KEY``) -> the value as given."""
    out: dict[str, Any] = {}
    for override in m.overrides:
        key, _, value = override.argument.partition("=")
        out[f"{override.option} {key}"] = value
    return out


def code(m: Manifest) -> dict[str, Any]:
    if m.code is None:
        return {"code": "live tree"}
    c = m.code
    return {"code.root": c.root, "code.commit": c.commit, "code.branch": c.branch,
            "code.dirty": c.dirty, "code.diff_sha256": c.diff_sha256}  # fmt: skip


def config(m: Manifest) -> dict[str, Any]:
    """The job config's values by dotted key (``config.optimizer.lr``)."""
    out: dict[str, Any] = {}
    _flatten(read_job_config(Path(m.job_dir)), "config", out)
    return out


def _flatten(value: Any, key: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for name, item in value.items():
            _flatten(item, f"{key}.{name}", out)
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            _flatten(item, f"{key}[{index}]", out)
    else:
        out[key] = value


def read_job_config(job_dir: Path) -> dict[str, Any]:
    """The recipe ``job_dir/job_config.yaml`` holds; a :class:`JobConfigError` naming the
    file, why and the fix when it holds none."""
    from automodel_launch.jobs.files import Unreadable, read_job_file
    from automodel_launch.loading import load_text

    path = job_dir / JOB_CONFIG
    fix = "submit wrote this file: restore it from a copy, or submit the recipe again"
    try:
        text = read_job_file(job_dir, JOB_CONFIG, CONFIG_BYTES)
    except Unreadable as exc:
        raise JobConfigError(str(exc), hint=fix) from None
    if text is None:
        raise JobConfigError(f"{job_dir} has no {JOB_CONFIG}", hint=fix)
    result = load_text(text, str(path))
    data = result.loaded.data if result.loaded is not None else None
    if not isinstance(data, dict):
        why = next((d.message for d in result.diagnostics if d.is_error), "no mapping")
        raise JobConfigError(f"cannot read {path}: it is not a recipe ({why})", hint=fix)
    return data
