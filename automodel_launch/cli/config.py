"""``automodel-launch config show [--profile NAME] [--set KEY=VALUE] CONFIG``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.cli.common import ProfileOption, SetOption

app = typer.Typer(
    name="config",
    help="Show what a recipe's launcher section becomes with its profile and overrides.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command("show")
def show(
    config: Annotated[Path, typer.Argument(help="Recipe YAML.")],
    profile: ProfileOption = None,
    sets: SetOption = None,
    output_format: Annotated[
        Optional[str],  # noqa: UP045 (typer reads the annotation at run time)
        typer.Option("--format", "-f", help="text or json.", show_default=False),
    ] = None,
) -> None:
    """Print the merged launcher section, each value with its origin (file:line, profile,
    --set or default); problems go to stderr, exit 1 when there are errors."""
    from automodel_launch.cli.common import layers, load_settings, report_problems
    from automodel_launch.profiles.merge import MergedFile, merge
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.profiles.show import as_json, text
    from automodel_launch.validation import validate_path

    if output_format not in (None, "text", "json"):
        raise typer.BadParameter(f"'{output_format}' is not text or json", param_hint="--format")
    settings = load_settings(check_paths=False, check_env=False)
    report = validate_path(config, settings, layers=layers(profile, sets))
    merged = report.loaded
    if merged is not None and not isinstance(merged, MergedFile):
        merged, _ = merge(merged, Layers())
    if merged is not None:
        sys.stdout.write(as_json(merged) if output_format == "json" else text(merged))
    report_problems(report, settings)
