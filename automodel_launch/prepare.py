"""From a config path to the files of a job: validate, choose the entry point, render.

Shared by ``render`` and ``submit``; a config with errors is never rendered.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.automodel.versions import DEFAULT
from automodel_launch.config.document import LaunchDocument
from automodel_launch.diagnostics import sort_key
from automodel_launch.jobdir import check_job_dir, claim_job_dir
from automodel_launch.launchers import launcher_of
from automodel_launch.layout import CODE, JOB_CONFIG, LAUNCH_CONFIG
from automodel_launch.render.entry import Entry, JobSpec, custom_entry, default_entry
from automodel_launch.render.job import job_files, render_artifact
from automodel_launch.results import FileReport
from automodel_launch.rules.launchable import check_launchable
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_path

if TYPE_CHECKING:
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.remote.place import Placement


@dataclass
class PreparedJob:
    report: FileReport
    document: LaunchDocument | None = None
    job_dir: Path | None = None
    """Absolute, ``~`` expanded: write here, name this in messages."""
    artifact: str = ""
    """What ``render`` prints: the script, the task, or the command line."""
    files: dict[str, str] = field(default_factory=dict)
    claimed: tuple[Path, ...] = ()
    """Directories made to claim a unique job directory (see :func:`claim_job_dir`)."""
    name: str = ""
    nproc_per_node: int = 1


@dataclass(frozen=True)
class EntryChoice:
    text: str | None = None
    command: str = "finetune"
    domain: str = "llm"

    def resolve(self, version: str) -> Entry:
        if self.text is not None:
            return custom_entry(self.text)
        return default_entry(version, self.command, self.domain)


def prepare(
    path: Path,
    settings: Settings,
    *,
    entry: EntryChoice,
    job_dir: Path | None = None,
    nproc_per_node: int = 1,
    environ: Mapping[str, str] | None = None,
    submitting: bool = False,
    layers: Layers | None = None,
) -> PreparedJob:
    """Validate and render; ``job_dir`` None means the default for the launcher."""
    report = validate_path(
        path, settings, purpose="submit" if submitting else "render", layers=layers
    )
    check_report(report, settings, entry)
    if report.failed(settings.strict):
        return PreparedJob(report)
    return render_report(
        report,
        path,
        entry=entry,
        job_dir=job_dir,
        nproc_per_node=nproc_per_node,
        environ=environ,
        submitting=submitting,
    )


def check_report(report: FileReport, settings: Settings, entry: EntryChoice) -> None:
    """What makes a valid file no job (see :func:`check_launchable`), added to its report."""
    if report.loaded is None:
        return
    sink = report.loaded.collector()
    check_launchable(
        report.loaded.data,
        sink,
        custom_entry=entry.text is not None,
        version=report.automodel_version or settings.automodel_version,
    )
    report.diagnostics = sorted(report.diagnostics + sink.items, key=sort_key)
    if sink.items:
        report.document = None


def render_report(
    report: FileReport,
    path: Path,
    *,
    entry: EntryChoice,
    job_dir: Path | None = None,
    nproc_per_node: int = 1,
    environ: Mapping[str, str] | None = None,
    submitting: bool = False,
    after: str | None = None,
    code: str | None = None,
    placement: Placement | None = None,
) -> PreparedJob:
    """Render a validated report (no document: nothing rendered); ``after``: the Slurm
    dependency ``--after`` asks for; ``code``: the snapshot the job runs, ``CODE`` for the
    job directory's own (:data:`automodel_launch.layout.CODE`); ``placement``: the job is
    written here and runs on a named cluster, whose paths the script names."""
    document = report.document
    if document is None or report.loaded is None:
        return PreparedJob(report)
    name = default_job_name(document, entry)
    # resolved once: the directory written is the one the script names (`~/x`, not `./~/x`)
    claimed: tuple[Path, ...] = ()
    if job_dir is None and submitting:
        home = placement.local_base if placement else default_job_dir(document, name).parent
        target, claimed = claim_job_dir(check_job_dir(home), name)
    else:
        target = check_job_dir(job_dir or default_job_dir(document, name))
    seen = placement.remote(target) if placement is not None else str(target)
    try:
        spec = JobSpec(
            entry=entry.resolve(report.automodel_version or DEFAULT),
            job_dir=seen,
            source=str(path),
            job_name=name,
            environ=dict(os.environ if environ is None else environ),
            config_path=str(path) if job_dir is None and not submitting else None,
            after=after,
            code=f"{seen}/{CODE}" if code == CODE else code,
        )
        artifact = render_artifact(document, spec, nproc_per_node)
        files = job_files(document, report.loaded, artifact)
        launch = _launch_config(report, files[JOB_CONFIG])
        if launch is not None:
            files[LAUNCH_CONFIG] = launch
    except BaseException:
        release(claimed)
        raise
    return PreparedJob(report, document, target, artifact, files, claimed, name, nproc_per_node)


def _launch_config(report: FileReport, job_config: str) -> str | None:
    """``launch.yaml`` (:mod:`automodel_launch.render.launchconfig`); None when a value
    cannot be written as YAML text (a key that is not text): ``rerun`` then says so."""
    from automodel_launch.render.launchconfig import launch_config_text
    from automodel_launch.render.yaml11_text import NotWritable
    from automodel_launch.validation import env_as_written

    assert report.loaded is not None
    try:
        return launch_config_text(job_config, report.loaded, env_as_written(report.loaded))
    except NotWritable:
        return None


def release(claimed: tuple[Path, ...]) -> None:
    """Remove a claimed job directory (and the parents made for it) that is still empty."""
    for directory in claimed:
        try:
            directory.rmdir()
        except OSError:
            return


def default_job_name(document: LaunchDocument, entry: EntryChoice) -> str:
    section = document.launcher_section
    configured = section.job_name if section is not None else None
    return configured or f"{entry.domain}_{entry.command}"


def default_job_dir(document: LaunchDocument, name: str) -> Path:
    """``<job_dir or launcher default>/<name>`` (``submit`` claims a timestamped sibling)."""
    section = document.launcher_section
    base = (section.job_dir if section is not None else None) or launcher_of(document).default_base
    return Path(base).expanduser() / name
