"""``automodel-launch status JOB``: state, reason, nodes, elapsed, exit code, log path; of a
sweep, a table of its points and their values."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus

WATCH_SECONDS = 2.0


def command(
    job: Annotated[
        str, typer.Argument(help="Job or sweep: id, scheduler id, job directory or name.")
    ],
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep showing the status until the job ends.")
    ] = False,
    output_format: Annotated[
        str,
        typer.Option("--format", help="text or json (one JOB object; with --watch, one a line)."),
    ] = "text",
    sort: Annotated[
        str | None,
        typer.Option(
            "--sort",
            help="A sweep's points ordered by point, state, step, loss, val_loss, tps_per_gpu, "
            "elapsed or a swept key (default: val_loss once a point has one).",
        ),
    ] = None,
    plot: Annotated[
        bool,
        typer.Option("--plot", help="Draw the loss curves in the terminal (the plot extra)."),
    ] = False,
    plot_file: Annotated[
        Path | None,
        typer.Option(
            "--plot-file",
            help="Write the loss curves to FILE: .png, .svg, .pdf or .html (the plot extra).",
            metavar="FILE",
        ),
    ] = None,
) -> None:
    """Show one job's status (or a sweep's points); pending reasons are explained."""
    import json
    import sys
    import time

    from automodel_launch import api
    from automodel_launch.jobs import view
    from automodel_launch.jobs.sweeps import Sweep

    if output_format not in ("text", "json"):
        raise typer.BadParameter("use text or json", param_hint="--format")
    plots = _plots_checked(plot, plot_file, watch, output_format)
    target = api.find(job)  # a JobError, ManifestError or RegistryError (exit 1)
    if isinstance(target, Sweep):
        _sweep(target, watch, output_format, sort, plots)
        return
    if sort is not None:
        from automodel_launch.errors import UsageError

        raise UsageError(f"--sort: {job} is one job; --sort orders a sweep's points")
    manifest = target
    status = api.status(manifest)
    if not watch:
        if output_format == "json":
            sys.stdout.write(view.status_json(status))
        else:
            typer.echo("\n".join(view.status_lines(status)))
        _draw(status, plots)
        return
    if output_format == "json":
        last = None
        while True:
            line = json.dumps(status.to_json())
            if (status.state, status.reason) != last:
                typer.echo(line)
                last = (status.state, status.reason)
            if status.finished:
                return
            time.sleep(WATCH_SECONDS)
            status = api.status(manifest)
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console()
    with Live(Text("\n".join(view.status_lines(status))), console=console) as live:
        while not status.finished:
            time.sleep(WATCH_SECONDS)
            status = api.status(manifest)
            live.update(Text("\n".join(view.status_lines(status))))


def _plots_checked(
    plot: bool, plot_file: Path | None, watch: bool, output_format: str
) -> tuple[bool, Path | None] | None:
    """What is to be drawn, checked before anything is read: the options go together, the
    file can be written, the libraries are installed."""
    if not plot and plot_file is None:
        return None
    from automodel_launch.errors import UsageError
    from automodel_launch.progress import plot as charts

    if watch:
        raise UsageError("--plot and --plot-file draw once: not with --watch")
    if plot and output_format == "json":
        raise UsageError("--plot draws on standard output: not with --format json",
                         hint="write the chart to a file with --plot-file")  # fmt: skip
    if plot_file is not None:
        charts.checked_path(plot_file)
    charts.require(terminal=plot, file=plot_file is not None)
    return plot, plot_file


def _draw(shown: JobStatus | SweepStatus, plots: tuple[bool, Path | None] | None) -> None:
    """The chart in the terminal after the status, and the file written (said on stderr)."""
    if plots is None:
        return
    import sys

    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.progress import plot as charts

    chart = charts.job_chart(shown) if isinstance(shown, JobStatus) else charts.sweep_chart(shown)
    terminal, path = plots
    if terminal:
        is_terminal = sys.stdout.isatty()
        width = charts.terminal_width(is_terminal)
        typer.echo("")
        typer.echo(charts.terminal_text(chart, width=width, color=is_terminal))
    if path is not None:
        charts.write_file(chart, path)
        typer.echo(f"wrote the loss curves to {path}", err=True)


def _sweep(
    sweep: Sweep,
    watch: bool,
    output_format: str,
    sort: str | None,
    plots: tuple[bool, Path | None] | None,
) -> None:
    """The sweep's points, one scheduler query for all of them (each refresh, watching)."""
    import json
    import sys
    import time

    from rich.console import Console, Group
    from rich.text import Text

    from automodel_launch import api
    from automodel_launch.jobs import view

    def now() -> SweepStatus:
        return api.status(sweep)

    def finished(shown: SweepStatus) -> bool:
        return all(s.finished for s in shown.points)

    shown = now()
    if sort is not None:
        from automodel_launch.progress.compare import sort_problem

        problem = sort_problem(sort, shown.points)
        if problem is not None:
            from automodel_launch.errors import UsageError

            raise UsageError(f"--sort {sort!r}: {problem}")  # reported masked, as every error
    if output_format == "json":
        if not watch:
            sys.stdout.write(view.sweep_json(shown, sort))
            _draw(shown, plots)
            return
        last = None
        while True:
            if shown.counts != last:
                typer.echo(json.dumps(shown.to_json(sort)))
                last = shown.counts
            if finished(shown):
                return
            time.sleep(WATCH_SECONDS)
            shown = now()

    def rendered(shown: SweepStatus) -> Group:
        return Group(
            Text("\n".join(view.sweep_lines(shown))), Text(""), view.sweep_table(shown, sort)
        )

    console = Console()
    if not console.is_terminal:
        console = Console(width=400)
    if not watch:
        console.print(rendered(shown))
        _draw(shown, plots)
        return
    from rich.live import Live

    with Live(rendered(shown), console=console) as live:
        while not finished(shown):
            time.sleep(WATCH_SECONDS)
            shown = now()
            live.update(rendered(shown))
