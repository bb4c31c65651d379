"""``validate`` without typer's start-up cost, for pre-commit and editors on every save.

It understands exactly the options of :mod:`automodel_launch.cli.validate` (a test keeps
the two in step). Anything else (``--help``, a typo, a bad value) returns ``None`` and
the typer application handles the whole command line with its usual messages.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

SWITCHES: dict[str, tuple[str, bool]] = {
    "--check-paths": ("check_paths", True),
    "--no-check-paths": ("check_paths", False),
    "--check-env": ("check_env", True),
    "--no-check-env": ("check_env", False),
    "--strict": ("strict", True),
    "--no-strict": ("strict", False),
}
VALUED = {
    "--format": "format",
    "-f": "format",
    "--set": "set",
    "--profile": "profile",
    "--automodel-source": "automodel_source",
}
REPEATED = frozenset({"set"})
"""Options that may be given more than once: their values are collected in a list."""
TYPER_ONLY = frozenset({"--cluster", "--remote"})
"""Options left to the typer command: they ask the cluster, which is never fast."""


def parse(args: list[str]) -> tuple[dict[str, Any], list[Path]] | None:
    flags: dict[str, Any] = {}
    files: list[Path] = []
    rest = iter(args)
    only_files = False
    for arg in rest:
        if only_files or not arg.startswith("-") or arg == "-":
            files.append(Path(arg))
        elif arg == "--":
            only_files = True
        elif arg in SWITCHES:
            name, switch = SWITCHES[arg]
            flags[name] = switch
        elif arg in VALUED or (arg.startswith("--") and arg.partition("=")[0] in VALUED):
            option, equals, given = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            value = given if equals else next(rest, None)
            if value is None:
                return None
            name = VALUED[option]
            if name in REPEATED:
                flags.setdefault(name, []).append(value)
            else:
                flags[name] = value
        else:
            return None
    return (flags, files) if files else None


def validate(args: list[str]) -> int | None:
    """The exit code, or None to let typer handle the command line."""
    parsed = parse(args)
    if parsed is None:
        return None
    import gc
    import os

    if "automodel_source" in parsed[0]:  # read it while the rest is imported
        from automodel_launch.automodel.which import read_ahead

        read_ahead(parsed[0]["automodel_source"])
    gc.disable()  # a short run that allocates many small objects and frees them at exit
    # validate starts no other process: skip pydantic's search of installed plugins
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _answer_plugin_search()
    from automodel_launch.commands.validate import validate as check
    from automodel_launch.report import write_report
    from automodel_launch.settings import SettingsError, resolve_settings

    flags, files = parsed
    sets, profile = flags.pop("set", None), flags.pop("profile", None)
    layers = None
    if sets or profile:  # only then: the profiles room is not needed otherwise
        from automodel_launch.profiles.overrides import Layers, OverrideError, parse_override

        try:
            layers = Layers(profile or None, tuple(parse_override(s) for s in sets or ()))
        except OverrideError:
            return None  # typer says what is wrong with it
    try:
        settings = resolve_settings(**flags)
    except SettingsError:
        return None
    reports = check(files, settings, layers, spread=True)
    write_report(
        reports,
        settings.format,
        sys.stdout,
        strict=settings.strict,
        version=settings.automodel_version,
    )
    return 1 if any(r.failed(settings.strict) for r in reports) else 0


_PLUGIN_LOADER = "pydantic.plugin._loader"
_PLUGINS_VARIABLE = "PYDANTIC_DISABLE_PLUGINS"


def skip_plugin_search() -> None:
    """No pydantic plugin in this process, as for validate, for a command that starts other
    processes: their environment is left as it was."""
    import os

    if _PLUGINS_VARIABLE in os.environ:
        _answer_plugin_search()  # as the variable says
        return
    os.environ[_PLUGINS_VARIABLE] = "__all__"
    try:
        _answer_plugin_search()
    finally:
        del os.environ[_PLUGINS_VARIABLE]


def _answer_plugin_search() -> None:
    """Give pydantic's plugin loader its answer without importing it.

    With plugins disabled, pydantic's loader returns no plugins, but importing it still
    imports ``importlib.metadata`` (about 15 ms, an eighth of a one-file run). A stand-in
    answers ``get_plugins()`` with nothing, as the loader itself would; any other name
    is looked up in the real loader, imported at that moment.
    """
    import os
    import types

    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true"):
        return
    if _PLUGIN_LOADER in sys.modules:
        return
    stand_in = types.ModuleType(_PLUGIN_LOADER)

    def get_plugins() -> tuple[()]:
        return ()

    def real(name: str) -> Any:
        if name.startswith("__"):  # the import system asks for __path__, __spec__...
            raise AttributeError(name)
        import importlib

        del sys.modules[_PLUGIN_LOADER]
        return getattr(importlib.import_module(_PLUGIN_LOADER), name)

    stand_in.get_plugins = get_plugins  # type: ignore[attr-defined]
    stand_in.__getattr__ = real  # type: ignore[method-assign]
    sys.modules[_PLUGIN_LOADER] = stand_in
