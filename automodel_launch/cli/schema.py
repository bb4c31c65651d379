"""``automodel-launch schema``: the JSON Schema editors use, and how to point an editor at it.

``schema [-o FILE]`` prints (or writes) the schema. ``--modeline`` prints the comment
that binds one file to it; ``--editor NAME`` the settings snippet for that editor.
With ``-o`` as well, the snippet points at FILE. Logic lives in
:mod:`automodel_launch.editors`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

EDITOR_NAMES = "vscode, neovim, helix or jetbrains"


def command(
    output: Annotated[
        Optional[Path],  # noqa: UP045 (typer reads the annotation at run time)
        typer.Option("--output", "-o", help="Write the schema to FILE instead of printing it."),
    ] = None,
    modeline: Annotated[
        bool,
        typer.Option(
            "--modeline", help="Print the comment that binds one file to the schema instead."
        ),
    ] = False,
    editor: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--editor",
            "-e",
            help=f"Print the settings snippet for {EDITOR_NAMES} instead "
            "(with --modeline: that editor's comment).",
            show_default=False,
        ),
    ] = None,
    location: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--location",
            help="Schema path or URL the snippet points at. Default: FILE with -o, else the "
            "committed schemas/ file of a source checkout, else its GitHub raw URL.",
            show_default=False,
        ),
    ] = None,
    relative_to: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--relative-to",
            help="Write a local schema path relative to DIR: the file's folder for a "
            "modeline, the workspace root for settings.",
            show_default=False,
        ),
    ] = None,
    globs: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--glob",
            help="Files the settings bind to the schema (repeatable). Default: examples/**/*.yaml",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the JSON Schema (draft 2020-12), or the editor snippet that uses it."""
    from automodel_launch.schema import schema_text

    if output is not None:
        write_output(output, schema_text())
    if not modeline and editor is None:
        if output is None:
            sys.stdout.write(schema_text())
        return
    sys.stdout.write(_snippet(modeline, editor, location or output, relative_to, globs))


def write_output(output: Path, text: str) -> None:
    """Write ``text`` to ``output`` as a shell redirection would, but all or nothing.

    A symlink is followed (its target is replaced, the link stays); a device or pipe
    is written in place; a regular file is replaced through a temporary file beside
    it, removed again if anything fails. A directory or a missing folder is a usage
    error.
    """
    import errno
    import os
    import stat
    import tempfile

    target = output.resolve()
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise typer.BadParameter(f"{output} is a directory; name a file", param_hint="--output")
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "w", encoding="utf-8") as stream:
            stream.write(text)
        return
    if not target.parent.is_dir():
        raise typer.BadParameter(f"no such directory: {output.parent}", param_hint="--output")
    if mode is not None and not os.access(target, os.W_OK):  # as ``>`` would refuse it
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(output))
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:  # a read-only folder: name the file asked for, not the temporary
        raise type(exc)(exc.errno, exc.strerror, str(output)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, stat.S_IMODE(mode) if mode is not None else 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _snippet(
    modeline: bool,
    editor: str | None,
    location: str | Path | None,
    relative_to: Path | None,
    globs: list[str] | None,
) -> str:
    from automodel_launch import editors

    if editor is not None and editor not in editors.EDITORS:
        raise typer.BadParameter(f"'{editor}' is not {EDITOR_NAMES}", param_hint="--editor")
    if modeline and globs:
        raise typer.BadParameter("a modeline binds its own file; drop --glob", param_hint="--glob")
    try:
        where = editors.schema_location(location, relative_to)
    except editors.LocationError as exc:
        raise typer.BadParameter(str(exc), param_hint="--relative-to") from None
    name = editor if editor in editors.EDITORS else None
    if modeline:
        return editors.modeline(where, name) + "\n"
    assert name is not None
    return editors.snippet(name, where, globs or editors.DEFAULT_GLOBS)
