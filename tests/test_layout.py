"""The job directory's layout has one home: :mod:`automodel_launch.layout`."""

from __future__ import annotations

import ast
import re

from automodel_launch import layout
from automodel_launch.launchers.slurm.render import PER_NODE_ADDRESS, RANK_PREFIX, RECORD_EXIT
from tests.test_layers import PACKAGE, project_imports

NAMES = {value for key, value in vars(layout).items() if key.isupper() and isinstance(value, str)}


def test_the_names() -> None:
    assert {
        "job.sbatch", "task.yaml", "run.sh", "job_config.yaml", "manifest.json", "exit_code",
        "cancelled", "output.log", "torchrun", "%x_%j.out", "%x_%A_%a.out", "points",
        "driver.json", "driver.log", "code", "code.diff", "launch.yaml", "errors", "notify.py",
        "notify.json",
    } == NAMES  # fmt: skip
    assert len(NAMES) == len([k for k in vars(layout) if k.isupper()])


def test_the_slurm_log_is_named_as_sbatch_names_it() -> None:
    assert layout.slurm_log("%x", "%j") == layout.SLURM_LOG_PATTERN
    assert layout.slurm_log("llm_finetune", "1234_7") == "llm_finetune_1234_7.out"
    assert layout.staging("exit_code") == "exit_code.tmp"
    assert layout.agent_error_file("3") == "errors/node3.json"


def test_a_points_sweep_directory() -> None:
    from pathlib import Path

    assert layout.sweep_root(Path("/jobs/sweep/points/3")) == Path("/jobs/sweep")


def test_the_scripts_use_the_names() -> None:
    assert 'PET_LOG_DIR="$JOB_DIR/torchrun"' in RANK_PREFIX
    assert '"$JOB_DIR/exit_code.tmp" "$JOB_DIR/exit_code"' in RECORD_EXIT
    error_file = 'TORCHELASTIC_ERROR_FILE=\\"\\$JOB_DIR/errors/node\\$SLURM_NODEID.json'
    assert error_file in PER_NODE_ADDRESS


def test_the_layout_imports_nothing_of_the_project() -> None:
    assert project_imports(PACKAGE / "layout.py") == set()


def _spelled(source: str) -> list[tuple[int, str]]:
    """Text constants that spell a layout name as a file name: a name with a dot or a
    ``%`` anywhere (``job.sbatch``), a plain word (``exit_code``, ``torchrun``) after a
    ``/``, before ``.tmp``, or on the right of ``path / "..."``. Docstrings, JSON keys
    (``"exit_code": ...``) and the word in prose (``torchrun --max-restarts``) are not."""
    tree = ast.parse(source)
    skip = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys}
    skip |= {  # docstrings, of modules, classes, functions and attributes
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    joined = {
        id(node.right)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
    }
    marked = "|".join(re.escape(n) for n in sorted(NAMES) if not n.isidentifier())
    words = "|".join(re.escape(n) for n in sorted(NAMES) if n.isidentifier())
    shape = re.compile(rf"(?<![\w.])(?:{marked})(?![\w])|/(?:{words})\b|\b(?:{words})\.tmp")
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and (shape.search(node.value) or (id(node) in joined and node.value in NAMES))
    ]


def test_no_other_module_spells_a_layout_name() -> None:
    spelled = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "layout.py" and (found := _spelled(path.read_text(encoding="utf-8")))
    }
    assert spelled == {}


def test_the_spelling_check_finds_a_name() -> None:
    source = (
        'A = "job.sbatch"\nB = f"{d}/%x_%j.out"\nC = {"exit_code": 1}\n'
        'D = "rm -f exit_code.tmp; x"\n"""a job.sbatch docstring"""\nE = "torchrunner"\n'
        'F = d / "torchrun"\nG = "torchrun --nnodes"\nH = "$JOB_DIR/cancelled"\n'
    )
    assert sorted(_spelled(source)) == [
        (1, "job.sbatch"), (2, "/%x_%j.out"), (4, "rm -f exit_code.tmp; x"), (7, "torchrun"),
        (9, "$JOB_DIR/cancelled"),
    ]  # fmt: skip
