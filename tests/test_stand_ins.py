"""The tests share one stand-in for Slurm (tests/support/fake_slurm.py, the ``fake_slurm``
fixture): a test file elsewhere that writes its own fails here, and the stand-in does what
its users rely on."""

from __future__ import annotations

import ast
import errno
import json
import os
import shutil
import subprocess
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.fake_slurm import CAPTURED, FakeSlurm

COMMANDS = frozenset(
    {"sbatch", "squeue", "sacct", "scancel", "sinfo", "scontrol", "srun", "salloc", "sacctmgr"}
)
"""Slurm's commands (those this tool runs, and ``salloc`` that ``shell`` runs)."""
STAND_INS = ROOT / "tests" / "support"
STANDING_IN = ("ClusterReader", "SlurmClient")
"""Classes whose subclass in a test would answer for Slurm's commands."""


def _executable(node: ast.AST) -> bool:
    """``x.chmod(MODE)`` or ``os.chmod(x, MODE)`` with an execute bit in MODE."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr != "chmod" or not node.args:
        return False
    mode = node.args[-1]
    return (
        isinstance(mode, ast.Constant) and isinstance(mode.value, int) and mode.value & 0o111 != 0
    )


def _makes_executables(tree: ast.AST) -> set[str]:
    """The functions defined in ``tree`` that make a file executable."""
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and any(map(_executable, ast.walk(node)))
    }


def _commands_in(node: ast.AST, named: Mapping[str, set[str]]) -> set[str]:
    """Slurm's commands among the string constants of ``node`` (a name bound to a literal
    at the top of the module: that literal's)."""
    found = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Constant) and inner.value in COMMANDS:
            found.add(inner.value)
        elif isinstance(inner, ast.Name):
            found |= named.get(inner.id, set())
    return found


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def findings(sources: Mapping[str, str]) -> list[str]:
    """``FILE:LINE: what`` for each place in ``sources`` (file name: its text) that writes a
    stand-in for one of Slurm's commands, or defines one."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    writers = set().union(*map(_makes_executables, trees.values()))
    found: list[str] = []
    for name, tree in trees.items():
        found += [f"{name}:{line}: {what}" for line, what in _file_findings(tree, writers)]
    return found


def _file_findings(tree: ast.Module, writers: set[str]) -> Iterator[tuple[int, str]]:
    given = {  # what is given to the shared stand-in's tool(NAME, SCRIPT)
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called(node) == "tool"
        for argument in [*node.args, *(k.value for k in node.keywords)]
        for inner in ast.walk(argument)
    }
    used_otherwise = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in given
    }
    named: dict[str, set[str]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and isinstance(
            statement.value, (ast.Tuple, ast.List, ast.Set)
        ):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    named[target.id] = _commands_in(statement.value, {})
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            right = node.right
            if isinstance(right, ast.Constant) and right.value in COMMANDS:
                yield node.lineno, f"a file named {right.value}"
        elif isinstance(node, ast.Call) and _called(node) in writers:
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(a, ast.Constant) and a.value in COMMANDS for a in arguments):
                yield node.lineno, f"{_called(node)}() writes a stand-in for a Slurm command"
        elif isinstance(node, ast.For):
            writes = any(
                _executable(inner) or (isinstance(inner, ast.Call) and _called(inner) in writers)
                for part in node.body
                for inner in ast.walk(part)
            )
            commands = _commands_in(node.iter, named)
            if writes and commands:
                yield node.iter.lineno, f"stand-ins for {', '.join(sorted(commands))} in a loop"
        elif isinstance(node, ast.Assign) and _is_script(node.value):
            for name in (t.id for t in node.targets if isinstance(t, ast.Name)):
                if _names_a_stand_in(name) and name in used_otherwise:
                    yield node.lineno, f"{name}: the script of a stand-in"
        elif isinstance(node, ast.ClassDef):
            bases = {getattr(b, "id", getattr(b, "attr", None)) for b in node.bases}
            if bases & set(STANDING_IN):
                yield node.lineno, f"class {node.name} answers for Slurm's commands"


def _is_script(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and str(node.value).startswith("#!")


def _names_a_stand_in(name: str) -> bool:
    words = set(name.lower().split("_"))
    return bool(words & (COMMANDS | {"fake", "stand", "standin"}))


def _test_files() -> dict[str, str]:
    tests = ROOT / "tests"
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for path in sorted(tests.rglob("*.py"))
        if STAND_INS not in path.parents and "node_modules" not in path.parts
    }


def test_no_test_file_writes_its_own_slurm() -> None:
    """Each stand-in for a Slurm command is the shared one (``fake_slurm``; a helper that
    has no fixture makes a :class:`FakeSlurm` of its own directory)."""
    assert findings(_test_files()) == []


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ('(tmp / "bin" / "squeue").write_text("#!/bin/sh\\n")', '1: a file named squeue'),
        ('def fake(d, name):\n    (d / name).chmod(0o755)\nfake(d, "sbatch")',
         "3: fake() writes a stand-in for a Slurm command"),
        ('def f(d, body):\n    d.chmod(0o700)\nrun.f(body="x", d="srun")',
         "3: f() writes a stand-in for a Slurm command"),
        ('for name in ("srun", "scontrol"):\n    (d / name).chmod(0o755)',
         "1: stand-ins for scontrol, srun in a loop"),
        ('PROGRAMS = ("salloc", "x")\nfor p in PROGRAMS:\n    os.chmod(d / p, 0o555)',
         "2: stand-ins for salloc in a loop"),
        ('FAKE_SRUN = """#!/bin/bash\nexit 0\n"""\nfor name, body in ((a, FAKE_SRUN),):\n    pass',
         "1: FAKE_SRUN: the script of a stand-in"),
        ('FAKE = "#!{python}\\n"\nscript.write_text(FAKE.format(python=sys.executable))',
         "1: FAKE: the script of a stand-in"),
        ("class Refusing(ClusterReader):\n    pass",
         "1: class Refusing answers for Slurm's commands"),
        ("class Quiet(client.SlurmClient):\n    pass",
         "1: class Quiet answers for Slurm's commands"),
    ],
)  # fmt: skip
def test_the_guard_finds_each_way_of_writing_one(source: str, said: str) -> None:
    assert findings({"t.py": source}) == [f"t.py:{said}"]


def test_the_guard_lets_pass_what_is_no_stand_in() -> None:
    source = textwrap.dedent("""\
        SCRIPT = "#!/bin/bash\\n#SBATCH --time=1\\n"
        (job_dir / "job.sbatch").write_text(SCRIPT)
        (tmp / "run.sh").chmod(0o755)
        for name in ("srun", "sbatch"):
            assert fake_slurm.called(name) == []
        def hook(d, name):
            (d / name).chmod(0o644)
        hook(d, "srun")
        fake_slurm.tool("sbatch", "echo 4242")
        SCONTROL = "#!/bin/sh\\necho UP\\n"
        fake_slurm.tool("scontrol", SCONTROL.format(a=1))
        class Reader(Base):
            pass
    """)
    assert findings({"t.py": source}) == []


# ------------------------------------------------------------------ the stand-in itself
def test_each_call_is_logged_word_for_word(fake_slurm: FakeSlurm) -> None:
    fake_slurm.answer("sbatch", "4242\n", "sbatch: warning\n", code=3)
    done = subprocess.run(["sbatch", "--parsable", "a b", "", "c\nd"], capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"4242\n", b"sbatch: warning\n")
    subprocess.run(["sbatch"], check=False)
    assert fake_slurm.argv() == [["sbatch", "--parsable", "a b", "", "c\nd"], ["sbatch"]]
    assert fake_slurm.calls == ["sbatch --parsable a b  c\nd", "sbatch"]
    assert fake_slurm.called("squeue") == [] and fake_slurm.argv("squeue") == []


def test_an_answer_can_depend_on_the_words(fake_slurm: FakeSlurm) -> None:
    def said(*words: str) -> tuple[int, bytes]:
        done = subprocess.run(["scontrol", *words], capture_output=True)
        return done.returncode, done.stdout + done.stderr

    fake_slurm.answer("scontrol", "UP\n", when="ping")
    fake_slurm.answer("scontrol", b"\xff\x1b[2J\n", when="*partition*")
    fake_slurm.answer("scontrol", "first\n", when="show *")
    assert [said("ping"), said("ping", "-v"), said("show", "x")] == [
        (0, b"UP\n"), (0, b""), (0, b"first\n")]  # fmt: skip
    assert said("--all", "show", "partition", "-o") == (0, b"\xff\x1b[2J\n")  # the first wins
    fake_slurm.answer("scontrol", stderr="unexpected\n", code=1)
    fake_slurm.answer("scontrol", "again\n", when="*partition*")  # keeps its place
    assert [said("show", "partition"), said("ping"), said("what")] == [
        (0, b"again\n"), (0, b"UP\n"), (1, b"unexpected\n")]  # fmt: skip
    fake_slurm.tool("scontrol", "echo replaced")  # a script replaces every answer
    assert said("ping") == (0, b"replaced\n")


def test_a_hang_is_cut_by_the_callers_timeout(fake_slurm: FakeSlurm) -> None:
    fake_slurm.answer("squeue", "{}", when="--json")
    fake_slurm.hang("squeue", when="-s*")
    assert subprocess.run(["squeue", "--json"], capture_output=True).stdout == b"{}"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(["squeue", "-s", "-j", "3"], capture_output=True, timeout=0.5)
    fake_slurm.hang("scancel")
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(["scancel", "3"], timeout=0.5)
    assert fake_slurm.called("scancel") == ["scancel 3"]


def test_an_unrunnable_command_is_on_path_and_cannot_start(fake_slurm: FakeSlurm) -> None:
    fake_slurm.unrunnable("squeue")
    assert shutil.which("squeue") == f"{fake_slurm.path}{os.sep}squeue"
    with pytest.raises(OSError) as failed:
        subprocess.run(["squeue"])
    assert failed.value.errno == errno.ENOEXEC
    assert fake_slurm.calls == []


def test_a_script_runs_as_the_command_itself(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    """Same process (a signal to it reaches the script), directory, words and environment."""
    fake_slurm.tool("srun", '#!/bin/bash\necho "$$ $PWD ${#@} $GREETING"\n')
    done = subprocess.Popen(
        ["srun", "x", "y"], cwd=tmp_path, env={"PATH": fake_slurm.path, "GREETING": "hi"},
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert done.communicate(timeout=30)[0] == f"{done.pid} {tmp_path} 2 hi\n"
    assert fake_slurm.argv("srun") == [["srun", "x", "y"]]


def test_the_stand_ins_are_alone_on_path_or_in_front(fake_slurm: FakeSlurm) -> None:
    assert os.environ["PATH"] == fake_slurm.path
    assert shutil.which("sh") is None
    fake_slurm.in_front()
    assert os.environ["PATH"].split(os.pathsep)[0] == fake_slurm.path
    assert shutil.which("sh") is not None
    with pytest.raises(RuntimeError, match="through the monkeypatch it was given"):
        FakeSlurm(fake_slurm.root / "other").alone()


def test_squeue_and_sacct_list_the_jobs_given(fake_slurm: FakeSlurm) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "PENDING"}, errors=["x"])
    listed = json.loads(subprocess.run(["squeue", "--json"], capture_output=True).stdout)
    captured = json.loads((CAPTURED / "squeue.json").read_text())
    assert listed["errors"] == ["x"] and listed["meta"] == captured["meta"]
    assert listed["jobs"] == [{**captured["jobs"][2], "job_id": 3, "job_state": "PENDING"}]
    fake_slurm.sacct({"JobID": "3", "State": "TIMEOUT", "Reason": "None"}, {"JobID": "4_1"})
    assert subprocess.run(["sacct"], capture_output=True, text=True).stdout == (
        "3|TIMEOUT||||||None\n4_1|||||||\n"
    )
    with pytest.raises(ValueError, match="sacct has no field Elapsed, jobid here"):
        fake_slurm.sacct({"jobid": "3", "Elapsed": "1"})
