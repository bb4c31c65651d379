"""``automodel-launch init RECIPE --launcher slurm|skypilot|none [--profile NAME]``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from automodel_launch.cli.common import ProfileOption
from automodel_launch.launcher_names import WITH_SECTION

SECTIONS: dict[str, str | None] = {**{name: name for name in WITH_SECTION}, "none": None}
"""--launcher -> the section init writes (none: interactive, no section)."""


def command(
    recipe: Annotated[Path, typer.Argument(help="Existing recipe YAML to add the section to.")],
    launcher: Annotated[
        str,
        typer.Option("--launcher", "-l", help="slurm, skypilot, or none (interactive torchrun)."),
    ],
    profile: ProfileOption = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a launcher section the recipe has.")
    ] = False,
    stdout: Annotated[
        bool, typer.Option("--stdout", help="Print the result instead of writing RECIPE.")
    ] = False,
) -> None:
    """Add a launcher section (with the schema modeline and the profile's values) to RECIPE.

    Every line already in RECIPE is kept as written; the result must validate clean,
    else nothing is written (exit 1).
    """
    from automodel_launch.cli.common import load_settings, report_problems
    from automodel_launch.editors import modeline, schema_location
    from automodel_launch.errors import Reported
    from automodel_launch.loading import load_file
    from automodel_launch.results import FileReport
    from automodel_launch.scaffold import add_section, section_values
    from automodel_launch.validation import validate_text

    if launcher not in SECTIONS:
        raise typer.BadParameter(
            f"'{launcher}' is not slurm, skypilot or none", param_hint="--launcher"
        )
    section = SECTIONS[launcher]
    settings = load_settings(check_paths=False, check_env=False)
    result = load_file(recipe)
    if result.loaded is None:
        report_problems(FileReport(str(recipe), result.diagnostics), settings)
        raise Reported
    values, note = _profile_values(profile, section)
    added = add_section(  # an InitError (a section there already): exit 1
        result.loaded,
        section,
        {} if section is None else section_values(section, values),
        modeline=modeline(schema_location()),
        force=force,
        note=note,
    )
    report = validate_text(added.text, str(recipe), settings)
    report_problems(report, settings)  # exits 1 on an error: nothing is written
    if stdout:
        sys.stdout.write(added.text)
        return
    from automodel_launch.cli.schema import write_output

    write_output(recipe, added.text)
    verb = "replaced the launcher section of" if added.replaced else "added to"
    what = "the schema modeline" if section is None else f"{section}:"
    typer.echo(f"{what} {verb} {recipe}", err=True)


def _profile_values(
    name: str | None, section: str | None
) -> tuple[dict[str, Any] | None, str | None]:
    if not name or section is None:
        return None, None
    from automodel_launch.cli.common import load_settings, report_problems
    from automodel_launch.profiles.files import find, profile_files, unknown
    from automodel_launch.results import FileReport
    from automodel_launch.secrets import display

    files = profile_files()
    found = find(name, files)
    # a file that cannot be read says why before its profiles are missed
    problems = [*(d for f in files for d in f.diagnostics), *(found.problems if found else [])]
    if problems:
        path = found.file.path if found else next(f.path for f in files if f.diagnostics)
        report_problems(FileReport(path, problems), load_settings())
    if found is None:
        message = display(unknown(name, files, "--profile"))
        raise typer.BadParameter(message, param_hint="--profile")
    if section not in found.sections:
        have = ", ".join(f"{s}:" for s in found.sections) or "no launcher section"
        raise typer.BadParameter(
            display(f"profile '{name}' has {have}, not {section}:"), param_hint="--profile"
        )
    from automodel_launch.scaffold import NOTE_PREFIX

    note = display(f"{NOTE_PREFIX.removeprefix('# ')}{name} ({found.file.path})")
    return found.sections[section], note
