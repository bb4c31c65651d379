"""The launcher table is the one place that knows the launchers: one class per launcher,
one row each, and one list of names (:mod:`automodel_launch.launcher_names`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from automodel_launch.config.document import LAUNCHED_BY_AUTOMODEL, LaunchDocument
from automodel_launch.config.document import LAUNCHERS as SECTIONS
from automodel_launch.handover import Handover, Submitted
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.launcher_names import BY_AUTOMODEL, LAUNCHED_HERE, WITH_SECTION
from automodel_launch.launchers import LAUNCHERS, Launcher, launcher_of
from automodel_launch.launchers.dispatch import backend, statuses
from automodel_launch.launchers.ids import GRAMMAR, is_scheduler_id
from automodel_launch.layout import JOB_CONFIG, LAUNCH_CONFIG
from automodel_launch.prepare import EntryChoice, default_job_dir, prepare
from tests.conftest import offline_settings
from tests.test_layers import PACKAGE

if TYPE_CHECKING:
    from automodel_launch.render.entry import JobSpec


def test_one_row_for_every_launcher_a_document_can_have() -> None:
    assert list(LAUNCHERS) == list(LAUNCHED_HERE) == ["slurm", "skypilot", "interactive"]
    assert set(LAUNCHERS) == {*SECTIONS, "interactive"} - set(LAUNCHED_BY_AUTOMODEL)
    assert set(LAUNCHED_BY_AUTOMODEL) == set(BY_AUTOMODEL) == {"k8s", "nemo_run"}
    assert tuple(SECTIONS) == (*WITH_SECTION, *BY_AUTOMODEL) == ("slurm", "skypilot", "k8s",
                                                                  "nemo_run")  # fmt: skip
    assert LaunchDocument.model_construct().launcher == "interactive"
    assert {row.name for row in LAUNCHERS.values()} == set(LAUNCHERS)


@pytest.mark.parametrize(("name", "section"), [("slurm", {}), ("skypilot", {"cloud": "aws"})])
def test_a_section_chooses_its_launcher(name: str, section: dict[str, str]) -> None:
    assert name in WITH_SECTION
    document = LaunchDocument.model_validate({name: section})
    assert document.launcher == name
    assert launcher_of(document) is LAUNCHERS[name]


def test_artifacts_and_default_folders_are_distinct() -> None:
    assert len({row.artifact for row in LAUNCHERS.values()}) == len(LAUNCHERS)
    assert len({row.default_base for row in LAUNCHERS.values()}) == len(LAUNCHERS)


def test_what_each_scheduler_does_itself() -> None:
    table = {name: (row.arrays, row.dependencies, row.detached) for name, row in LAUNCHERS.items()}
    assert table == {
        "slurm": (True, True, True),
        "skypilot": (False, False, True),
        "interactive": (False, False, False),
    }


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("slurm", ["1234", "1234_7", "1234+1"], ["0", "--me", "12 34", "1234_", ""]),
        ("skypilot", ["0", "42"], ["-1", "4_2", "1" * 11]),
        ("interactive", ["77"], ["77\n", "x"]),
    ],
)
def test_each_launcher_says_what_its_ids_look_like(
    name: str, good: list[str], bad: list[str]
) -> None:
    assert [is_scheduler_id(name, text) for text in good] == [True] * len(good)
    assert [is_scheduler_id(name, text) for text in bad] == [False] * len(bad)
    assert not is_scheduler_id("nosuch", "1")
    assert LAUNCHERS[name].job_id.fullmatch(good[0])  # the launcher's own, the same grammar


def test_every_launcher_has_one_id_grammar_its_class_answers_with() -> None:
    assert set(GRAMMAR) == set(LAUNCHED_HERE) == set(LAUNCHERS)
    assert all(LAUNCHERS[name].job_id is GRAMMAR[name] for name in LAUNCHED_HERE)


def test_the_local_script_starts_strict_bash_and_the_others_are_as_rendered() -> None:
    from automodel_launch.config.document import LaunchDocument

    local = LaunchDocument.model_validate({})
    slurm = LaunchDocument.model_validate({"slurm": {}})
    skypilot = LaunchDocument.model_validate({"skypilot": {"cloud": "aws"}})
    assert LAUNCHERS["interactive"].job_files(local, "torchrun x\n", "a: 1\n") == {
        "run.sh": "#!/bin/bash\nset -euo pipefail\ntorchrun x\n",
        JOB_CONFIG: "a: 1\n",
    }
    assert LAUNCHERS["slurm"].job_files(slurm, "#!/bin/bash\n", "a: 1\n") == {
        "job.sbatch": "#!/bin/bash\n",
        JOB_CONFIG: "a: 1\n",
    }
    assert LAUNCHERS["skypilot"].job_files(skypilot, "name: x\n", "") == {
        "task.yaml": "name: x\n",
        JOB_CONFIG: "",
    }


# ------------------------------------------------------------------ adding a launcher
class Echo:
    """A launcher in one class: what adding one takes, besides its row."""

    name = "echo"
    artifact = "echo.txt"
    default_base = "echo_jobs"
    progress = ""
    detached = False
    arrays = True
    dependencies = False
    job_id = re.compile(r"e[0-9]+")

    def __init__(self) -> None:
        self.calls: list[str] = []

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        return f"echo {spec.job_name} x{nproc_per_node}\n"

    def job_files(self, document: LaunchDocument, artifact: str, job_config: str) -> dict[str, str]:
        return {self.artifact: artifact, JOB_CONFIG: job_config}

    def submit(self, handover: Handover) -> Submitted:
        self.calls.append(f"submit {handover.job_dir.name} {sorted(handover.files)}")
        return Submitted("echoed", "e7")

    def statuses(self, manifests: list[Manifest]) -> list[JobStatus]:
        self.calls.append(f"statuses {len(manifests)}")
        return [JobStatus(m, "RUNNING") for m in manifests]

    def logs(self, manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
        self.calls.append(f"logs {follow} {rank}")
        return 0

    def cancel(self, manifest: Manifest) -> JobStatus:
        self.calls.append("cancel")
        return JobStatus(manifest, "CANCELLED")

    def cancel_all(self, manifests: list[Manifest]) -> list[JobStatus]:
        self.calls.append(f"cancel_all {len(manifests)}")
        return [JobStatus(m, "CANCELLED") for m in manifests]


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "llm_finetune.yaml"


def test_a_new_launcher_is_one_class_one_row_and_its_id_grammar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    echo: Launcher = Echo()  # `mypy tests/test_launchers.py` holds the class to the contract
    monkeypatch.setitem(LAUNCHERS, "echo", echo)
    monkeypatch.setitem(GRAMMAR, "echo", echo.job_id)
    # the recipe's own section would choose it; here the document is told
    monkeypatch.setattr(LaunchDocument, "launcher", property(lambda self: "echo"))
    recipe = tmp_path / "r.yaml"
    recipe.write_text(EXAMPLE.read_text(encoding="utf-8"))

    prepared = prepare(
        recipe, offline_settings(), entry=EntryChoice(), job_dir=tmp_path / "job", nproc_per_node=3
    )
    assert prepared.report.diagnostics == []
    assert prepared.document is not None and prepared.job_dir is not None
    assert prepared.artifact == "echo llm_finetune x3\n"
    assert sorted(prepared.files) == ["echo.txt", JOB_CONFIG, LAUNCH_CONFIG]
    assert prepared.files["echo.txt"] == prepared.artifact
    assert default_job_dir(prepared.document, "n") == Path("echo_jobs/n")

    handover = Handover(prepared.document, prepared.job_dir, prepared.files, {})
    assert launcher_of(prepared.document).submit(handover) == Submitted("echoed", "e7")

    assert is_scheduler_id("echo", "e7") and not is_scheduler_id("echo", "7")
    manifest = Manifest.model_construct(id="abcdef", launcher="echo", job_dir=str(tmp_path))
    assert [s.state for s in statuses([manifest, manifest])] == ["RUNNING", "RUNNING"]
    assert backend("echo").logs(manifest, follow=True, rank=2) == 0
    assert backend("echo").cancel(manifest).state == "CANCELLED"
    assert echo.calls == [  # type: ignore[attr-defined]
        "submit job ['echo.txt', 'job_config.yaml', 'launch.yaml']",
        "statuses 2",
        "logs True 2",
        "cancel",
    ]


def test_a_manifest_of_a_launcher_this_version_lacks_is_unknown(tmp_path: Path) -> None:
    manifest = Manifest.model_construct(id="abcdef", launcher="gone", job_dir=str(tmp_path))
    assert [(s.state, s.note) for s in statuses([manifest])] == [
        ("UNKNOWN", "unknown launcher 'gone'")
    ]


# ------------------------------------------------------------------ one place
_ASKS_WHICH = re.compile(r"""launcher\s*[!=]=|[!=]=\s*["'](?:slurm|skypilot|interactive)["']""")


def test_no_module_but_the_table_asks_which_launcher_it_is() -> None:
    asking = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _ASKS_WHICH.search(line)
    ]
    assert asking == []


NAMES = {*LAUNCHED_HERE, *BY_AUTOMODEL}


def _lists_of_names(source: str) -> list[int]:
    """Lines of tuples, lists, sets and ``Literal[...]`` spelling two launcher names or
    more. A dict keyed by launcher (a hover text, a rule, defaults per section) holds data
    about each launcher, and is not a list of them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        else:
            continue
        spelled = {i.value for i in items if isinstance(i, ast.Constant) and i.value in NAMES}
        if len(spelled) >= 2:
            found.append(node.lineno)
    return sorted(set(found))


def test_the_launcher_names_are_listed_in_one_module() -> None:
    listed = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := _lists_of_names(path.read_text(encoding="utf-8")))
    }
    assert list(listed) == ["launcher_names.py"]


def test_the_names_check_sees_a_list() -> None:
    """The check above can fail: its own list in a module is found, data per launcher is not."""
    source = (
        'A = ("slurm", "skypilot")\nB = {"slurm": 1, "k8s": 2}\nC = ["k8s"]\n'
        'D: Literal["interactive", "nemo_run"]\nE = {"slurm", "x", "skypilot"}\n'
    )
    assert _lists_of_names(source) == [1, 4, 5]
