"""A launcher plugged in while the package runs (:func:`automodel_launch.launchers.plug`):
its section is a launcher section like the shipped ones, checked on its own model, its
mistakes reported where they are; the recipe document, the manifests and ``jobs`` know its
name; the exported schema stays the shipped one. Unplugged, nothing of it is left."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from automodel_launch import api, launcher_names
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.config import document
from automodel_launch.diagnostics import Diagnostic
from automodel_launch.errors import UsageError
from automodel_launch.jobs.listing import read_filters
from automodel_launch.jobs.manifest import ManifestError, manifest_from_json
from automodel_launch.jobs.sweeps import Sweep
from automodel_launch.launchers import LAUNCHERS, ids, plug, unplug
from automodel_launch.loading import load_text
from automodel_launch.schema import schema_text
from automodel_launch.validation import validate_loaded
from tests.conftest import RECIPE, offline_settings
from tests.jobs.test_manifest_model import valid
from tests.launchers import schedulers
from tests.launchers.toy import Toy
from tests.launchers.toy.config import ToyConfig


def tables() -> list[Any]:
    """Everything :func:`plug` adds to, as it is now."""
    return copy.deepcopy([
        launcher_names.PLUGGED, document.LAUNCHERS, document.LAUNCHER_SECTIONS,
        document.SECTION_MODELS, ids.GRAMMAR, list(LAUNCHERS),
    ])  # fmt: skip


@pytest.fixture
def toy() -> Iterator[None]:
    plug(Toy())
    try:
        yield
    finally:
        unplug("toy")


def check(text: str) -> tuple[list[Diagnostic], Any]:
    loaded = load_text(text, "r.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    return report.diagnostics, report.document


def shown(found: list[Diagnostic]) -> list[str]:
    return [
        f"{d.line}:{d.column} {d.severity.value}[{d.code}] {d.path}: {d.message}" for d in found
    ]


@pytest.mark.usefixtures("toy")
def test_the_section_chooses_the_launcher_and_is_checked_on_its_model() -> None:
    found, made = check(RECIPE + "toy:\n  queue: gpu\n")
    assert shown(found) == []
    assert made.launcher == "toy"
    assert made.launcher_section == ToyConfig(queue="gpu")
    assert LAUNCHERS[made.launcher].section_model is ToyConfig


@pytest.mark.usefixtures("toy")
def test_its_mistakes_are_diagnostics_where_they_are() -> None:
    found, made = check(RECIPE + "toy:\n  queue: GPU\n  priority: 12\n  job_nam: x\n")
    assert shown(found) == [
        "3:10 error[invalid-value] toy.queue: String should match pattern '^[a-z][a-z0-9-]{0,31}$'",
        "4:13 error[out-of-range] toy.priority: must be at most 9",
        "5:3 error[unknown-key] toy.job_nam: unknown key 'job_nam' in toy",
    ]
    assert found[2].hint == "did you mean 'job_name'?"
    assert made is None  # a file with errors makes no document, as any launcher's


@pytest.mark.usefixtures("toy")
def test_it_is_one_launcher_section_among_the_others() -> None:
    found, _ = check(RECIPE + "slurm:\n  nodes: 1\ntoy:\n  queue: gpu\n")
    assert shown(found)[0] == (
        "4:1 error[multiple-launchers] toy: both slurm: and toy: are present; a recipe has one "
        "launcher"
    )
    found, _ = check(RECIPE + "toy:\n  queue: gpu\nfault_tolerance:\n  requeue: true\n")
    assert shown(found) == [
        "4:1 error[fault-tolerance-needs-slurm] fault_tolerance: fault_tolerance works only "
        "with Slurm, not next to toy:"
    ]
    assert found[0].hint == "remove it, or launch with slurm: not toy:"
    found, _ = check("toy:\n  queue: gpu\n")  # a section alone: what render will need
    assert [d.code for d in found] == ["launcher-only"]
    assert document.job_config({"toy": {"queue": "gpu"}, "model": {}}) == {"model": {}}


@pytest.mark.usefixtures("toy")
def test_submit_says_which_launcher_takes_the_job() -> None:
    from automodel_launch.commands.summary import summary_lines

    _, made = check(RECIPE + "toy:\n  queue: gpu\n")
    assert summary_lines(made, Path("/jobs/x"), 2) == [
        "  launcher       toy",
        "  resources      2 process(es) per node",
        "  job directory  /jobs/x",
    ]


def test_the_exported_schema_is_the_shipped_one(toy: None) -> None:
    assert schema_text() == (Path(__file__).parents[2] / "schemas" / "automodel-launch.schema.json"
                             ).read_text(encoding="utf-8")  # fmt: skip


def test_jobs_and_manifests_know_its_name() -> None:
    with pytest.raises(UsageError) as refused:
        read_filters("toy", None, None)
    assert str(refused.value) == "launcher: 'toy' is no launcher: use slurm, skypilot or local"
    plug(Toy())
    try:
        assert read_filters("toy", None, None).launcher == "toy"
        with pytest.raises(UsageError) as refused:
            read_filters("nosuch", None, None)
        assert str(refused.value) == (
            "launcher: 'nosuch' is no launcher: use slurm, skypilot, toy or local"
        )
        made = manifest_from_json(
            json.dumps(valid(launcher="toy", scheduler_id="t7", details={})), "M"
        )
        assert (made.launcher, made.scheduler_id) == ("toy", "t7")
        with pytest.raises(ManifestError) as bad:  # its ids are the toy scheduler's
            manifest_from_json(json.dumps(valid(launcher="toy", scheduler_id="7", details={})), "M")
        assert "scheduler_id is not a toy job id" in str(bad.value)
    finally:
        unplug("toy")
    with pytest.raises(ManifestError) as gone:
        manifest_from_json(json.dumps(valid(launcher="toy", scheduler_id="t7", details={})), "M")
    assert "launcher: Input should be 'slurm', 'skypilot' or 'interactive'" in str(gone.value)


def test_unplugged_nothing_of_it_is_left() -> None:
    before = tables()
    plug(Toy())
    assert tables() != before
    unplug("toy")
    assert tables() == before
    found, made = check(RECIPE + "toy:\n  queue: gpu\n")  # a recipe section again
    assert (shown(found), made.launcher) == ([], "interactive")


class Sectionless(Toy):
    name = "sectionless"
    section_model = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("launcher", "message"),
    [
        (Sectionless(), "launcher 'sectionless' has no section_model: a section chooses it"),
        (type("Bare", (), {"name": "bare"})(), "launcher 'bare' does not answer arrays, artifact"),
        (type("Slurm", (Toy,), {"name": "slurm"})(), "there is a launcher 'slurm' already"),
        (type("Local", (Toy,), {"name": "local"})(), "there is a launcher 'local' already"),
        (type("Recipe", (Toy,), {"name": "recipe"})(), "'recipe' cannot name a launcher section"),
        (type("K8s", (Toy,), {"name": "k8s"})(), "'k8s' cannot name a launcher section"),
    ],
)
def test_a_launcher_that_cannot_be_plugged_is_refused(launcher: Toy, message: str) -> None:
    before = tables()
    with pytest.raises(ValueError) as refused:
        plug(launcher)
    assert str(refused.value).startswith(message)
    assert tables() == before


def test_every_launcher_answers_the_whole_contract() -> None:
    from automodel_launch.launchers import LAUNCHERS, PROTOCOL

    assert {"render", "submit", "statuses", "logs", "cancel", "shell", "remote"} <= set(PROTOCOL)
    for launcher in [*LAUNCHERS.values(), Toy()]:
        assert [m for m in PROTOCOL if not hasattr(launcher, m)] == [], launcher


def test_its_sweep_is_fed_by_the_drivers_process_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At most one point at a time: a driver process feeds them, and plugs the launcher in
    there too (it comes through the driver's pipe)."""
    scheduler = schedulers.Toy(tmp_path, monkeypatch)
    path = tmp_path / "recipe.yaml"
    path.write_text(schedulers.RECIPE + scheduler.section())
    plug(Toy())
    try:
        code = errors.run(lambda: run_app([
            "submit", str(path), "--entry", schedulers.ENTRY, "--nproc-per-node", "1",
            "--no-check-paths", "--job-dir", str(tmp_path / "sweep"),
            "--sweep", "optimizer.lr=0.1,0.2", "--max-parallel", "1",
        ]))  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "started the sweep's driver (pid " in out
        found = api.find(out.splitlines()[-1].split(": automodel-launch status ")[1])
        assert isinstance(found, Sweep)
        scheduler.end(list(found.points), 0)  # each point ends as soon as it is started
        deadline = time.monotonic() + 60
        shown = api.status(found)
        while not all(p.finished for p in shown.points) and time.monotonic() < deadline:
            time.sleep(0.1)
            found = api.find(found.id)  # its points' manifests as they are now
            assert isinstance(found, Sweep)
            shown = api.status(found)
        assert [(p.state, p.manifest.scheduler_id) for p in shown.points] == [
            ("COMPLETED", "t1"), ("COMPLETED", "t2")
        ]  # fmt: skip
        log = (tmp_path / "sweep" / "driver.log").read_text()
        while "every point ended" not in log and time.monotonic() < deadline:
            time.sleep(0.1)
            log = (tmp_path / "sweep" / "driver.log").read_text()
        assert log.rstrip().endswith("every point ended"), log
    finally:
        unplug("toy")
