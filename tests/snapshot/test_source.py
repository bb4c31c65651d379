"""automodel_launch/snapshot/source.py: the checkout on this host that repo_root names."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.snapshot import SnapshotError
from automodel_launch.snapshot.source import host_root


def section(**fields: Any) -> SlurmConfig:
    return SlurmConfig.model_validate({"time": "01:00:00", **fields})


def test_no_repo_root_is_nothing_to_snapshot() -> None:
    assert host_root(section(), {}) is None


def test_a_path_is_taken_as_it_is_here_links_resolved(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    assert host_root(section(repo_root=str(tmp_path / "link")), {}) == tmp_path / "real"


def test_home_and_variables_are_resolved_with_the_submitting_environment(
    tmp_path: Path,
) -> None:
    (tmp_path / "code" / "Automodel").mkdir(parents=True)
    home = {"HOME": str(tmp_path / "code")}
    assert host_root(section(repo_root="~/Automodel"), home) == tmp_path / "code/Automodel"
    assert host_root(section(repo_root="~"), home) == tmp_path / "code"
    assert host_root(section(repo_root="~"), {}) == Path(os.path.realpath(Path.home()))
    found = host_root(section(repo_root="${WHERE}/Automodel"), {"WHERE": str(tmp_path / "code")})
    assert found == tmp_path / "code/Automodel"
    with pytest.raises(SnapshotError) as caught:
        host_root(section(repo_root="${WHERE}/Automodel"), {})
    assert str(caught.value) == (
        "slurm.repo_root: ${WHERE} is not set here, so the checkout to snapshot is unknown"
    )
    assert caught.value.hint == (
        "set WHERE where you submit, or submit with --no-snapshot to run the live tree"
    )


def test_a_directory_missing_here_is_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for missing in (tmp_path / "none", tmp_path / "file"):
        with pytest.raises(SnapshotError) as caught:
            host_root(section(repo_root=str(missing)), {})
        assert str(caught.value) == (
            f"slurm.repo_root: {missing} is not a directory on this host, so its code "
            "cannot be snapshotted"
        )
        assert caught.value.hint == (
            "submit from a host that sees the checkout, or submit with --no-snapshot to run "
            "the live tree"
        )


@pytest.mark.parametrize(
    ("repo_root", "mounts", "expected"),
    [
        ("/opt/A", {"nemo_mount": "{src}/A:/opt/A"}, "A"),
        ("/opt/A/sub", {"nemo_mount": "{src}/A:/opt/A/"}, "A/sub"),
        ("/opt/X/sub", {"nemo_mount": "{src}/A:/opt/X"}, "A/sub"),  # only "/" is cut off
        ("/opt/A", {"extra_mounts": ["{src}/B:/data", "{src}/A/:/opt/A"]}, "A"),
        ("/opt/A", {"extra_mounts": ["{src}/A:/opt/A"], "nemo_mount": "{src}/B:/opt/A"}, "A"),
    ],
)
def test_inside_the_container_the_mount_source_is_snapshotted(
    tmp_path: Path, repo_root: str, mounts: dict[str, Any], expected: str
) -> None:
    for name in ("A/sub", "B"):
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    given = {k: [m.format(src=tmp_path) for m in v] if isinstance(v, list)
             else v.format(src=tmp_path) for k, v in mounts.items()}  # fmt: skip
    cfg = section(repo_root=repo_root, container_image="nvcr.io/x:1", **given)
    assert host_root(cfg, {}) == tmp_path / expected


def test_a_mount_is_used_only_in_a_container_and_only_for_its_own_path(tmp_path: Path) -> None:
    (tmp_path / "A").mkdir()
    mount = f"{tmp_path}/A:{tmp_path}/Aother"
    cfg = section(repo_root=str(tmp_path / "A"), container_image="x:1", nemo_mount=mount)
    assert host_root(cfg, {}) == tmp_path / "A"  # /A is not under /Aother
    bare = section(repo_root="/opt/A", container_image=None, nemo_mount=f"{tmp_path}/A:/opt/A")
    with pytest.raises(SnapshotError, match="/opt/A is not a directory on this host"):
        host_root(bare, {})
