"""``automodel-launch submit CONFIG``: validate, write the job directory, hand it over."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from automodel_launch.cli.common import ProfileOption, SetOption, script_value
from automodel_launch.cli.render import EntryOption
from automodel_launch.layout import LOCAL_LOG

if TYPE_CHECKING:
    from automodel_launch.jobs.record import Recorder
    from automodel_launch.prepare import PreparedJob


def command(
    config: Annotated[Path, typer.Argument(help="Recipe YAML.")],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Check with the scheduler (sbatch --test-only, SkyPilot's "
            "parser) without starting anything.",
        ),
    ] = False,
    job_dir: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--job-dir",
            callback=script_value,
            help="Job directory (default: a new one under job_dir).",
        ),
    ] = None,
    entry: EntryOption = None,
    recipe_command: Annotated[str, typer.Option("--command", callback=script_value)] = "finetune",
    domain: Annotated[str, typer.Option("--domain", callback=script_value)] = "llm",
    nproc_per_node: Annotated[Optional[int], typer.Option("--nproc-per-node", min=1)] = None,  # noqa: UP045
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    detach: Annotated[
        bool,
        typer.Option(
            "--detach",
            help=f"Local runs: start in the background, output in the job directory's {LOCAL_LOG} "
            "(Slurm and SkyPilot jobs always run detached).",
        ),
    ] = False,
    no_preflight: Annotated[
        bool,
        typer.Option(
            "--no-preflight",
            help="Do not ask the Slurm cluster about partitions, limits, GPUs and pyxis first.",
        ),
    ] = False,
    sets: SetOption = None,
    profile: ProfileOption = None,
) -> None:
    """Submit CONFIG to its launcher: sbatch, SkyPilot, or torchrun on this node."""
    import os

    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import layers, load_settings, report_problems
    from automodel_launch.errors import UsageError
    from automodel_launch.jobdir import JobDirError, remove_job_dir, write_job_dir
    from automodel_launch.launchers import Handover, launcher_of
    from automodel_launch.prepare import EntryChoice, prepare, release
    from automodel_launch.render.entry import EntryError
    from automodel_launch.secrets import display
    from automodel_launch.submit import SubmitError

    settings = load_settings(check_paths=check_paths, check_env=True)
    try:
        prepared = prepare(
            config,
            settings,
            entry=EntryChoice(entry, recipe_command, domain),
            job_dir=job_dir,
            nproc_per_node=nproc_per_node or local_gpu_count(),
            layers=layers(profile, sets),
            submitting=True,
        )
    except (JobDirError, EntryError) as exc:
        raise UsageError(str(exc)) from None
    if not no_preflight and prepared.document is not None and prepared.document.slurm is not None:
        from automodel_launch.cli.preflight import preflight_report

        preflight_report(prepared.report)
    try:
        report_problems(prepared.report, settings)
    except BaseException:
        release(prepared.claimed)
        raise
    assert prepared.document is not None and prepared.job_dir is not None
    launcher = launcher_of(prepared.document)
    recorder = _recorder(config, prepared, launcher.name)
    name, content = recorder.file
    try:
        written = write_job_dir(
            prepared.job_dir, {**prepared.files, name: content}, prepared.claimed
        )
    except OSError as exc:
        raise JobDirError(str(exc)) from None
    if detach and launcher.detached:
        typer.echo(f"note: {launcher.name} jobs always run detached; --detach changes nothing",
                   err=True)  # fmt: skip
    heading = "checking:" if dry_run else "submitting:"
    typer.echo("\n".join([heading, *_summary(prepared)]), err=True)
    handover = Handover(
        prepared.document,
        prepared.job_dir,
        prepared.files,
        dict(os.environ),
        dry_run=dry_run,
        detach=detach,
        started=None if dry_run else recorder.record,
    )
    try:
        with _progress(launcher.progress):
            submitted = launcher.submit(handover)
    except (SubmitError, OSError) as exc:
        if not (isinstance(exc, SubmitError) and exc.started):
            remove_job_dir(written)  # refused before anything ran in it
        if recorder.warning:
            typer.echo(f"warning: {display(recorder.warning)}", err=True)
        if isinstance(exc, SubmitError):
            raise
        raise SubmitError(str(exc)) from None
    if dry_run:
        remove_job_dir(written)
    else:
        recorder.record(submitted.job_id or recorder.manifest.scheduler_id, submitted.details)
    typer.echo(submitted.summary)
    if not dry_run:
        if recorder.warning:
            typer.echo(f"warning: {display(recorder.warning)}", err=True)
        else:
            job = recorder.manifest.id
            typer.echo(f"recorded as job {job}: automodel-launch status {job}")


def _recorder(config: Path, prepared: PreparedJob, launcher: str) -> Recorder:
    import os

    from automodel_launch.jobs.record import Recorder

    assert prepared.document is not None and prepared.job_dir is not None
    details: dict[str, object] = {}
    if prepared.document.slurm is not None:
        cfg = prepared.document.slurm
        details = {"time": str(cfg.time), "nodes": cfg.nodes, "partition": cfg.partition}
    return Recorder.for_job(
        name=prepared.name,
        launcher=launcher,
        job_dir=prepared.job_dir,
        config=config,
        files=prepared.files,
        environ=os.environ,
        details=details,
    )


def _summary(prepared: PreparedJob) -> list[str]:
    from automodel_launch.submit.summary import summary_lines

    assert prepared.document is not None and prepared.job_dir is not None
    return summary_lines(prepared.document, prepared.job_dir, prepared.nproc_per_node)


def _progress(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr while the scheduler or SkyPilot answers (not over a local run)."""
    import contextlib

    if not text:
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(text + "...")
