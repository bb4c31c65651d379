"""Which AutoModel a job runs, found rather than assumed, and said in the summary and JSON."""

from __future__ import annotations

import io
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from automodel_launch.automodel import installed
from automodel_launch.automodel.images import automodel_image
from automodel_launch.profiles.overrides import Layers, parse_override
from automodel_launch.report import write_report
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_path
from tests.automodel.standin import installed as installed_standin
from tests.automodel.standin import standin
from tests.conftest import brief, offline_settings

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
WARMUP = "step_scheduler:\n  global_batch_size: 8\n  warmup_steps: 10\n"


@pytest.fixture
def installed_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """nemo-automodel 0.8.0 (a stand-in whose StepScheduler takes warmup_steps) installed
    in a site directory this process finds first."""
    site = installed_standin(tmp_path / "site", "0.8.0", ", warmup_steps=0")
    forwarding = installed.find  # the suite's: a path given is searched for real
    monkeypatch.setattr(installed, "find", lambda path=None: forwarding(path or [str(site)]))
    return site


def summary(path: Path, settings: Settings | None = None, layers: Layers | None = None) -> str:
    report = validate_path(path, settings or offline_settings(), layers=layers)
    out = io.StringIO()
    write_report([report], "text", out, strict=False, version=None)
    return out.getvalue()


def config(tmp_path: Path, text: str, name: str = "job.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# ------------------------------------------------------------------- installed beside the tool
def test_the_installed_distribution_is_found_on_the_path_in_its_order(tmp_path: Path) -> None:
    first = installed_standin(tmp_path / "first", "0.8.0")
    second = installed_standin(tmp_path / "second", "0.5.0")
    found = installed.find([str(tmp_path / "nothing"), str(first), str(second)])
    assert found == installed.Installed("0.8.0", first / "nemo_automodel", editable=False)
    assert installed.find([str(tmp_path / "nothing")]) is None


def test_an_editable_install_is_the_checkout_it_points_to(tmp_path: Path) -> None:
    (tmp_path / "site" / "nemo_automodel-0.5.0.dist-info").mkdir(parents=True)
    standin(tmp_path / "checkout")
    found = installed.find([str(tmp_path / "site"), str(tmp_path / "checkout")])
    assert found == installed.Installed(
        "0.5.0", tmp_path / "checkout" / "nemo_automodel", editable=True
    )
    egg = tmp_path / "egg"
    (egg / "nemo_automodel-0.6.0-py3.11.egg-info").mkdir(parents=True)
    assert installed.find([str(egg)]).version == "0.6.0"  # type: ignore[union-attr]


def test_the_package_found_before_its_metadata_is_the_one_imported(tmp_path: Path) -> None:
    standin(tmp_path / "checkout")
    site = installed_standin(tmp_path / "site", "0.8.0")  # a package of its own too
    found = installed.find([str(tmp_path / "checkout"), str(site)])
    assert found == installed.Installed(
        "0.8.0", tmp_path / "checkout" / "nemo_automodel", editable=True
    )


def test_only_a_nemo_automodel_distribution_names_the_version(tmp_path: Path) -> None:
    (tmp_path / "site" / "transformers-4.57.1.dist-info").mkdir(parents=True)
    assert installed.find([str(tmp_path / "site")]) is None
    (tmp_path / "site" / "nemo_automodel-0.6.0-py3.11-linux-x86_64.egg-info").mkdir()
    assert installed.find([str(tmp_path / "site")]) == installed.Installed(
        "0.6.0", None, editable=True
    )


def test_the_path_searched_by_default_is_pythons(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.undo()  # the suite's find() that finds nothing without a path (conftest.py)
    site = installed_standin(tmp_path / "site", "0.8.0")
    monkeypatch.setattr(sys, "path", [str(site)])
    assert installed.find() == installed.Installed("0.8.0", site / "nemo_automodel", editable=False)


def test_the_standard_librarys_directories_are_not_searched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stdlib = tmp_path / "lib"
    monkeypatch.setattr(os, "__file__", str(stdlib / "os.py"))
    (stdlib / "nemo_automodel-0.1.0.dist-info").mkdir(parents=True)
    (stdlib / "lib-dynload" / "nemo_automodel-0.2.0.dist-info").mkdir(parents=True)
    site = installed_standin(tmp_path / "site", "0.8.0")
    for first in (stdlib, stdlib / "lib-dynload"):
        found = installed.find([str(first), str(site)])
        assert found == installed.Installed("0.8.0", site / "nemo_automodel", editable=False)


def test_a_release_installed_here_that_no_table_has_is_read_from_its_source(
    installed_here: Path, tmp_path: Path
) -> None:
    path = config(tmp_path, RECIPE + WARMUP)
    report = validate_path(path, offline_settings())
    assert (report.automodel_version, report.automodel_found) == ("0.8.0", "installed")
    assert brief(report.diagnostics) == []  # its StepScheduler takes warmup_steps
    assert summary(path) == "1 file checked against AutoModel 0.8.0 (installed here): no problems\n"
    bad = config(tmp_path, RECIPE + WARMUP.replace("warmup_steps", "warmup_step"), "bad.yaml")
    (found,) = validate_path(bad, offline_settings()).diagnostics
    assert (found.code, found.path) == ("unknown-argument", "step_scheduler.warmup_step")
    assert found.message.endswith("takes no argument 'warmup_step' in AutoModel 0.8.0: the job "
                                  "stops at startup with a TypeError")  # fmt: skip
    assert found.hint == "did you mean 'warmup_steps'?"


def test_a_known_release_installed_here_is_its_table(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    site = installed_standin(tmp_path / "site", "0.4.0")
    forwarding = installed.find
    monkeypatch.setattr(installed, "find", lambda path=None: forwarding(path or [str(site)]))
    report = validate_path(config(tmp_path, RECIPE + WARMUP), offline_settings())
    assert (report.automodel_version, report.automodel_why) == ("0.4.0", "installed here")
    assert [d.message.split(":")[0] for d in report.diagnostics] == [
        "step_scheduler (built as StepScheduler) takes no argument 'warmup_steps' in AutoModel "
        "0.4.0"
    ]


def test_the_installed_release_may_be_named_and_a_named_one_wins(
    installed_here: Path, tmp_path: Path
) -> None:
    path = config(tmp_path, RECIPE + WARMUP)
    named = Layers(None, (parse_override("automodel_version=0.8.0"),))
    report = validate_path(path, offline_settings(), layers=named)
    assert (report.automodel_version, report.automodel_found, report.diagnostics) == (
        "0.8.0", "set", []
    )  # fmt: skip
    older = Layers(None, (parse_override("automodel_version=0.7.0"),))
    report = validate_path(path, offline_settings(), layers=older)
    assert (report.automodel_version, report.automodel_found) == ("0.7.0", "set")
    assert [d.code for d in report.diagnostics] == ["unknown-argument"]
    setting = Settings(check_paths=False, check_env=False, automodel_version="0.6.0")
    assert validate_path(path, setting).automodel_found == "setting"


# ------------------------------------------------------------------- an AutoModel image's tag
@pytest.mark.parametrize(
    ("image", "tag", "version"),
    [
        ("nvcr.io/nvidia/nemo-automodel:26.04", "26.04", "0.4.0"),
        ("nvcr.io#nvidia/nemo-automodel:25.11.00", "25.11", "0.2.0"),
        ("user@nvcr.io#nvidia/nemo-automodel:26.02", "26.02", "0.3.0"),
        ("docker:nvcr.io/nvidia/nemo-automodel:26.06.01", "26.06", "0.5.0"),
        ("/images/nvidia+nemo-automodel+26.04.sqsh", "26.04", "0.4.0"),
        ("nvcr.io/nvidia/nemo-automodel:26.08", "26.08", None),
        ("nvidia+nemo-automodel+26.02.sqsh", "26.02", "0.3.0"),  # a file name alone
        (" nvidia/nemo-automodel:26.04\n", "26.04", "0.4.0"),
    ],
)
def test_an_automodel_image_names_its_release(image: str, tag: str, version: str | None) -> None:
    found = automodel_image(image)
    assert found is not None and (found.tag, found.version) == (tag, version)


@pytest.mark.parametrize(
    "image",
    ["nvcr.io/nvidia/nemo:dev", "nvcr.io/nvidia/nemo-automodel:latest",
     "nvcr.io/nvidia/nemo-automodel", "nvcr.io/nvidia/nemo-automodel@sha256:00", "/x/other.sqsh",
     "/x/nemo-automodel+26.04.d/other.sqsh",  # only the file's own name says
     "a@b@nvcr.io#nvidia/nemo-automodel:26.04"],
)  # fmt: skip
def test_other_images_say_nothing(image: str) -> None:
    assert automodel_image(image) is None


def test_an_image_tag_beats_the_installed_release_and_an_unknown_one_is_a_note(
    installed_here: Path, tmp_path: Path
) -> None:
    image = "slurm:\n  nodes: 1\n  ntasks_per_node: 8\n  container_image: "
    image += "nvcr.io/nvidia/nemo-automodel:"
    report = validate_path(config(tmp_path, RECIPE + image + "26.04\n"), offline_settings())
    assert (report.automodel_version, report.automodel_why) == ("0.4.0", "image tag 26.04")
    report = validate_path(config(tmp_path, RECIPE + image + "26.10\n"), offline_settings())
    assert (report.automodel_version, report.automodel_why) == ("0.8.0", "installed here")
    (note,) = report.diagnostics
    assert brief([note]) == ["5:20 note[automodel-image-unknown] slurm.container_image"]
    assert note.message == (
        "image tag 26.10 is not in this tool's table of AutoModel images (25.11, 26.02, 26.04, "
        "26.06): the release it holds is not known here; checked against AutoModel 0.8.0 "
        "(installed here)"
    )


def test_nothing_found_is_the_default_said_as_before(tmp_path: Path) -> None:
    path = config(tmp_path, RECIPE)
    report = validate_path(path, offline_settings())
    assert (report.automodel_version, report.automodel_found, report.automodel_why) == (
        "0.7.0", "default", None
    )  # fmt: skip
    assert summary(path) == "1 file checked against AutoModel 0.7.0: no problems\n"


# ------------------------------------------------------------------- the order, one over another
def fork_job(tmp_path: Path, checkout: Path | None, image: str = "") -> Path:
    """A job needing the fork's StepScheduler (``warmup_steps``), its repo_root ``checkout``."""
    slurm = "slurm:\n  nodes: 1\n  ntasks_per_node: 8\n"
    slurm += f"  repo_root: {checkout}\n" if checkout is not None else ""
    slurm += f"  container_image: nvcr.io/nvidia/nemo-automodel:{image}\n" if image else ""
    return config(tmp_path, RECIPE + WARMUP + slurm)


def found(report: object) -> tuple[object, ...]:
    return tuple(getattr(report, f"automodel_{k}") for k in ("version", "found", "why"))


def test_automodel_source_beats_a_named_release_and_an_unreadable_one_gives_way(
    tmp_path: Path,
) -> None:
    standin(tmp_path / "fork", ", warmup_steps=0")
    path = fork_job(tmp_path, None)
    named = offline_settings(automodel_source=tmp_path / "fork", automodel_version="0.6.0")
    report = validate_path(path, named)
    assert found(report) == ("main", "source", f"--automodel-source {tmp_path / 'fork'}")
    assert report.diagnostics == []
    (tmp_path / "plain").mkdir()
    named = offline_settings(automodel_source=tmp_path / "plain", automodel_version="0.6.0")
    report = validate_path(path, named)
    assert found(report) == ("0.6.0", "setting", None)
    assert brief(report.diagnostics) == [
        "1:1 note[automodel-not-read] ",
        "4:3 error[unknown-argument] step_scheduler.warmup_steps",
    ]
    assert report.diagnostics[0].message.startswith(
        f"--automodel-source {tmp_path / 'plain'} holds no nemo_automodel package"
    )


def test_a_named_release_leaves_the_repo_root_unread(tmp_path: Path) -> None:
    checkout = tmp_path / "fork"
    standin(checkout, ", warmup_steps=0")
    os.mkfifo(checkout / "nemo_automodel" / "pipe.py")  # read, it would be a note
    path = fork_job(tmp_path, checkout)
    report = validate_path(path, offline_settings(automodel_version="main"))
    assert found(report) == ("main", "setting", None)
    assert [d.code for d in report.diagnostics] == ["unknown-argument"]  # main's own table


def test_the_repo_root_beats_the_image_and_the_installed_release(
    installed_here: Path, tmp_path: Path
) -> None:
    checkout = tmp_path / "fork"
    standin(checkout, ", warmup_steps=0")
    report = validate_path(fork_job(tmp_path, checkout, "26.04"), offline_settings())
    assert found(report) == ("main", "repo_root", f"slurm.repo_root {checkout}")
    assert report.diagnostics == []
    assert summary(fork_job(tmp_path, checkout, "26.04")) == (
        f"1 file checked against AutoModel main (slurm.repo_root {checkout}): no problems\n"
    )


def test_a_repo_root_that_cannot_be_read_gives_way_to_the_image(tmp_path: Path) -> None:
    (tmp_path / "own_code").mkdir()
    path = fork_job(tmp_path, tmp_path / "own_code", "26.04")
    report = validate_path(path, offline_settings())
    assert found(report) == ("0.4.0", "image", "image tag 26.04")
    assert brief(report.diagnostics) == [
        "4:3 error[unknown-argument] step_scheduler.warmup_steps",
        "8:14 note[automodel-not-read] slurm.repo_root",
    ]
    assert summary(path).endswith(
        "1 file checked against AutoModel 0.4.0 (image tag 26.04): 1 error, 0 warnings; 1 failed\n"
    )


def test_a_profile_names_the_release_over_what_is_installed(
    installed_here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "profiles.yaml"
    site.write_text('eos:\n  automodel_version: "0.8.0"\nold:\n  automodel_version: "0.5.0"\n')
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    path = config(tmp_path, RECIPE + WARMUP)
    report = validate_path(path, offline_settings(), layers=Layers("eos", ()))
    assert (found(report), report.diagnostics) == (("0.8.0", "profile", None), [])
    report = validate_path(path, offline_settings(), layers=Layers("old", ()))
    assert found(report) == ("0.5.0", "profile", None)
    assert [d.code for d in report.diagnostics] == ["unknown-argument"]


def test_files_found_different_ways_are_each_said_in_the_summary_and_the_json(
    tmp_path: Path,
) -> None:
    image = config(tmp_path, RECIPE + "slurm:\n  nodes: 1\n  container_image: nvcr.io#nvidia/"
                   "nemo-automodel:26.02\n", "image.yaml")  # fmt: skip
    plain = config(tmp_path, RECIPE, "plain.yaml")
    reports = [validate_path(p, offline_settings()) for p in (plain, image)]
    out = io.StringIO()
    write_report(reports, "text", out, strict=False, version=None)
    assert out.getvalue().splitlines()[-1] == (
        "2 files checked against AutoModel 0.3.0 (image tag 26.02) and 0.7.0: no problems"
    )
    out = io.StringIO()
    write_report(reports, "json", out, strict=False, version=None)
    data = json.loads(out.getvalue())
    assert data["automodel_version"] == ["0.3.0", "0.7.0"]
    assert [(f["automodel_version"], f["automodel_found"], f["automodel_why"])
            for f in data["files"]] == [
        ("0.7.0", "default", None), ("0.3.0", "image", "image tag 26.02")
    ]  # fmt: skip
