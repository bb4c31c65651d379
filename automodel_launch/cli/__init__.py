"""The command line: one thin module per command."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["validate"]:
        from automodel_launch.cli.fast import validate

        code = validate(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    from automodel_launch.cli.app import app

    app()
