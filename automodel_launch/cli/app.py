"""The Typer application; each command lives in its own module."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer
import typer.main
from typer._click.core import Command
from typer.core import TyperGroup, TyperOption

from automodel_launch.cli import (
    cancel,
    config,
    diff,
    explain,
    init,
    jobs,
    logs,
    lsp,
    render,
    rerun,
    schema,
    shell,
    status,
    submit,
    validate,
)

if TYPE_CHECKING:
    from typer._click.exceptions import ClickException

app = typer.Typer(
    name="automodel-launch",
    help="Validate, render and submit NeMo AutoModel launcher configs (Slurm, SkyPilot, torchrun).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",  # what help texts are written for (their "\\[" escapes)
)
app.command("validate")(validate.command)
app.command("render")(render.command)
app.command("schema")(schema.command)
app.command("submit")(submit.command)
app.command("lsp")(lsp.command)
app.command("jobs")(jobs.command)
app.command("status")(status.command)
app.command("logs")(logs.command)
app.command("cancel")(cancel.command)
app.command("diff")(diff.command)
app.command("rerun")(rerun.command)
app.command("explain")(explain.command)
app.command("init")(init.command)
app.command("shell")(shell.command)
app.add_typer(config.app)


def command() -> TyperGroup:
    """The application as click's command tree, each flag shown without a value type
    (typer's rich help gives ``--dry-run <bool>`` otherwise): an empty metavar."""
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    _flags_without_type(root)
    return root


def _flags_without_type(command: Command) -> None:
    # the help option is made on first use (and kept): make it now, to reach it
    flags = [*command.params, command.get_help_option(command.context_class(command))]
    for param in flags:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _flags_without_type(sub)


def run_app(args: list[str]) -> int:
    """Run the typer application and return its exit code; exceptions go to the caller.

    click's own handling (standalone mode) would exit from inside, print usage errors
    its way and turn a closed pipe into exit 1: here the errors module decides.
    """
    # typer's own copy of click raises these
    from typer import Abort
    from typer._click.exceptions import ClickException
    from typer._click.utils import PacifyFlushWrapper

    try:
        result = command().main(args, prog_name="automodel-launch", standalone_mode=False)
    except ClickException as exc:
        _show_usage_error(exc)
        return exc.exit_code
    except Abort:
        raise KeyboardInterrupt from None
    except SystemExit:
        if isinstance(sys.stdout, PacifyFlushWrapper):
            raise BrokenPipeError from None  # click swallowed it and asked for exit 1
        raise
    if result == 130:
        raise KeyboardInterrupt  # typer's code for Ctrl-C: let the errors module say so
    return result if isinstance(result, int) else 0


def _show_usage_error(exc: ClickException) -> None:
    from typer.core import HAS_RICH

    if HAS_RICH:
        from typer import rich_utils

        rich_utils.rich_format_error(exc)
    else:
        exc.show()
