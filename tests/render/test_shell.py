"""Shell words: exact spellings, and bash reading each one back as the text it came from.

Fixed examples, so a change to the unquoted character set, the escapes or the ``~``
branches fails on every run, not only on a lucky property-test draw.
"""

from __future__ import annotations

import subprocess

import pytest

from automodel_launch.render.shell import home_path, quote, word

HOSTILE = [
    "a;b",
    "a&&b",
    "a|b",
    "a b",
    "a\tb",
    "a\nb",
    "$HOME",
    "${HOME}",
    "$(id)",
    "`id`",
    'say "hi"',
    "it's",
    "back\\slash",
    "\\$",
    '\\"',
    "*",
    "?",
    "[a]",
    "{a,b}",
    "#not a comment",
    "!",
    "a=b",
    "~",
    "~root",
    "~/x",
    "~~",
    "~+",
    "done",
    "if",
    "-n",
    "",
]


def bash_reads(word_text: str, env: dict[str, str] | None = None) -> str:
    """What bash makes of one word: printf prints it back unchanged."""
    return bash_prints("printf %s " + word_text, env)


def bash_prints(script: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "HOME": "/home/job", **(env or {})},
    )
    return result.stdout


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("plain/path-1.0_@%+:,", "plain/path-1.0_@%+:,"),
        ("X", "X"),
        ("a;b", "'a;b'"),
        ("a b", "'a b'"),
        ("a=b", "'a=b'"),
        ("", "''"),
        ("*", "'*'"),
        ("it's", "'it'\"'\"'s'"),
        ("done", "'done'"),
        ("{", "'{'"),
        ("$HOME", '"\\$HOME"'),
        ('a"$b', '"a\\"\\$b"'),
        ("a\\b", '"a\\\\b"'),
        ("`id`", '"\\`id\\`"'),
        ("a'$b", '"a\'\\$b"'),
        ("~", "\\~"),
        ("~a", "\\~a"),
        ("~root/x y", "\\~'root/x y'"),
        ("~~", "\\~\\~"),
        ("~$x", '\\~"\\$x"'),
    ],
)
def test_quote_spelling(text: str, quoted: str) -> None:
    assert quote(text) == quoted


@pytest.mark.parametrize("ch", list(' \t\n;&|<>()*?[]{}#!~="^'))
def test_every_other_character_is_single_quoted(ch: str) -> None:
    assert quote(f"a{ch}b") == f"'a{ch}b'"
    assert bash_reads(quote(f"a{ch}b")) == f"a{ch}b"


@pytest.mark.parametrize(
    "reserved",
    ["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
     "do", "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]"],
)  # fmt: skip
def test_reserved_words_are_quoted(reserved: str) -> None:
    assert quote(reserved) == f"'{reserved}'"


def test_a_tilde_after_a_colon_stays_literal_in_an_assignment() -> None:
    # bash expands ~ after ':' in assignments (X=a:~/b), so '~' is never left bare
    quoted = quote("a:~/b")
    assert quoted == "'a:~/b'"
    assert bash_prints(f'X={quoted}; printf %s "$X"') == "a:~/b"


@pytest.mark.parametrize("text", HOSTILE)
def test_bash_reads_a_quoted_word_back_unchanged(text: str) -> None:
    assert bash_reads(quote(text)) == text


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("", "''"),
        ("plain", "plain"),
        ("${B}", '"${B}"'),
        ("a ${B};c", "'a '\"${B}\"';c'"),
        ("${B,d e}", '"${B-d e}"'),
        ('${B,a"b}', '"${B-a\\"b}"'),
        ("${B,a\\b}", '"${B-a\\\\b}"'),
        ("${B,`id`}", '"${B-\\`id\\`}"'),
        ("~/${B}", '\\~/"${B}"'),
    ],
)
def test_word_spelling(text: str, rendered: str) -> None:
    assert word(text) == rendered


@pytest.mark.parametrize(
    ("text", "environ", "expected"),
    [
        ("x${B}y", {"B": "; rm -rf /"}, "x; rm -rf /y"),
        ("${B,d e}", {}, "d e"),
        ("${B,d e}", {"B": ""}, ""),
        ('${B,a"b}', {}, 'a"b'),
        ("${B,a\\b}", {}, "a\\b"),
        ("${B,`id`}", {}, "`id`"),
        ("a;${B}", {"B": "$(id)"}, "a;$(id)"),
    ],
)
def test_bash_expands_only_the_references(
    text: str, environ: dict[str, str], expected: str
) -> None:
    assert bash_reads(word(text), environ) == expected


@pytest.mark.parametrize(
    ("path", "rendered", "expanded"),
    [
        ("~", '"$HOME"', "/home/job"),
        ("~/", '"$HOME"/', "/home/job/"),
        ("~/a", '"$HOME"/a', "/home/job/a"),
        ("~/a b", "\"$HOME\"/'a b'", "/home/job/a b"),
        ("~/${B}", '"$HOME"/"${B}"', "/home/job/b"),
        ("~root/x", "\\~root/x", "~root/x"),
        ("~x", "\\~x", "~x"),
        ("/hf/${B}", '/hf/"${B}"', "/hf/b"),
        ("", "''", ""),
    ],
)
def test_home_path(path: str, rendered: str, expanded: str) -> None:
    assert home_path(path) == rendered
    assert bash_reads(rendered, {"B": "b"}) == expanded
