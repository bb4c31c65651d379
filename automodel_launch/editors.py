"""Point an editor at the JSON Schema: modelines and settings snippets.

VS Code (Red Hat's YAML extension), Neovim (``yamlls``) and Helix all run
yaml-language-server, which takes a schema from a modeline in the file's leading
comments (highest priority) or from its ``yaml.schemas`` setting (schema -> globs).
JetBrains IDEs read a ``# $schema: LOCATION`` comment (yaml-language-server 1.25
reads that spelling too) or their own JSON Schema mappings.

Where a snippet points, by default: the committed ``schemas/automodel-launch.schema.json``
when this package runs from a source checkout (an editable install), else the copy
installed with the package (``automodel_launch/schemas/``): a file that exists on this
machine, so the modeline resolves. Nothing is published at a URL by this project; the
docs say how to host the file (or commit a copy with ``schema -o``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from automodel_launch.version import __version__

Editor = Literal["vscode", "neovim", "helix", "jetbrains"]
EDITORS: tuple[Editor, ...] = ("vscode", "neovim", "helix", "jetbrains")
SCHEMA_FILE = "automodel-launch.schema.json"
REPOSITORY = "automodel-launch/automodel-launch"
RAW_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/v{{version}}/schemas/{SCHEMA_FILE}"
DEFAULT_GLOBS: tuple[str, ...] = ("examples/**/*.yaml",)
"""yaml-language-server matches a glob anywhere below the workspace (it prefixes ``**/``)."""

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class LocationError(ValueError):
    """A schema location no editor could read."""


def committed_schema() -> Path | None:
    """``schemas/automodel-launch.schema.json`` of the source checkout this package runs from."""
    path = Path(__file__).resolve().parent.parent / "schemas" / SCHEMA_FILE
    return path if path.is_file() else None


def installed_schema() -> Path:
    """The copy shipped inside the package (a test keeps it equal to the committed one)."""
    return Path(__file__).resolve().parent / "schemas" / SCHEMA_FILE


def raw_url(version: str = __version__) -> str:
    return RAW_URL.format(version=version)


def schema_location(location: str | Path | None = None, relative_to: Path | None = None) -> str:
    """The text an editor is given for the schema.

    ``location`` is a URL (kept as is) or a path; default: :func:`committed_schema`,
    else :func:`installed_schema`. A path is made absolute, or relative to ``relative_to`` (the
    document's folder for a modeline, the workspace root for settings). An absolute
    path with whitespace becomes a ``file://`` URI, since a modeline ends at a space.
    """
    if location is None:
        location = committed_schema() or installed_schema()
    if isinstance(location, str) and _URL.match(location):
        return location
    path = Path(location).expanduser().resolve()
    if relative_to is not None:
        text = Path(os.path.relpath(path, relative_to.resolve())).as_posix()
        if any(ch.isspace() for ch in text):
            raise LocationError(f"relative path {text!r} has whitespace; use an absolute path")
        return text
    if any(ch.isspace() for ch in str(path)):
        return path.as_uri()
    return path.as_posix()


def modeline(location: str, editor: Editor | None = None) -> str:
    """The first-comment line that binds one file to the schema."""
    if editor == "jetbrains":
        return f"# $schema: {location}"
    return f"# yaml-language-server: $schema={location}"


def snippet(editor: Editor, location: str, globs: Sequence[str] = DEFAULT_GLOBS) -> str:
    """What to paste into the editor's configuration (JetBrains: the file comment)."""
    if editor == "jetbrains":
        return modeline(location, "jetbrains") + "\n"
    globs = list(globs)
    if editor == "vscode":
        return json.dumps({"yaml.schemas": {location: globs}}, indent=2, ensure_ascii=False) + "\n"
    if editor == "neovim":
        items = ", ".join(_lua_string(g) for g in globs)
        return (
            "-- nvim-lspconfig; Neovim 0.11+ takes the same table in"
            ' vim.lsp.config("yamlls", {...})\n'
            'require("lspconfig").yamlls.setup({\n'
            "  settings = {\n"
            "    yaml = {\n"
            "      schemas = {\n"
            f"        [{_lua_string(location)}] = {{ {items} }},\n"
            "      },\n"
            "    },\n"
            "  },\n"
            "})\n"
        )
    if editor == "helix":
        items = ", ".join(_toml_string(g) for g in globs)
        return (
            "# languages.toml (~/.config/helix/ or .helix/ in the project)\n"
            "[language-server.yaml-language-server.config.yaml.schemas]\n"
            f"{_toml_string(location)} = [{items}]\n"
        )
    raise ValueError(f"unknown editor {editor!r}; one of {', '.join(EDITORS)}")


def _lua_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # also a valid Lua string literal


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # also a valid TOML basic string
