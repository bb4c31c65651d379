"""``automodel-launch shell CONFIG [-- COMMAND...]``: a shell, or COMMAND, in the job's
environment (Slurm: in an allocation, on one node unless ``--nodes``); exit with its
exit status."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.cli.common import ProfileOption, RemoteOption, SetOption


def command(
    config: Annotated[Path, typer.Argument(help="Recipe YAML.")],
    words: Annotated[
        Optional[list[str]],  # noqa: UP045 (typer reads the annotation at run time)
        typer.Argument(
            help="After --: the command to run (as argv; no shell in between); "
            "none: an interactive shell.",
            metavar="[-- COMMAND...]",
            show_default=False,
        ),
    ] = None,
    nodes: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--nodes", min=1, help="Slurm: nodes to allocate (default 1)."),
    ] = None,
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    sets: SetOption = None,
    profile: ProfileOption = None,
    remote: RemoteOption = None,
) -> None:
    """Open a shell (or run COMMAND) with the recipe's container, mounts, environment and
    resources; exit with its exit status."""
    from automodel_launch.cli.common import layers, load_settings, report_problems
    from automodel_launch.job_shell import open_shell
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.prepare import EntryChoice

    settings = load_settings(check_paths=check_paths)
    plan = plan_jobs(config, settings, entry=EntryChoice(), layers=layers(profile, sets))
    report_problems(plan.report, settings)
    assert plan.document is not None  # a report without errors has its document
    from automodel_launch.remote.target import aim

    session = aim(plan, remote, None)
    if session is None:
        raise typer.Exit(open_shell(plan.document, words or [], nodes))
    from automodel_launch.remote.job_shell import open_remote_shell
    from automodel_launch.remote.session import connected

    with connected(session):
        raise typer.Exit(open_remote_shell(plan.document, words or [], nodes, session))
