"""The house rules on imports: data flows CLI -> load -> validate -> render -> submit.

Read from the source with ``ast`` (every import, including those under TYPE_CHECKING
and inside functions), so a new import that crosses a floor fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "automodel_launch"


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def modules(under: str) -> list[Path]:
    base = PACKAGE / under
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def project_imports(path: Path) -> set[str]:
    return {name for name in imports_of(path) if name.startswith("automodel_launch")}


def crosses(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        name
        for name in imports_of(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    )


@pytest.mark.parametrize("path", modules("config"), ids=lambda p: p.name)
def test_models_never_import_the_cli_reporters_or_rich(path: Path) -> None:
    forbidden = (
        "automodel_launch.cli",
        "automodel_launch.report",
        "automodel_launch.render",
        "automodel_launch.handover",
        "rich",
        "typer",
    )
    assert crosses(path, forbidden) == []


@pytest.mark.parametrize("path", modules("report"), ids=lambda p: p.name)
def test_reporters_read_results_not_the_validator(path: Path) -> None:
    allowed = (
        "automodel_launch.diagnostics",
        "automodel_launch.results",
        "automodel_launch.report",
        "automodel_launch.secrets",
    )
    allowed += ("automodel_launch.settings.OutputFormat",)
    extra = [
        name
        for name in project_imports(path)
        if name != "automodel_launch.settings" and not name.startswith(allowed)
    ]
    assert extra == []


LAUNCHER_RENDERERS = [
    PACKAGE / "launchers" / "local" / "render.py",
    PACKAGE / "launchers" / "skypilot" / "render.py",
    PACKAGE / "launchers" / "slurm" / "render.py",
    PACKAGE / "launchers" / "slurm" / "requeue.py",
]
"""Each launcher's renderer, in its own package beside its submitter and backend."""


@pytest.mark.parametrize(
    "path", modules("render") + LAUNCHER_RENDERERS, ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_renderers_start_nothing(path: Path) -> None:
    forbidden = ("subprocess", "automodel_launch.handover", "automodel_launch.cli", "sky", "os")
    assert crosses(path, forbidden) == []


@pytest.mark.parametrize("module", ["loading/env.py", "secrets.py", "interrupts.py"])
def test_bottom_modules_import_nothing_of_the_project(module: str) -> None:
    assert project_imports(PACKAGE / module) == set()


@pytest.mark.parametrize("path", modules("diagnostics") + modules("results"), ids=str)
def test_the_bottom_floor_stands_alone(path: Path) -> None:
    runtime = {
        name
        for name in project_imports(path)
        if not name.startswith(("automodel_launch.diagnostics", "automodel_launch.secrets"))
    }
    # results.py names the loaded file and the document for type checking only
    assert runtime <= {
        "automodel_launch.config.document",
        "automodel_launch.config.document.LaunchDocument",
        "automodel_launch.loading",
        "automodel_launch.loading.LoadedFile",
    }


LSP_LIBRARIES = ("pygls", "lsprotocol")


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.name))
def test_only_the_language_server_imports_pygls(path: Path) -> None:
    """pygls and lsprotocol (the ``lsp`` extra) live in the lsp room and its thin command."""
    inside = path.is_relative_to(PACKAGE / "lsp") or path == PACKAGE / "cli" / "lsp.py"
    if not inside:
        assert crosses(path, LSP_LIBRARIES) == []


@pytest.mark.parametrize("path", modules("lsp"), ids=lambda p: p.name)
def test_the_language_server_reuses_the_validator_not_the_cli(path: Path) -> None:
    forbidden = (
        "automodel_launch.cli",
        "automodel_launch.report",
        "automodel_launch.render",
        "automodel_launch.handover",
        "rich",
        "typer",
    )
    assert crosses(path, forbidden) == []


@pytest.mark.parametrize("path", modules("launchers/slurm/cluster"), ids=lambda p: p.name)
def test_preflight_reads_the_cluster_and_reports_nothing_itself(path: Path) -> None:
    """The cluster room makes diagnostics; the CLI shows them (and renders the script)."""
    forbidden = (
        "automodel_launch.cli",
        "automodel_launch.report",
        "automodel_launch.render",
        "automodel_launch.handover",
        "rich",
        "typer",
    )
    assert crosses(path, forbidden) == []


def test_no_other_room_imports_the_language_server() -> None:
    users = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(PACKAGE / "lsp") and crosses(path, ("automodel_launch.lsp",))
    ]
    assert users == ["cli/lsp.py"]


JOB_TRACKING = ("automodel_launch.jobs", "sqlite3", "platformdirs")
VALIDATE_RENDER_SCHEMA = [
    *modules("config"), *modules("loading"), *modules("rules"), *modules("render"),
    *LAUNCHER_RENDERERS,
    *modules("report"), *modules("validation"), *modules("schema"), *modules("prepare"),
    *modules("cli/validate"), *modules("cli/render"), *modules("cli/schema"), *modules("cli/fast"),
    *modules("commands/plan"), *modules("commands/render"), *modules("commands/validate"),
]  # fmt: skip


@pytest.mark.parametrize("path", VALIDATE_RENDER_SCHEMA, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_validate_render_and_schema_never_import_job_tracking(path: Path) -> None:
    assert crosses(path, JOB_TRACKING) == []


@pytest.mark.parametrize(
    "path",
    modules("config") + modules("loading") + modules("rules") + modules("validation")
    + modules("diagnostics") + modules("results") + modules("cli/fast"),
    ids=str,
)  # fmt: skip
def test_the_validate_path_never_reaches_the_cluster(path: Path) -> None:
    forbidden = ("automodel_launch.launchers.slurm.cluster", "automodel_launch.commands.preflight")
    assert crosses(path, forbidden) == []


# ------------------------------------------------------------------ one door
THIN_COMMANDS = ["cli/submit.py", "cli/rerun.py", "cli/render.py", "cli/validate.py", "cli/fast.py"]
"""Command modules that parse options, call :mod:`automodel_launch.commands` (or the API)
and print what it returns."""
INTERNALS = (
    "automodel_launch.plan", "automodel_launch.handover", "automodel_launch.render",
    "automodel_launch.remote", "automodel_launch.launchers",
    "automodel_launch.jobdir", "automodel_launch.validation", "automodel_launch.prepare",
    "automodel_launch.snapshot",
)  # fmt: skip
"""What a submit, render or validate is made of: the commands' sequences use them."""
OPTION_VALUES = {"automodel_launch.prepare.EntryChoice", "automodel_launch.snapshot.CodeOptions"}
"""Values an option is read into (the entry point, the snapshot's options)."""


def imported_names(path: Path) -> list[str]:
    """Each name ``path`` imports (``module.name`` for ``from module import name``), at
    the top, inside functions and under TYPE_CHECKING alike."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def shortcuts(path: Path) -> list[str]:
    """The names ``path`` takes from the commands' parts, option values aside."""
    return [
        name for name in imported_names(path)
        if name.startswith(tuple(f + "." for f in INTERNALS)) and name not in OPTION_VALUES
    ]  # fmt: skip


@pytest.mark.parametrize("module", THIN_COMMANDS)
def test_the_command_line_goes_through_one_door(module: str) -> None:
    """submit, rerun, render and validate on the command line take no shortcut to what
    their sequences are made of: they reach it through the commands (or the API)."""
    assert shortcuts(PACKAGE / module) == []
    names = imported_names(PACKAGE / module)
    assert any(n.startswith(("automodel_launch.commands.", "automodel_launch.api")) for n in names)


def test_the_door_check_sees_every_kind_of_shortcut(tmp_path: Path) -> None:
    shortcut = tmp_path / "shortcut.py"
    shortcut.write_text(
        "from typing import TYPE_CHECKING\n"
        "from automodel_launch.prepare import EntryChoice\n"
        "if TYPE_CHECKING:\n"
        "    from automodel_launch.plan.plan import JobPlan\n"
        "def command() -> None:\n"
        "    from automodel_launch.plan.submit import submit_plan\n"
        "    import automodel_launch.remote.target\n"
        "    from automodel_launch.launchers.slurm.cluster import preflight\n"
    )
    assert shortcuts(shortcut) == [
        "automodel_launch.plan.plan.JobPlan", "automodel_launch.plan.submit.submit_plan",
        "automodel_launch.remote.target", "automodel_launch.launchers.slurm.cluster.preflight",
    ]  # fmt: skip


@pytest.mark.parametrize("path", modules("commands"), ids=lambda p: p.name)
def test_the_commands_print_nothing(path: Path) -> None:
    """What a command shows is its caller's: the commands return data, and take hooks."""
    forbidden = ("automodel_launch.cli", "automodel_launch.report", "rich", "typer", "click")
    assert crosses(path, forbidden) == []
    assert "print(" not in path.read_text(encoding="utf-8")


# ------------------------------------------------------------------ the launchers
LAUNCHER_CLASSES = sorted(
    p / "__init__.py" for p in (PACKAGE / "launchers").iterdir() if (p / "__init__.py").is_file()
)
"""One package a launcher, its class in the package's ``__init__`` (beside them: the table,
the dispatch, the id grammars)."""


def loaded_on_import(path: Path) -> set[str]:
    """What importing the module loads: its top-level imports, without those under
    ``if TYPE_CHECKING:`` (an import inside a function waits for the call)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_every_launcher_class_is_in_the_table() -> None:
    table = (PACKAGE / "launchers" / "__init__.py").read_text(encoding="utf-8")
    assert [p.parent.name for p in LAUNCHER_CLASSES] == ["local", "skypilot", "slurm"]
    assert all(
        f"from automodel_launch.launchers.{p.parent.name} import" in table for p in LAUNCHER_CLASSES
    )


@pytest.mark.parametrize("path", LAUNCHER_CLASSES, ids=lambda p: p.parent.name)
def test_each_launcher_calls_its_renderer_submitter_and_backend(path: Path) -> None:
    """The calls are imports the checks here (and the type checker) see, not strings."""
    called = {
        name.rsplit(".", 1)[0]
        for name in project_imports(path)
        if name.startswith(f"automodel_launch.launchers.{path.parent.name}.")
    }
    expected = {"render", "submit", "jobs"}
    assert {f"automodel_launch.launchers.{path.parent.name}.{m}" for m in expected} <= called


TABLE = [PACKAGE / "launchers" / "__init__.py", PACKAGE / "launchers" / "ids.py"]
TABLE += LAUNCHER_CLASSES
"""The table of launchers, the id grammars and the launchers' classes (``dispatch.py`` is
the job commands' use of it)."""


@pytest.mark.parametrize("path", TABLE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_launcher_table_loads_only_what_it_is_asked_for(path: Path) -> None:
    """Importing the table is cheap: the SkyPilot SDK, the renderers, the scheduler's
    backends and job tracking load when a launcher is called, not when it is listed."""
    allowed = {
        "__future__", "collections.abc", "dataclasses", "pathlib", "re", "typing",
        "automodel_launch.launcher_names", "automodel_launch.layout",
        "automodel_launch.launchers.local", "automodel_launch.launchers.skypilot",
        "automodel_launch.launchers.slurm",
    }  # fmt: skip
    assert loaded_on_import(path) - allowed == set()


@pytest.mark.parametrize(
    "path", modules("launchers"), ids=lambda p: str(p.relative_to(PACKAGE / "launchers"))
)
def test_launchers_never_reach_the_cli_or_the_reporters(path: Path) -> None:
    forbidden = ("automodel_launch.cli", "automodel_launch.report", "rich", "typer")
    if path in TABLE:
        forbidden += ("sky",)  # the SDK loads when SkyPilot is called, not when it is listed
    assert crosses(path, forbidden) == []


def uses_the_table(path: Path) -> bool:
    """``path`` imports the launchers' table or a launcher's class (the job ids' grammar
    and the job commands' dispatch sit beside them, and are not the table; a launcher's
    own modules, its renderer or its cluster reader, are not either)."""
    classes = {f"automodel_launch.launchers.{p.parent.name}" for p in LAUNCHER_CLASSES}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        names = [alias.name for alias in node.names]
        if node.module == "automodel_launch.launchers" and set(names) - {"ids", "dispatch"}:
            return True
        if node.module in classes and any(name[:1].isupper() for name in names):
            return True
    return False


def test_only_the_table_and_its_users_import_the_launchers() -> None:
    """render, prepare, submit and the job commands reach a launcher through the table;
    the validate path never does (it reads :mod:`automodel_launch.launcher_names`)."""
    users = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if not path.is_relative_to(PACKAGE / "launchers") and uses_the_table(path)
    )
    assert users == [
        "commands/plan.py", "commands/preflight.py", "commands/submit.py", "commands/summary.py",
        "job_shell.py", "plan/after.py", "plan/arrays.py",
        "plan/driver.py", "plan/plan.py", "plan/render.py", "plan/submit.py",
        "prepare.py",
        "remote/job_shell.py", "remote/target.py",
        "render/job.py",
        "snapshot/summary.py",
    ]  # fmt: skip
    validate_path = (
        modules("config") + modules("loading") + modules("rules") + modules("validation")
        + modules("cli/validate") + modules("cli/fast") + modules("commands/validate")
    )  # fmt: skip
    assert [str(p) for p in validate_path if crosses(p, ("automodel_launch.launchers",))] == []
    dispatchers = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if crosses(path, ("automodel_launch.launchers.dispatch",))
    )
    # commands/submit.py: rerun reads the first job's rate for the new job's forecast
    assert dispatchers == ["api.py", "cli/logs.py", "commands/submit.py", "jobs/listing.py"]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, known: set[str]) -> set[str]:
    """The project's modules ``path`` imports when it runs (at the top or inside a
    function; not under ``if TYPE_CHECKING:``), each the deepest module the name holds."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # a submodule named (from pkg import mod) is that module, anything else the
            # module it is taken from
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def import_circles() -> list[list[str]]:
    """The package's import circles (strongly connected groups of two or more modules),
    each sorted, smallest first."""
    files = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    known = set(files)
    graph = {name: _runtime_imports(path, known) - {name} for name, path in files.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(name: str) -> None:  # Tarjan's strongly connected components
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in sorted(graph[name]):
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return sorted(circles, key=lambda group: (len(group), group))


def test_no_import_circle_but_the_settings_pair() -> None:
    """Imports inside functions counted: the settings and their sources are the one
    circle, deliberate (the sources are read with the settings' own fields)."""
    assert import_circles() == [["automodel_launch.settings", "automodel_launch.settings_sources"]]
