"""Function bodies left out before parsing: every signature and class statement stays."""

from __future__ import annotations

import ast
import textwrap

import pytest

from automodel_launch.automodel.extract.elide import (
    _closed,
    _def_indent,
    _first_indent,
    _header_end,
    bare_header,
    elide,
)
from automodel_launch.automodel.extract.index import parse
from automodel_launch.automodel.extract.reads import read_marks


def parameters(args: ast.arguments) -> str:
    """A function's parameters as the extractor reads them: names, kinds, and which have
    a default (not the default itself, not the annotations)."""
    positional = [*args.posonlyargs, *args.args]
    defaults = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    words = [a.arg + ("=" if d else "") for a, d in zip(positional, defaults, strict=True)]
    if args.posonlyargs:
        words.insert(len(args.posonlyargs), "/")
    words.append(f"*{args.vararg.arg}" if args.vararg else "*" if args.kwonlyargs else "")
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        words.append(arg.arg + ("=" if default is not None else ""))
    words.append(f"**{args.kwarg.arg}" if args.kwarg else "")
    return ", ".join(w for w in words if w)


def shape(tree: ast.Module) -> list[str]:
    """Every statement of the module and of its classes (at any depth), with each
    function's parameters (:func:`parameters`) but not its body."""
    found: list[str] = []

    def visit(body: list[ast.stmt], where: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                found.append(
                    f"{where}class {stmt.name}({ast.unparse(stmt.bases) if stmt.bases else ''})"
                )
                visit(stmt.body, f"{where}{stmt.name}.")
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                decorators = [ast.unparse(d) for d in stmt.decorator_list]
                found.append(f"{where}def {stmt.name}({parameters(stmt.args)}) {decorators}")
            else:
                found.append(where + ast.unparse(stmt))

    visit(tree.body, "")
    return found


def same_shape(text: str) -> str:
    text = textwrap.dedent(text)
    short = elide(text, [])
    assert shape(ast.parse(short)) == shape(ast.parse(text))
    return short


def test_a_body_becomes_an_ellipsis_and_the_header_stays() -> None:
    short = same_shape(
        """
        import os

        @decorate(x=1)
        def build(a, b: dict[str, int] = {"k": (1, 2)}, *args, c, **kwargs) -> list[
            int
        ]:  # a comment after the colon
            '''Doc.'''
            x = [
                1,
            ]
            return x

        class Loss(Base):
            size: int = 3

            def __init__(self, weight=None):
                self.weight = weight

                def inner():
                    return 1

            async def run(self):
                await thing()
        """
    )
    assert "return x" not in short and "inner" not in short and "await" not in short
    assert [line.strip() for line in short.splitlines()].count("...") == 3
    assert "def build(a, b=..., *args, c, **kwargs):\n" in short  # no annotation, no default


@pytest.mark.parametrize(
    "text",
    [
        # a string whose lines sit left of the body: the body is kept as written
        'def f():\n    x = """\ntext at column 0\ndef g():\n"""\n    return x\n\n'
        "class A:\n    pass\n",
        # a bracket continued on a shallower line
        "def f():\n    x = [\n1, 2]\n    return x\ny = 1\n",
        # a one-line function, a body on the header's line
        "def f(): return 1\ndef g(x): return x\nclass A: pass\n",
        # tabs: not read as spaces
        "def f():\n\treturn 1\n\nclass A:\n\tdef m(self, a=1):\n\t\treturn a\n",
        # a comment at column 0 inside a body, a body ending the file without a newline
        "def f():\n# note\n    return 1\n\ndef g(a,\n      b=2):\n    return a",
        # a header whose default holds a colon and brackets in strings
        "def f(a=':', b='(', c=lambda x: x):\n    return a\nz = 2\n",
        # a def word inside a name or a string
        "undef = 1\nx = 'def y(): pass'\ndef real():\n    return undef\n",
    ],
)
def test_what_cannot_be_told_apart_keeps_its_meaning(text: str) -> None:
    same_shape(text)


def test_a_function_holding_what_the_extractor_reads_is_kept_whole_with_its_nested_ones() -> None:
    text = textwrap.dedent(
        """
        def build(cfg):
            def helper():
                return 1
            return cfg.model.instantiate(tokenizer=tok)

        def other(cfg):
            return cfg.x
        """
    )
    short = elide(text, read_marks(text))
    assert "instantiate(tokenizer=tok)" in short and "return 1" in short
    assert "return cfg.x" not in short


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("def f(cfg):\n    return my_fn(batch)\n", False),  # not a configured call
        ("def f(cfg):\n    return fn(batch, **kw)\n", True),
        ("def f(kw):\n    return Cls(**kw['backend'])\n", True),
        ("def f(kw):\n    return Cls(**kw)\n", False),
        ("def __len__(self):\n    raise TypeError\n", True),
        ("def f(self):\n    return self.handle\n", False),
    ],
)
def test_what_is_read_inside_a_body(text: str, kept: bool) -> None:
    assert (elide(text, read_marks(text)) == text) is kept


def test_a_recipe_module_keeps_the_functions_reading_a_section_or_a_loader_node() -> None:
    text = "def f(self, cfg_dl):\n    del cfg_dl.shuffle\n\ndef g(self):\n    return self.cfg.rng\n"
    assert elide(text, read_marks(text)) != text
    assert elide(text, read_marks(text, recipe=True)) == text


def test_a_module_the_elision_breaks_is_parsed_as_written_and_one_python_refuses_is_none() -> None:
    assert parse("m.py", "def f():\n    return 1\n") is not None
    assert parse("m.py", "def f(:\n") is None
    assert parse("m.py", "x = 1\x00") is None


def test_the_calls_of_every_section_class_are_read() -> None:
    from automodel_launch.automodel.extract.reads import IN_BODIES
    from automodel_launch.automodel.extract.sections import SECTION_TARGETS

    words = {read.word for read in IN_BODIES}
    for candidates in SECTION_TARGETS.values():
        for target in candidates:
            assert target.rsplit(".", 1)[-1] + "(" in words


@pytest.mark.parametrize(
    ("header", "bare"),
    [
        ("def f():\n", "def f():\n"),
        (
            'def f(self, x: int = 5,  # (a comment\n    y: Optional[Dict[str, "A)"]] = None,'
            " *args: Any, **kw: Any) -> None:\n",
            "def f(self, x=..., y=..., *args, **kw):\n",
        ),
        (
            "def g(a, /, b, *, c=\")\", d: \"x,y\" = {1: 2, 3: [4]}, e='''=,''') -> T[int, str]:\n",
            "def g(a, /, b, *, c=..., d=..., e=...):\n",
        ),
        ("def h(*, key: int, other=rb'\\'', ):  # done\n", "def h(*, key, other=...):\n"),
        ("def  k (\n    a: int,\n):\n", "def  k(a):\n"),
        ("def m(a, b) -> Dict[str, int]:\n", "def m(a, b) -> Dict[str, int]:\n"),
        ("def n(a=1):\n", "def n(a=...):\n"),  # one colon, and a default to leave out
        ("def p(a , b=1):\n", "def p(a, b=...):\n"),  # a space before the comma
        ("def q(a=x==y, b=1):\n", "def q(a=..., b=...):\n"),  # '=' twice: a comparison
    ],
)
def test_a_header_keeps_its_parameters_names_kinds_and_defaults(header: str, bare: str) -> None:
    assert bare_header(header) == bare
    read = shape(ast.parse(header + "    pass\n"))
    assert shape(ast.parse(bare + "    pass\n")) == read


@pytest.mark.parametrize(
    "header",
    [
        "def f(key=lambda a, b: a):\n",  # a comma at the parameters' depth, not between them
        "def f(x=1, 'y'):\n",  # not Python: kept for the text as written to decide
        "def f(a b):\n",
        "def f(a b, c=1):\n",  # two words where one name goes, with a default to leave out
        "def f(,):\n",
        "def f[T](x: T):\n",  # a type parameter list
        "def f(a: int: str, b=1):\n",  # a second colon in one parameter: not Python
        "def f(a=1: int, b):\n",
        "def f(a=b:=1, c=2):\n",  # a walrus needs brackets in a default
        "def f(x='unclosed):\n",
        "def f(x=(1,\n",
    ],
)
def test_a_header_a_plain_reading_could_misplace_is_kept(header: str) -> None:
    assert bare_header(header) == header


def test_a_header_python_refuses_is_not_elided_into_one_it_takes() -> None:
    text = "def f(a: int: str, b=1):\n    return a\n"
    assert elide(text, []) == "def f(a: int: str, b=1):\n    ...\n"
    assert parse("m.py", text) is None


@pytest.mark.parametrize(
    ("text", "marks", "short"),
    [
        # a def word that does not begin its line, then a function that is elided
        ("undef = 1\ndef real():\n    return undef\n", (), "undef = 1\ndef real():\n    ...\n"),
        # a body on its header's line, then a function that is elided
        (
            "def f(): return 1\ndef g():\n    return 2\n",
            (),
            "def f(): return 1\ndef g():\n    ...\n",
        ),
        # a body indented with a tab is kept, then a function that is elided
        (
            "def f():\n\treturn 1\ndef g():\n    return 2\n",
            (),
            "def f():\n\treturn 1\ndef g():\n    ...\n",
        ),
        # no indented body: left for Python to refuse, not made valid
        ("def f():\nx = 1\n", (), "def f():\nx = 1\n"),
        # a mark on the statement right after the body belongs to that statement
        ("def f():\n    return 1\nbuild(x)\n", (22,), "def f():\n    ...\nbuild(x)\n"),
    ],
)
def test_what_is_elided_after_a_line_left_alone(
    text: str, marks: tuple[int, ...], short: str
) -> None:
    assert elide(text, marks) == short


@pytest.mark.parametrize(
    ("body", "closed"),
    [
        ('    x = """doc"""\n', True),
        ('    x = """\n', False),
        ("    x = '''\n", False),
        ("    x = {}\n", True),
        ("    x = {\n", False),
        ("    x = [(1)]\n", True),
    ],
)
def test_a_body_is_closed_when_its_strings_and_brackets_are(body: str, closed: bool) -> None:
    assert _closed(body) is closed


@pytest.mark.parametrize(
    ("text", "at", "indent"),
    [
        ("  def f():", 2, 2),
        ("    async def f():", 10, 4),
        ("x = def", 4, -1),  # code before the word
        ("\tdef f():", 1, -1),  # a tab
        ("async\x0cdef f():", 6, -1),  # neither a space nor a tab after async
        ("asyncX def f():", 7, -1),
        ("y = 1\n  async  def f():", 15, 2),
    ],
)
def test_the_indentation_of_a_def_line(text: str, at: int, indent: int) -> None:
    assert _def_indent(text, at) == indent


@pytest.mark.parametrize(
    ("text", "end", "indent"),
    [
        ("# c\n  y\n", 8, 2),  # a comment line first
        ("\n  y\n", 5, 2),  # a blank line first
        ("  X = 1\n", 8, 2),
        ("  y", 3, 2),  # the last line, without a newline
        ("\ty\n", 3, -1),  # a tab
        ("  \ty\n", 5, -1),
        ("# c\n", 4, -1),  # no code
        ("  # c\n  y\n", 7, -1),  # the code lies past the end
    ],
)
def test_the_indentation_of_a_body_is_its_first_line_of_code(
    text: str, end: int, indent: int
) -> None:
    assert _first_indent(text, 0, end) == indent


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("(a):\n    x\n", 5),
        ("(a):  # c\n  x\n", 10),
        ("(a) \\\n  -> int:\nbody", 16),  # a backslash continues the header
        ("(a,\n  b):\n  x\n", 10),
        ("(): return 1\n", -1),  # the body on the header's line
        ("(a):X\n", -1),
        ("(a):", -1),  # no newline after the header
        ("\n(a):\n", -1),  # no header on the line
        ("(a,\n b", -1),  # the parameters never close
        ("(\n" * 101, -1),  # longer than a header is looked for
    ],
)
def test_a_header_ends_after_the_newline_of_its_colon(text: str, end: int) -> None:
    assert _header_end(text, 0) == end
