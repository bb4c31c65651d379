"""``automodel-launch validate FILE...``: exit 0 clean, 1 on errors, 2 on usage errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.cli.common import ProfileOption, RemoteOption, SetOption

FormatOption = Annotated[
    Optional[str],  # noqa: UP045 (typer reads the annotation at run time)
    typer.Option("--format", "-f", help="Output format: text, json or github.", show_default=False),
]


def command(
    files: Annotated[list[Path], typer.Argument(help="Recipe YAML files or directories.")],
    output_format: FormatOption = None,
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    check_env: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-env/--no-check-env", help="Warn about unset ${VAR} references."),
    ] = None,
    strict: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--strict/--no-strict", help="Fail on warnings too."),
    ] = None,
    sets: SetOption = None,
    profile: ProfileOption = None,
    automodel_source: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--automodel-source",
            help="Check the recipe against the AutoModel source in this directory (a "
            "checkout, or its nemo_automodel package), read without running it.",
            exists=True,
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    cluster: Annotated[
        bool,
        typer.Option(
            "--cluster",
            help="Also ask the live Slurm cluster (partitions, limits, GPUs, pyxis, "
            "sbatch --test-only) about every slurm: config.",
        ),
    ] = False,
    remote: RemoteOption = None,
) -> None:
    """Check launcher configs; report every problem in every file at once."""
    from automodel_launch.cli.common import layers, load_settings
    from automodel_launch.commands.validate import validate
    from automodel_launch.report import write_report

    settings = load_settings(
        format=output_format,
        check_paths=check_paths,
        check_env=check_env,
        strict=strict,
        automodel_source=automodel_source,
    )
    if remote and not cluster:
        raise typer.BadParameter("--remote names the cluster --cluster asks: give both")
    given = layers(profile, sets)
    reports = validate(files, settings, given, cluster=cluster, remote=remote, spread=True)
    write_report(
        reports,
        settings.format,
        sys.stdout,
        strict=settings.strict,
        version=settings.automodel_version,
    )
    raise typer.Exit(1 if any(r.failed(settings.strict) for r in reports) else 0)
