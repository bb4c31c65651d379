"""``submit --after JOB`` reaches the Slurm renderer through calls a reader can follow:
each step below is a call written in the source, to a function the calling module imports
by name (or defines, or a closure it hands on), with the value passed as an argument; the
one dispatch is the launcher table's row, typed by the ``Launcher`` Protocol. No step
looks a function up by a string (``getattr``, ``importlib``).

The test reads the source (``ast``), step by step, and then runs the command: the script
waits for the job named."""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path

import pytest

from automodel_launch.launchers import LAUNCHERS, Launcher
from automodel_launch.launchers.slurm import Slurm
from tests.support.fake_slurm import FakeSlurm

PACKAGE = Path(__file__).resolve().parent.parent / "automodel_launch"


@dataclass(frozen=True)
class Step:
    where: str
    """The module (a path in the package) the value is in."""
    function: str
    """The function there (``Class.method``; ``outer.inner`` for a closure)."""
    callee: str
    """The call as written (``render_of``, ``run.submit``)."""
    value: str
    """How the value is passed (its name, or the expression holding it)."""
    to: tuple[str, str] | None
    """The module and function the call lands in (None: what the function was handed)."""
    returns: bool = False
    """The call gives the value back in another form (a value object, the dependency
    string), and the next step is in the same function."""


STEPS = [
    Step("cli/submit.py", "command", "Request", "tuple(after or ())",
         ("commands/plan.py", "Request"), returns=True),
    Step("cli/submit.py", "command", "run.submit", "request", ("commands/submit.py", "submit")),
    Step("commands/submit.py", "submit", "hand_over", "render",
         ("commands/submit.py", "hand_over")),
    Step("commands/submit.py", "hand_over", "_render", "render",
         ("commands/submit.py", "_render")),
    Step("commands/submit.py", "_render", "render", "plan", None),
    Step("commands/submit.py", "submit.render", "render_of", "request",
         ("commands/plan.py", "render_of")),
    Step("commands/plan.py", "render_of", "dependency", "request.after",
         ("plan/after.py", "dependency"), returns=True),
    Step("commands/plan.py", "render_of", "render_plan", "after",
         ("plan/render.py", "render_plan")),
    Step("plan/render.py", "render_plan", "render_report", "after",
         ("prepare.py", "render_report")),
    Step("prepare.py", "render_report", "JobSpec", "after",
         ("render/entry.py", "JobSpec"), returns=True),
    Step("prepare.py", "render_report", "render_artifact", "spec",
         ("render/job.py", "render_artifact")),
    Step("render/job.py", "render_artifact", "launcher_of(document).render", "spec",
         ("launchers/__init__.py", "Launcher.render")),
    Step("launchers/slurm/__init__.py", "Slurm.render", "render_artifact", "spec",
         ("launchers/slurm/render.py", "render_artifact")),
    Step("launchers/slurm/render.py", "render_artifact", "render_sbatch", "spec",
         ("launchers/slurm/render.py", "render_sbatch")),
    Step("launchers/slurm/render.py", "render_sbatch", "_directives", "spec",
         ("launchers/slurm/render.py", "_directives")),
]  # fmt: skip
"""From the option to the ``#SBATCH --dependency`` line (:func:`_directives` reads
``spec.after``)."""


def module_of(where: str) -> str:
    parts = list(Path(where).with_suffix("").parts)
    return ".".join(["automodel_launch", *(parts[:-1] if parts[-1] == "__init__" else parts)])


def tree(where: str) -> ast.Module:
    return ast.parse((PACKAGE / where).read_text(encoding="utf-8"))


def function(where: str, qualname: str) -> ast.FunctionDef | ast.ClassDef:
    """``qualname`` in ``where``: a function, a method, a closure, or a class."""
    scope: list[ast.stmt] = tree(where).body
    found: ast.FunctionDef | ast.ClassDef | None = None
    for part in qualname.split("."):
        found = next(
            (n for n in scope if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part),
            None,
        )
        assert found is not None, f"{where} defines no {qualname}"
        scope = found.body
    assert found is not None
    return found


def own_calls(node: ast.AST) -> list[ast.Call]:
    """The calls written in ``node``'s body, not in the functions defined inside it."""
    calls: list[ast.Call] = []
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(child, ast.Call):
            calls.append(child)
        todo.extend(ast.iter_child_nodes(child))
    return calls


def imported(where: str, name: str) -> str | None:
    """The module ``name`` is taken from in ``where`` (``from M import name [as x]``,
    anywhere in the file), or the module a ``from P import m as name`` names."""
    for node in ast.walk(tree(where)):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return node.module if alias.name == name else f"{node.module}.{alias.name}"
    return None


@pytest.mark.parametrize("step", STEPS, ids=lambda s: f"{s.where}:{s.function}->{s.callee}")
def test_each_step_is_a_call_written_in_the_source(step: Step) -> None:
    calls = [c for c in own_calls(function(step.where, step.function))
             if ast.unparse(c.func) == step.callee]  # fmt: skip
    assert calls, f"{step.function} calls no {step.callee}"
    passed = [ast.unparse(a) for c in calls for a in [*c.args, *(k.value for k in c.keywords)]]
    assert step.value in passed
    if step.to is None:  # a closure: a parameter of the function calls what it was handed
        node = function(step.where, step.function)
        assert isinstance(node, ast.FunctionDef)
        assert step.callee in [a.arg for a in node.args.args]
        return
    target_where, target = step.to
    function(target_where, target)  # it is there
    head = step.callee.split(".")[0].split("(")[0]
    if step.callee.endswith(").render"):  # the table's row: typed by the Protocol
        assert imported(step.where, head) == "automodel_launch.launchers"
        return
    if "." in step.callee:  # module.function
        assert imported(step.where, head) == module_of(target_where)
        assert step.callee.split(".")[-1] == target
    elif imported(step.where, head) is not None:
        assert imported(step.where, head) == module_of(target_where)
    else:  # defined in the same module
        assert target_where == step.where


def test_the_steps_join_up() -> None:
    """Each step starts where the one before lands (a closure's call: the next step is the
    closure the caller defined and handed on)."""
    for before, after in itertools.pairwise(STEPS):
        if before.to is None:  # the closure handed on: defined in the function that began
            assert after.function == "submit.render" and after.where == before.where
        elif before.returns:  # the value comes back in its new form
            assert (after.where, after.function) == (before.where, before.function)
        elif before.to == ("launchers/__init__.py", "Launcher.render"):  # the Protocol's
            # implementation in the launcher's own package
            assert (after.where, after.function) == ("launchers/slurm/__init__.py", "Slurm.render")
        else:
            assert (after.where, after.function) == before.to, (before, after)


def test_the_table_row_of_slurm_is_the_class_whose_render_is_the_last_step() -> None:
    assert type(LAUNCHERS["slurm"]) is Slurm
    assert "render" in vars(Launcher) and "render" in vars(Slurm)


def test_no_step_looks_a_function_up_by_a_string() -> None:
    for step in STEPS:
        text = ast.unparse(function(step.where, step.function))
        assert "getattr(" not in text and "importlib" not in text, step


def test_the_last_step_writes_the_value() -> None:
    directives = ast.unparse(function("launchers/slurm/render.py", "_directives"))
    assert "spec.after" in directives and "'dependency'" in directives


def test_the_value_reaches_the_script(tmp_path: Path, fake_slurm: FakeSlurm) -> None:
    """And running it: ``--after`` the first job is the second script's dependency."""
    from automodel_launch.cli import errors
    from automodel_launch.cli.app import run_app

    fake_slurm.answer("sbatch", "4242")
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
        "slurm:\n  partition: batch\n  time: '01:00:00'\n  nodes: 1\n  ntasks_per_node: 1\n"
    )

    def submit(*more: str) -> int:
        return errors.run(lambda: run_app([
            "submit", str(recipe), "--no-preflight", "--no-check-paths", *more,
        ]))  # fmt: skip

    assert submit("--job-dir", str(tmp_path / "first")) == 0
    assert submit("--job-dir", str(tmp_path / "second"), "--after", str(tmp_path / "first")) == 0
    first = (tmp_path / "first" / "job.sbatch").read_text()
    second = (tmp_path / "second" / "job.sbatch").read_text()
    assert "--dependency" not in first
    assert "#SBATCH --dependency=afterok:4242\n" in second
