"""The command line: one thin module per command, one error policy for all of them."""

from __future__ import annotations

import sys


def main() -> None:
    from automodel_launch.cli import errors

    errors.handle_termination()
    code = errors.run(_dispatch)
    _freeze()
    sys.exit(code)


def _freeze() -> None:
    """Leave what the command made to the end of the process, unwalked: Python collects
    garbage once more as it ends, over every object alive, which costs a one-file
    ``validate`` a fifth of its time; frozen objects are left out of it. (Exit handlers
    still run and buffered output is still written.)"""
    import gc

    gc.freeze()


def _dispatch() -> int:
    from automodel_launch.cli import output

    output.install()
    if sys.argv[1:2] == ["validate"]:
        from automodel_launch.cli.fast import validate

        code = validate(sys.argv[2:])
        if code is not None:
            return code
    elif sys.argv[1:2] == ["jobs"]:
        from automodel_launch.cli.jobs_list import fast

        code = fast(sys.argv[2:])
        if code is not None:
            return code
    from automodel_launch.cli.app import run_app

    return run_app(sys.argv[1:])
