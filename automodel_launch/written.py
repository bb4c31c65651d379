"""Everything the tool writes passes here: one funnel for what is kept and what is returned.

The terminal has its funnel (:mod:`automodel_launch.cli.output`), the editor its own
(:mod:`automodel_launch.lsp.outgoing`); this is the third, for what outlives the command:

- **job directory files** (:func:`job_file`): both writers pass each file through it,
  the job directory's (:func:`automodel_launch.jobdir.write_job_dir`) and the single
  file's (:func:`automodel_launch.jobs.files.write_job_file`). The config files (the job
  config, ``launch.yaml``, a sweep point's too) have every token shape masked: a comment
  may hold one. The scripts and the SkyPilot task pass as rendered: they name a
  credential's variable (``$HF_TOKEN``), never its value, and what else they hold is
  checked before they are rendered, a credential refused (a launcher value, the job
  directory, the config path, the job name, ``--entry``), since a masked script would
  run something else. The job config's renderer masks its text with this same function
  before checking that it reads back as the recipe, so what ``render`` returns is what
  is written.
- **records** (:func:`record_mask`): a manifest's texts (:func:`manifest_fields`, which
  :func:`automodel_launch.jobs.manifest.new_manifest` passes a new manifest through), its
  code record (:func:`code_record`) and each row the registry adds
  (:func:`registry_fields`) lose the values of the environment's secret variables and
  every token shape. The texts a record shortens are masked before they are cut
  (:func:`automodel_launch.jobs.origins.run_settings`): a token cut in two would keep a
  piece the mask no longer recognises.
- **what the API returns**: its errors (:func:`returned_error`, as the command line prints
  them); the values are made of the above, and of :func:`automodel_launch.jobs.diff.compare`,
  which masks with :func:`record_mask` too.

Paths the tool reads back (a manifest's ``job_dir`` and ``config_path``, the registry's
columns) and names validated before anything is rendered (job names, launcher values)
are written as they are. Only this module, the other two funnels and a few modules
named in ``tests/test_written.py`` call the redaction of :mod:`automodel_launch.secrets`
themselves; that test holds it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from automodel_launch.layout import JOB_CONFIG, LAUNCH_CONFIG
from automodel_launch.secrets import (
    Redactor,
    environment_redactor,
    escape_controls,
    is_secret_name,
    redact_tokens,
)

if TYPE_CHECKING:
    from automodel_launch.errors import LaunchError
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.snapshot.record import CodeRecord

Mask = Callable[[str], str]

MASKED_FILES = frozenset({JOB_CONFIG, LAUNCH_CONFIG})
"""The job directory files whose every token shape is masked (by their name, wherever
they are: a sweep's ``points/3/job_config.yaml`` too)."""


def job_file(name: str, text: str) -> str:
    """``text`` as the job directory file ``name`` holds it."""
    if name.rpartition("/")[2] in MASKED_FILES:
        return redact_tokens(text)
    return text


def record_mask(environ: Mapping[str, str]) -> Mask:
    """What a record's text loses: the value of each of ``environ``'s secret variables (of
    three characters or more: a manifest is read by the user, not scanned for words), then
    every token shape."""
    return Redactor(v for k, v in environ.items() if is_secret_name(k))


def manifest_fields(fields: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """A manifest's values (as :class:`~automodel_launch.jobs.manifest.Manifest` takes
    them) with each of its texts masked: the command line's arguments, a sweep point's
    keys and values, the entry, the image, the profile, the ``--set`` arguments, the
    launcher values' origins and the code record's names."""
    return _masked(fields, record_mask(environ))


def code_record(environ: Mapping[str, str], **fields: Any) -> CodeRecord:
    """The manifest's ``code`` record of ``fields``, its names masked before it is bounded
    (a long name holding a token fits once the token is masked)."""
    from automodel_launch.snapshot.record import CodeRecord

    return CodeRecord(**_code(fields, record_mask(environ)))


def registry_fields(manifest: Manifest) -> dict[str, Any] | None:
    """The values of the manifest a registry row holds, its texts masked again with this
    process's environment, so that a manifest read back from a job directory (``jobs
    --reindex``), written by an older version or by hand, brings no credential into the
    registry; None when masking changes nothing (any manifest the tool made)."""
    dumped = manifest.model_dump()
    masked = _masked(dumped, record_mask(os.environ))
    return None if masked == dumped else masked


def returned_error(exc: LaunchError) -> LaunchError:
    """``exc`` with its message and hint as the command line would print them: the values
    of this environment's secret variables and every token shape masked, control
    characters escaped (not shortened: that is for a terminal)."""
    redact = environment_redactor(os.environ)

    def clean(text: str) -> str:
        return escape_controls(redact(text))

    exc.args = tuple(clean(a) if isinstance(a, str) else a for a in exc.args)
    if exc.hint is not None:
        exc.hint = clean(exc.hint)
    return exc


def _masked(fields: Mapping[str, Any], hide: Mask) -> dict[str, Any]:
    out = dict(fields)
    command_line = fields.get("command_line")
    if command_line is not None:
        out["command_line"] = tuple(hide(arg) for arg in command_line)
    values = fields.get("values")
    if values:
        out["values"] = {hide(k): hide(v) if isinstance(v, str) else v for k, v in values.items()}
    if fields.get("image") is not None:
        out["image"] = hide(fields["image"])
    entry = fields.get("entry")
    if entry is not None and entry.get("text") is not None:
        out["entry"] = {**entry, "text": hide(entry["text"])}
    profile = fields.get("profile")
    if profile is not None:
        out["profile"] = {**profile, "name": hide(profile["name"]), "file": hide(profile["file"])}
    overrides = fields.get("overrides")
    if overrides:
        out["overrides"] = tuple({**o, "argument": hide(o["argument"])} for o in overrides)
    origins = fields.get("origins")
    if origins:
        out["origins"] = {key: hide(text) for key, text in origins.items()}
    code = fields.get("code")
    if code is not None:
        out["code"] = _code(code if isinstance(code, Mapping) else code.model_dump(), hide)
    return out


def _code(fields: Mapping[str, Any], hide: Mask) -> dict[str, Any]:
    out = dict(fields)
    for key in ("root", "snapshot", "branch", "diff"):
        if fields.get(key) is not None:
            out[key] = hide(fields[key])
    for key in ("untracked", "skipped"):
        if key in fields:
            out[key] = tuple(hide(name) for name in fields[key])
    return out
