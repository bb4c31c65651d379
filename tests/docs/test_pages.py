"""The README and the docs pages hold together: every link leads somewhere, every command
and option is documented on a page about that command, and the README lists every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup, TyperOption

from automodel_launch.cli.app import app
from tests.conftest import ROOT

PAGES = sorted(
    [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *(ROOT / "docs").rglob("*.md")]
)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#* *$", re.M)
ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    prose = FENCE.sub("", text(page))
    found: set[str] = set(ANCHOR.findall(prose))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(prose):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """Relative link targets in the page's prose (code blocks show text, not links)."""
    prose = FENCE.sub("", text(page))
    return [t for t in LINK.findall(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_anchor(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no such heading in {resolved.name}")
    assert broken == []


def test_the_link_check_sees_a_broken_link_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A page\n\n## What `submit` records\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#what-submit-records) [gone](c.md) [web](https://x.org/c.md)\n"
        "```\n[in code](d.md)\n```\n",
        encoding="utf-8",
    )
    assert links(page) == ["a.md#what-submit-records", "c.md"]
    assert anchors(tmp_path / "a.md") == {"a-page", "what-submit-records"}


def _commands() -> dict[str, list[str]]:
    """Every command (``config show`` for a subcommand) and its long options."""
    found: dict[str, list[str]] = {}

    def walk(group: TyperGroup, prefix: str) -> None:
        for name, command in group.commands.items():
            if isinstance(command, TyperGroup):
                walk(command, f"{prefix}{name} ")
                continue
            found[prefix + name] = [
                option
                for param in command.params
                if isinstance(param, TyperOption)
                for option in (*param.opts, *param.secondary_opts)
                if option.startswith("--") and option != "--help"
            ]

    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    walk(root, "")
    return found


COMMANDS = _commands()


def test_the_commands_are_all_seen() -> None:
    assert {"validate", "render", "submit", "jobs", "status", "config show"} <= set(COMMANDS)
    assert {"--no-strict", "--cluster", "--set"} <= set(COMMANDS["validate"])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_and_option_is_documented_with_its_command(command: str) -> None:
    """A command is documented where a page shows ``automodel-launch COMMAND``; each of its
    options must be named on one of those pages (``--no-strict`` as such, not as part of
    ``--strict``)."""
    pages = [p for p in PAGES if re.search(rf"automodel-launch {command}\b", text(p))]
    assert pages, f"no page shows `automodel-launch {command}`"
    missing = [
        option
        for option in COMMANDS[command]
        if not any(re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text(p)) for p in pages)
    ]
    assert missing == [], f"not on the pages of `{command}`: {[p.name for p in pages]}"


def test_the_readme_lists_every_docs_page() -> None:
    section = text(ROOT / "README.md").split("\n## Documentation\n", 1)[1]
    listed = {(ROOT / target).resolve() for target in LINK.findall(section)}
    pages = {p.resolve() for p in (ROOT / "docs").glob("*.md")}
    assert sorted(str(p.relative_to(ROOT)) for p in pages - listed) == []
