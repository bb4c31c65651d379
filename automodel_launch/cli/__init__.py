"""The command line: one thin module per command."""

from __future__ import annotations


def main() -> None:
    from automodel_launch.cli.app import app

    app()
