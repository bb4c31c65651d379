"""automodel_launch/config/sky_storage.py: SkyPilot's file_mounts, and which keep writes."""

from __future__ import annotations

import pytest

from automodel_launch.config.sky_storage import StorageMount, holder, node_path
from automodel_launch.config.skypilot import SkyPilotConfig


@pytest.mark.parametrize(
    ("path", "on_node"),
    [
        ("checkpoints/", "~/sky_workdir/checkpoints"),
        ("./ckpt/../out", "~/sky_workdir/out"),
        ("~/ckpt/", "~/ckpt"),
        ("~", "~"),
        ("/ckpt//run1/", "/ckpt/run1"),
        ("~user/x", "~/sky_workdir/~user/x"),  # SkyPilot expands ~/ only
    ],
)
def test_node_paths_read_as_skypilot_reads_them(path: str, on_node: str) -> None:
    assert node_path(path) == on_node


def test_the_deepest_mount_holds_a_path() -> None:
    bucket = StorageMount(source="s3://b")
    mounts: dict[str, str | StorageMount] = {"/ckpt": "s3://copy", "/ckpt/b/": bucket}
    assert holder(mounts, "/ckpt/b/run") == ("/ckpt/b/", bucket)
    assert holder(mounts, "/ckpt/b") == ("/ckpt/b/", bucket)
    assert holder(mounts, "/ckpt/bb") == ("/ckpt", "s3://copy")
    assert holder(mounts, "/ckp") is None
    assert holder({"ckpt": bucket}, "~/sky_workdir/ckpt/x") == ("ckpt", bucket)


@pytest.mark.parametrize(
    ("fields", "keeps"),
    [
        ({"source": "s3://b"}, True),
        ({"source": "s3://b", "mode": "mount"}, True),
        ({"source": "s3://b", "mode": "MOUNT_CACHED"}, True),
        ({"source": "s3://b", "mode": "copy"}, False),
        ({"name": "new-bucket"}, True),
        ({"name": "new-bucket", "persistent": False}, False),  # deleted with the cluster
        ({"source": "s3://b", "persistent": False}, True),  # not SkyPilot's to delete
    ],
)
def test_what_a_storage_mount_keeps(fields: dict[str, object], keeps: bool) -> None:
    assert StorageMount.model_validate(fields).writes_through is keeps


def test_a_section_takes_both_spellings_and_an_image() -> None:
    cfg = SkyPilotConfig.model_validate({
        "cloud": "aws",
        "image_id": "docker:nvcr.io/nvidia/nemo-automodel:26.04.00",
        "file_mounts": {"/data": "s3://d", "/ckpt": {"source": "s3://c", "store": "S3"}},
    })  # fmt: skip
    assert cfg.file_mounts["/data"] == "s3://d"
    assert cfg.file_mounts["/ckpt"] == StorageMount(source="s3://c", store="S3")
    assert cfg.image_id == "docker:nvcr.io/nvidia/nemo-automodel:26.04.00"
    assert SkyPilotConfig.model_validate({"cloud": "aws"}).file_mounts == {}
