"""``automodel-launch lsp``: the language server over stdio (needs the ``lsp`` extra)."""

from __future__ import annotations

import typer


def command() -> None:
    """Run the language server on stdin/stdout (diagnostics, quick fixes, hover, completion).

    Exits 0 after the client's shutdown and exit, 1 when it stops without shutdown.
    """
    try:
        from automodel_launch.lsp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        from automodel_launch.errors import UsageError

        raise UsageError(
            "the language server needs pygls", hint="pip install 'automodel-launch[lsp]'"
        ) from None
    raise typer.Exit(serve())
