"""Each point of a sweep writes its checkpoints to a directory of its own.

AutoModel resumes from the latest checkpoint in ``checkpoint.checkpoint_dir``: points given
the recipe's one directory would resume from each other's last step and train nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.loading import load_text
from automodel_launch.plan.checkpoints import (
    Latest,
    for_points,
    inside,
    latest,
    relative,
    section,
)
from automodel_launch.plan.plan import JobPlan
from automodel_launch.plan.sweep import SweepError, parse_axis, points
from automodel_launch.profiles.overrides import parse_override
from tests.plan.test_plan_cli import RECIPE, SLURM

CHECKPOINT = "checkpoint:  # where AutoModel resumes from\n  checkpoint_dir: /ck/run\n"


def planned(tmp_path: Path, text: str, *sweeps: str, sets: tuple[str, ...] = ()) -> JobPlan:
    (tmp_path / "r.yaml").write_text(text)
    plan = api.plan(tmp_path / "r.yaml", sweep=list(sweeps), sets=list(sets),
                    job_dir=tmp_path / "sw", config=api.settings(check_paths=False))  # fmt: skip
    assert not plan.failed(strict=False), plan.report.diagnostics
    return plan


def configs(plan: JobPlan) -> list[str]:
    return [plan.files[f"points/{job.point.index}/job_config.yaml"] for job in plan.jobs]


def test_each_point_writes_its_own_directory_under_the_recipe_s(tmp_path: Path) -> None:
    plan = planned(tmp_path, SLURM + RECIPE + CHECKPOINT, "optimizer.lr=1e-5,1e-4,1e-3")
    own = [f"/ck/run/sweep-{plan.sweep_id}/points/{i}" for i in range(3)]
    for index, text in enumerate(configs(plan)):
        # written over the recipe's value: the comments stay
        assert text.endswith(
            f"checkpoint:  # where AutoModel resumes from\n  checkpoint_dir: {own[index]}\n"
        )
        launch = plan.files[f"points/{index}/launch.yaml"]
        assert f"checkpoint_dir: {own[index]}\n" in launch
    assert plan.checkpoints is not None
    assert plan.checkpoints.line == f"/ck/run/sweep-{plan.sweep_id}/points/INDEX, one per point"
    assert [job.checkpoints for job in plan.jobs] == own


def test_a_recipe_without_a_checkpoint_section_gets_automodel_s_default_per_point(
    tmp_path: Path,
) -> None:
    plan = planned(tmp_path, SLURM + RECIPE, "optimizer.lr=1e-5,1e-4")
    for index, text in enumerate(configs(plan)):
        own = f"checkpoints/sweep-{plan.sweep_id}/points/{index}"
        assert text.endswith(f"checkpoint:\n  checkpoint_dir: {own}\n")  # after every line
        assert text.startswith("recipe: TrainFinetuneRecipeForNextTokenPrediction\n")


def test_a_sweep_that_writes_no_checkpoints_gets_no_directory(tmp_path: Path) -> None:
    plan = planned(tmp_path, SLURM + RECIPE + "checkpoint:\n  enabled: false\n",
                   "optimizer.lr=1e-5,1e-4")  # fmt: skip
    assert all("checkpoint_dir" not in text for text in configs(plan))
    assert plan.checkpoints is not None and plan.checkpoints.line is None
    # nor one of a point that turns checkpointing off
    plan = planned(tmp_path, SLURM + RECIPE, "checkpoint.enabled=[true, false]")
    assert ["checkpoint_dir" in text for text in configs(plan)] == [True, False]


def test_a_sweep_of_the_directory_keeps_its_values(tmp_path: Path) -> None:
    plan = planned(tmp_path, SLURM + RECIPE + CHECKPOINT, "checkpoint.checkpoint_dir=/a,/b")
    first, second = configs(plan)
    assert "checkpoint_dir: /a\n" in first and "checkpoint_dir: /b\n" in second
    assert plan.checkpoints is not None and plan.checkpoints.line is None
    # a point whose checkpoint section names none gets one; the other keeps its own
    plan = planned(tmp_path, SLURM + RECIPE, "checkpoint=[{enabled: true}, {checkpoint_dir: /x}]")
    assert [job.checkpoints for job in plan.jobs] == [
        f"checkpoints/sweep-{plan.sweep_id}/points/0", None,
    ]  # fmt: skip
    assert plan.checkpoints is not None
    assert plan.checkpoints.line == (
        f"checkpoints/sweep-{plan.sweep_id}/points/INDEX, or the point's own "
        "checkpoint.checkpoint_dir"
    )


def test_a_directory_given_to_set_is_the_one_each_point_s_is_made_in(tmp_path: Path) -> None:
    plan = planned(tmp_path, SLURM + RECIPE + CHECKPOINT, "optimizer.lr=1e-5,1e-4",
                   sets=("checkpoint.checkpoint_dir=/fixed/",))  # fmt: skip
    assert [job.checkpoints for job in plan.jobs] == [
        f"/fixed/sweep-{plan.sweep_id}/points/{i}" for i in (0, 1)
    ]


@pytest.mark.parametrize(
    ("sweep", "shared"),
    [
        ("checkpoint.checkpoint_dir=[/a, /a/]", "/a"),
        ("checkpoint.checkpoint_dir=[/a/b, /a/./b, /c]", "/a/b"),
        ("checkpoint.checkpoint_dir=[msc://b/x, msc://b/x/]", "msc://b/x"),
        ("checkpoint=[{checkpoint_dir: /a}, {checkpoint_dir: /a, enabled: true}]", "/a"),
    ],
)
def test_a_sweep_whose_points_would_share_a_directory_is_refused(
    tmp_path: Path, sweep: str, shared: str
) -> None:
    (tmp_path / "r.yaml").write_text(SLURM + RECIPE)
    with pytest.raises(SweepError) as raised:
        api.plan(tmp_path / "r.yaml", sweep=[sweep], config=api.settings(check_paths=False))
    assert str(raised.value) == (
        f"points 0, 1 would write their checkpoints to one directory, {shared}: AutoModel "
        "resumes each from the other's last step"
    )
    assert raised.value.hint == (
        "sweep checkpoint.checkpoint_dir values that differ, or leave it to the sweep: each "
        "point then gets DIR/sweep-ID/points/INDEX"
    )


@pytest.mark.parametrize("restore", ["LATEST", "latest", "/ck/run/epoch_0_step_10", "${oc.env:X}"])
def test_a_restore_from_outside_the_directory_or_the_latest_is_kept(
    tmp_path: Path, restore: str
) -> None:
    text = SLURM + RECIPE + CHECKPOINT + f"  restore_from: '{restore}'\n"
    plan = planned(tmp_path, text, "optimizer.lr=1e-5,1e-4")
    assert all(f"restore_from: '{restore}'" in config for config in configs(plan))


def test_a_restore_from_named_inside_the_recipe_s_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(
        SLURM + RECIPE + CHECKPOINT + "  restore_from: epoch_0_step_9\n"
    )
    with pytest.raises(SweepError) as raised:
        api.plan(tmp_path / "r.yaml", sweep=["optimizer.lr=1,2"],
                 config=api.settings(check_paths=False))  # fmt: skip
    assert str(raised.value) == (
        "checkpoint.restore_from 'epoch_0_step_9' is a checkpoint inside checkpoint_dir "
        "/ck/run, but each point of a sweep writes its own directory"
    )
    assert raised.value.hint == "give restore_from as a path: /ck/run/epoch_0_step_9"


def test_a_file_of_launcher_sections_only_gets_no_directory() -> None:
    loaded = load_text(SLURM, "s.yaml").loaded
    assert loaded is not None
    made = for_points(loaded.data, (), points([parse_axis("slurm.nodes=1,2")]), "abc")
    assert (made.overrides, made.template, made.line) == ([(), ()], None, None)


def test_a_directory_that_is_no_text_is_left_to_its_diagnostic() -> None:
    data = {"recipe": "x", "checkpoint": {"checkpoint_dir": 5}}
    made = for_points(data, (), points([parse_axis("optimizer.lr=1,2")]), "abc")
    assert made.overrides == [(), ()]
    # nor is a restore_from that is no text
    data = {"recipe": "x", "checkpoint": {"restore_from": 5}}
    made = for_points(data, (), points([parse_axis("optimizer.lr=1,2")]), "abc")
    assert [o[0].value for o in made.overrides] == [
        f"checkpoints/sweep-abc/points/{i}" for i in (0, 1)
    ]


def test_directories_that_differ_are_kept() -> None:
    axis = parse_axis("checkpoint.checkpoint_dir=[msc://b/aX, msc://b/a, /c/X, /c]")
    made = for_points({"recipe": "x"}, (), points([axis]), "abc")
    assert made.overrides == [(), (), (), ()]


def test_the_point_s_directory_shows_once_in_a_problem_every_point_has(tmp_path: Path) -> None:
    """A warning about each point's own directory is one warning, not one per point."""
    text = SLURM + "  container_image: nvcr.io/nvidia/nemo:25.02\n" + RECIPE + CHECKPOINT
    plan = planned(tmp_path, text, "optimizer.lr=1,2,3")
    template = f"/ck/run/sweep-{plan.sweep_id}/points/INDEX"
    found = [d for d in plan.report.diagnostics if d.code == "path-not-mounted"]
    assert [(d.message, d.origin.label if d.origin else None) for d in found] == [
        (
            f"{template} is under no container mount: the job writes it into the container's "
            "own filesystem, which is lost when the job ends",
            f"--sweep checkpoint.checkpoint_dir={template}",
        )
    ]


def test_the_checkpoint_section_as_overrides_leave_it() -> None:
    data = {"checkpoint": {"enabled": False, "checkpoint_dir": "/a"}}
    sets = [parse_override(a) for a in ("optimizer.lr=1", "checkpoint.enabled=true",
                                        "checkpoint.x.y=1")]  # fmt: skip
    assert section(data, sets) == {"enabled": True, "checkpoint_dir": "/a"}
    assert section(data, [parse_override("checkpoint={is_async: true}")]) == {"is_async": True}
    assert section(data, [parse_override("checkpoint=5")]) == {}
    assert section({"checkpoint": None}, []) == {}
    broken = parse_override("checkpoint.enabled=[a")  # not applied: its diagnostic says why
    assert broken.problems and section(data, [broken]) == data["checkpoint"]
    assert data == {"checkpoint": {"enabled": False, "checkpoint_dir": "/a"}}  # not changed


@pytest.mark.parametrize(
    ("base", "path"),
    [
        ("/ck", "/ck/n"),
        ("/ck//", "/ck/n"),
        ("/", "/n"),
        ("ck", "ck/n"),
        ("", "n"),
        ("/ckX/", "/ckX/n"),
    ],
)
def test_a_directory_inside_another(base: str, path: str) -> None:
    assert inside(base, "n") == path


def test_where_a_path_is_read(tmp_path: Path) -> None:
    assert [relative(p) for p in ("ckpt", "~/ck", "/ck", "msc://b/x", "${oc.env:D}/x")] == [
        True, True, False, False, False,
    ]  # fmt: skip


def test_the_latest_step_is_the_highest_complete_checkpoint_folder(tmp_path: Path) -> None:
    ck = tmp_path / "ck"
    assert latest(str(ck)) == Latest()  # none yet
    ck.mkdir()
    assert latest(str(ck)) == Latest()
    for name in ("epoch_0_step_60", "epoch_1_step_9", "step_7", "epoch_2_step_80", "LATEST_x",
                 "epoch_0_step_99.tmp"):  # fmt: skip
        (ck / name).mkdir()
    (ck / "epoch_2_step_80" / ".incomplete").write_text("")  # an interrupted save
    (ck / "epoch_3_step_99").write_text("")  # a file
    (ck / "epoch_4_step_120").symlink_to(ck / "epoch_0_step_60")  # a link: AutoModel skips it
    (ck / "training.jsonl").write_text("{}\n")
    assert latest(str(ck)) == Latest(60)
    assert latest(str(ck) + "/") == Latest(60)
    # any folder ending in step_S, as AutoModel's other recipes name theirs
    (tmp_path / "other" / "step_100").mkdir(parents=True)
    assert latest(str(tmp_path / "other")) == Latest(100)


def test_the_latest_step_is_looked_for_in_a_bounded_number_of_entries(tmp_path: Path) -> None:
    ck = tmp_path / "ck"
    ck.mkdir()
    for step in range(6):
        (ck / f"epoch_0_step_{step}").mkdir()
    names = [entry.name for entry in os.scandir(ck)]
    first = max(int(name.rpartition("_")[2]) for name in names[:3])
    assert latest(str(ck), limit=3) == Latest(first)
    assert latest(str(ck), limit=6) == Latest(5)


def test_a_directory_not_looked_into_says_why(tmp_path: Path) -> None:
    assert latest("msc://bucket/ck") == Latest(note="not looked into: resolved where the job runs")
    assert latest("${oc.env:CK}") == Latest(note="not looked into: resolved where the job runs")
    assert latest("checkpoints/") == Latest(
        note="not looked into: relative to the job's working directory"
    )
    (tmp_path / "file").write_text("")
    assert latest(str(tmp_path / "file")) == Latest()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert latest(str(tmp_path / "loop")) == Latest(
        note="not looked into: Too many levels of symbolic links"
    )
