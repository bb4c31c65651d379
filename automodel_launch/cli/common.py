"""What several commands share: settings from flags, usage errors, option checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Optional, TypeVar

import typer

V = TypeVar("V")

if TYPE_CHECKING:
    from automodel_launch.plan.sweep import Axis
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.results import FileReport
    from automodel_launch.settings import Settings


def load_settings(**flags: Any) -> Settings:
    """Settings with the flags the user gave on top; a bad source is a usage error (exit 2)."""
    from automodel_launch.secrets import display
    from automodel_launch.settings import SettingsError, resolve_settings

    try:
        return resolve_settings(**flags)
    except SettingsError as exc:  # it quotes variable names and paths: cleaned like any output
        raise typer.BadParameter(display(str(exc))) from None


def report_problems(report: FileReport, settings: Settings) -> None:
    """Show a file's diagnostics on stderr; stop with exit 1 when it failed."""
    import sys

    from automodel_launch.report import write_report

    if report.diagnostics:
        write_report([report], "text", sys.stderr, strict=settings.strict)
    if report.failed(settings.strict):
        from automodel_launch.errors import Reported

        raise Reported


def script_value(value: V) -> V:
    """Option callback for a value that reaches a script: no control characters.

    A newline in ``--domain`` would end an ``#SBATCH`` line and start a command; no
    quoting makes a control character safe in a header comment or a job name.
    """
    if value is None:
        return value
    from automodel_launch.secrets import control_character

    char = control_character(str(value))
    if char is not None:
        raise typer.BadParameter(
            f"it holds the control character {ord(char):#04x}, which no script line can carry"
        )
    return value


def entry_value(value: str | None) -> str | None:
    """``--entry``: a command line of at least one word (leave it out for the default)."""
    if value is None:
        return None
    script_value(value)
    import shlex

    try:
        words = shlex.split(value)
    except ValueError as exc:
        raise typer.BadParameter(f"it is not a command line ({str(exc).lower()})") from None
    if not words:
        raise typer.BadParameter("it is empty; leave --entry out to run AutoModel's entry point")
    return value


SET_HELP = (
    "Override one field, KEY=VALUE (repeatable): slurm.nodes=4, optimizer.lr=1e-5. "
    "VALUE reads as YAML, as after KEY: in the file. Wins over the recipe and the profile."
)
PROFILE_HELP = (
    "Profile from profiles.yaml (user, then site) that fills in the launcher section "
    "(default: the section's profile: key, else $AUTOMODEL_LAUNCH_PROFILE)."
)


def layers(profile: str | None, sets: list[str] | None) -> Layers | None:
    """``--profile`` and ``--set`` as one value; a malformed ``--set`` is a usage error."""
    if not profile and not sets:
        return None
    from automodel_launch.profiles.overrides import Layers, OverrideError, parse_override

    try:
        overrides = tuple(parse_override(s) for s in sets or ())
    except OverrideError as exc:
        from automodel_launch.secrets import display

        raise typer.BadParameter(display(str(exc)), param_hint="--set") from None
    return Layers(profile or None, overrides)


SetOption = Annotated[
    Optional[list[str]],  # noqa: UP045 (typer reads the annotation at run time)
    typer.Option("--set", help=SET_HELP, metavar="KEY=VALUE", show_default=False),
]
RemoteOption = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--remote",
        help="Submit to the named cluster of the profile file's clusters: over SSH "
        "(default: the profile's remote:).",
        metavar="NAME",
        show_default=False,
    ),
]
ProfileOption = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--profile", help=PROFILE_HELP, metavar="NAME", show_default=False),
]
SweepOption = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--sweep",
        metavar="KEY=V1,V2,...",
        # the backslash: rich's markup would take "[a, ...]" for a style and drop it
        help="Submit one job per value (several --sweep: every combination); values read as "
        "--set reads them; a value with a comma goes in a YAML list: 'KEY=\\[a, \"b,c\"]'.",
        show_default=False,
    ),
]
MaxParallelOption = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--max-parallel", help="A sweep: at most this many points run at once (1 to 10,000)."
    ),
]


def sweep_axes(sweeps: list[str] | None) -> list[Axis]:
    """``--sweep`` options; a malformed one is a usage error naming it."""
    from automodel_launch.plan.sweep import SweepError, parse_axis

    try:
        return [parse_axis(text) for text in sweeps or ()]
    except SweepError as exc:
        from automodel_launch.secrets import display

        raise typer.BadParameter(display(str(exc)), param_hint="--sweep") from None
