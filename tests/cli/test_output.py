"""The output funnel: what any command prints is cleaned, whoever forgot to."""

from __future__ import annotations

import io

import pytest

from automodel_launch.cli.output import CleanStream
from tests.hostile.tokens import make

TOKEN = make("hugging-face", 1).value  # generated: no credential-like literal in the tree


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_token_written_in_two_pieces_is_masked() -> None:
    sink = io.StringIO()
    stream = CleanStream(sink, environ={})
    stream.write("token " + TOKEN[:10])
    stream.write(TOKEN[10:] + " end\n")
    assert sink.getvalue() == "token *** end\n"


def test_a_secret_variable_value_is_masked_anywhere() -> None:
    sink = io.StringIO()
    stream = CleanStream(sink, environ={"MY_PASSWORD": "correct horse", "HOME": "/root/x1"})
    stream.write("said correct horse at /root/x1\n")
    assert sink.getvalue() == "said *** at /root/x1\n"


def test_a_short_secret_value_is_not_a_mask_for_every_word() -> None:
    sink = io.StringIO()
    CleanStream(sink, environ={"API_KEY": "abc"}).write("abc\n")
    assert sink.getvalue() == "abc\n"


def test_controls_are_escaped_when_piped() -> None:
    sink = io.StringIO()
    stream = CleanStream(sink, environ={})
    stream.write("a\x1b]0;title\x07b\tc\r\x1b[31mred\n")
    assert sink.getvalue() == "a\\x1b]0;title\\x07b\tc\r\\x1b[31mred\n"


def test_a_terminal_keeps_colours_and_cursor_moves_but_no_osc() -> None:
    sink = Terminal()
    stream = CleanStream(sink, environ={})
    stream.write("\x1b[1;31mred\x1b[0m \x1b[2K\x1b[1A \x1b]52;c;ZXZpbA==\x07 \x1b[6n\n")
    assert sink.getvalue() == (
        "\x1b[1;31mred\x1b[0m \x1b[2K\x1b[1A \\x1b]52;c;ZXZpbA==\\x07 \\x1b[6n\n"
    )


def test_flush_writes_what_is_held_back() -> None:
    sink = io.StringIO()
    stream = CleanStream(sink, environ={})
    stream.write("no newline")
    assert sink.getvalue() == ""
    stream.flush()
    assert sink.getvalue() == "no newline"


def test_there_is_no_way_around_it() -> None:
    stream = CleanStream(io.StringIO(), environ={})
    with pytest.raises(AttributeError):
        stream.buffer  # noqa: B018


def test_install_covers_print_and_stderr_of_any_code() -> None:
    """What a command forgets to clean is cleaned all the same: the funnel is installed
    in front of both streams, for print() as for typer.echo."""
    import os
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "from automodel_launch.cli import output\n"
        "output.install()\n"
        "print('value', os.environ['WANDB_API_KEY'], 'shape', sys.argv[1])\n"
        "sys.stderr.write('err \\x1b]0;owned\\x07 ' + sys.argv[1] + '\\n')\n"
    )
    env = {**os.environ, "WANDB_API_KEY": "not-a-real-api-key-value"}
    done = subprocess.run(
        [sys.executable, "-c", code, TOKEN], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout == "value *** shape ***\n"
    assert done.stderr == "err \\x1b]0;owned\\x07 ***\n"
