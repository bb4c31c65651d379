"""automodel_launch/cli/errors.py: every way a command ends maps to one exit code."""

from __future__ import annotations

import errno
import signal
from collections.abc import Callable

import pytest

from automodel_launch.cli import errors
from automodel_launch.errors import LaunchError, Reported, UsageError
from automodel_launch.explain import UnknownField
from automodel_launch.render.entry import EntryError
from automodel_launch.scaffold import InitError


def raising(exc: BaseException) -> Callable[[], int]:
    def body() -> int:
        raise exc

    return body


@pytest.mark.parametrize(
    ("exc", "code", "stderr"),
    [
        (KeyboardInterrupt(), 130, "interrupted\n"),
        (errors.Interrupted(signal.SIGTERM), 143, "terminated\n"),
        (errors.Interrupted(signal.SIGHUP), 129, "hung up\n"),
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), 141, ""),
        (
            OSError(errno.ENOSPC, "No space left on device"),
            3,
            "error: cannot write the output: No space left on device\n",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "locked/x.yaml"),
            3,
            "error: locked/x.yaml: Permission denied\n",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "x\x1b[2J/" + "hf_" + "Ab1" * 11),
            3,
            "error: x\\x1b[2J/***: Permission denied\n",
        ),
        (
            ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
            3,
            "error: Connection refused\n",
        ),
        (
            LaunchError("no such job", hint="list them: jobs"),
            1,
            "error: no such job\n    hint: list them: jobs\n",
        ),
        (UsageError("bad --entry"), 2, "error: bad --entry\n"),
        (Reported(), 1, ""),  # its problems were printed as the report
        (InitError("r.yaml already has slurm:"), 1, "error: r.yaml already has slurm:\n"),
        (EntryError("the entry point is empty"), 2, "error: the entry point is empty\n"),
        (UnknownField("no field slurm.nodse"), 2, "error: no field slurm.nodse\n"),
        (
            ValueError("secret hf_value"),
            3,
            "error: unexpected ValueError (a bug in automodel-launch)\n"
            "    hint: rerun with AUTOMODEL_LAUNCH_DEBUG=1 to see the traceback, and report it\n",
        ),
    ],
)
def test_each_ending_has_its_code(
    capsys: pytest.CaptureFixture[str], exc: BaseException, code: int, stderr: str
) -> None:
    assert errors.run(raising(exc)) == code
    assert capsys.readouterr().err == stderr


def test_a_normal_ending_keeps_its_code() -> None:
    assert errors.run(lambda: 0) == 0
    assert errors.run(lambda: 1) == 1


def test_termination_signals_raise_where_the_program_is(monkeypatch: pytest.MonkeyPatch) -> None:
    installed: dict[int, object] = {}
    monkeypatch.setattr(signal, "getsignal", lambda signum: signal.SIG_DFL)
    monkeypatch.setattr(
        signal, "signal", lambda signum, handler: installed.update({signum: handler})
    )
    errors.handle_termination()
    assert set(installed) == {signal.SIGTERM, signal.SIGHUP}
    handler = installed[signal.SIGTERM]
    assert callable(handler)
    with pytest.raises(errors.Interrupted) as caught:
        handler(signal.SIGTERM, None)
    assert caught.value.signum == signal.SIGTERM


def test_an_ignored_signal_stays_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    installed: dict[int, object] = {}
    monkeypatch.setattr(signal, "getsignal", lambda signum: signal.SIG_IGN)
    monkeypatch.setattr(
        signal, "signal", lambda signum, handler: installed.update({signum: handler})
    )
    errors.handle_termination()
    assert installed == {}
