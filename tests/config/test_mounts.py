"""automodel_launch/config/mounts.py: container mounts in the three spellings users write."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from automodel_launch.config.mounts import PYXIS_FLAGS, Mount
from automodel_launch.config.slurm import SlurmConfig
from tests.conftest import Validate, brief

MOUNT_HINT = "write /source:/dest[:ro], '/path', or {source: /source, dest: /dest}"


def mounts(*items: object) -> list[str]:
    cfg = SlurmConfig.model_validate({"extra_mounts": list(items)})
    return [m.spec for m in cfg.extra_mounts]


# ------------------------------------------------------------------ the three spellings
def test_all_three_spellings_in_one_file(validate: Validate) -> None:
    text = """\
        slurm:
          extra_mounts:
            - {source: /lustre/data, dest: /data}
            - source: /lustre/models
              dest: /models
              flags: ro
            - /lustre/cache:/cache
            - /lustre/ro:/ro:ro
            - /scratch
            - /a:/b:ro+rprivate
            - ${DATA_DIR}:/in
    """
    assert validate(text) == []


@pytest.mark.parametrize(
    ("item", "spec"),
    [
        ({"source": "/lustre/data", "dest": "/data"}, "/lustre/data:/data"),
        ({"source": "/a", "dest": "/b", "flags": "ro"}, "/a:/b:ro"),
        ("/lustre/cache:/cache", "/lustre/cache:/cache"),
        ("/lustre:/lustre:ro", "/lustre:/lustre:ro"),
        ("/scratch", "/scratch:/scratch"),
        ("/a::ro", "/a:/a:ro"),
        ("/a:/b:ro+rprivate", "/a:/b:ro+rprivate"),
        ("/a:/b:x-create=dir", "/a:/b:x-create=dir"),
        ("${DATA}:/data", "${DATA}:/data"),
    ],
)
def test_each_spelling_normalises_to_source_dest_flags(item: object, spec: str) -> None:
    assert mounts(item) == [spec]


def test_a_text_mount_is_split_into_fields() -> None:
    (mount,) = SlurmConfig.model_validate({"extra_mounts": ["/a:/b:ro"]}).extra_mounts
    assert (mount.source, mount.dest, mount.flags) == ("/a", "/b", "ro")


@pytest.mark.parametrize("flag", sorted(PYXIS_FLAGS))
def test_every_pyxis_flag_is_accepted(flag: str) -> None:
    assert mounts(f"/a:/b:{flag}") == [f"/a:/b:{flag}"]


# ------------------------------------------------------------------ invalid paths
@pytest.mark.parametrize(
    ("item", "where", "message", "hint"),
    [
        (
            "~/data:/data",
            "3:7 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path '~/data' is not absolute",
            "expand it (pyxis does not)",
        ),
        (
            "data:/data",
            "3:7 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path 'data' is not absolute",
            "use an absolute path",
        ),
        (
            "./data:/data",
            "3:7 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path './data' is not absolute",
            "use an absolute path",
        ),
        (
            "/data:data",
            "3:7 error[invalid-mount] slurm.extra_mounts[0].dest",
            "mount path 'data' is not absolute",
            "use an absolute path",
        ),
        (
            "/data:~/data",
            "3:7 error[invalid-mount] slurm.extra_mounts[0].dest",
            "mount path '~/data' is not absolute",
            "expand it (pyxis does not)",
        ),
        (
            '"/a b:/x"',
            "3:7 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path '/a b' contains whitespace",
            MOUNT_HINT,
        ),
        (
            '"/a,b:/x"',
            "3:7 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path '/a,b' contains ',', which pyxis cannot express",
            "rename or symlink the directory",
        ),
        (
            "/a:/b:rw:extra",
            "3:7 error[invalid-mount] slurm.extra_mounts[0]",
            "'/a:/b:rw:extra' is not a mount",
            MOUNT_HINT,
        ),
        (
            '":/x"',
            "3:7 error[invalid-mount] slurm.extra_mounts[0]",
            "':/x' is not a mount",
            MOUNT_HINT,
        ),
        (
            '""',
            "3:7 error[invalid-mount] slurm.extra_mounts[0]",
            "'' is not a mount",
            MOUNT_HINT,
        ),
    ],
)
def test_invalid_text_mounts(
    validate: Validate, item: str, where: str, message: str, hint: str
) -> None:
    diags = validate(f"slurm:\n  extra_mounts:\n    - {item}\n")
    assert brief(diags) == [where]
    assert diags[0].message == message
    assert diags[0].hint == hint


@pytest.mark.parametrize(
    ("mapping", "where", "message"),
    [
        (
            '{source: "~/x", dest: /x}',
            "3:16 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path '~/x' is not absolute",
        ),
        (
            '{source: "/a,b", dest: /x}',
            "3:16 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path '/a,b' contains ',', which pyxis cannot express",
        ),
        (
            '{source: /a, dest: "/x:y"}',
            "3:26 error[invalid-mount] slurm.extra_mounts[0].dest",
            "mount path '/x:y' contains ':', which pyxis cannot express",
        ),
        (
            '{source: "/a:b", dest: /x}',
            "3:16 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path '/a:b' contains ':', which pyxis cannot express",
        ),
        (
            "{source: relative, dest: /x}",
            "3:16 error[invalid-mount] slurm.extra_mounts[0].source",
            "mount path 'relative' is not absolute",
        ),
    ],
)
def test_invalid_mapping_mounts(validate: Validate, mapping: str, where: str, message: str) -> None:
    diags = validate(f"slurm:\n  extra_mounts:\n    - {mapping}\n")
    assert brief(diags) == [where]
    assert diags[0].message == message


def test_both_paths_of_one_mount_are_reported(validate: Validate) -> None:
    assert brief(validate("slurm:\n  extra_mounts:\n    - {source: a, dest: b}\n")) == [
        "3:16 error[invalid-mount] slurm.extra_mounts[0].source",
        "3:25 error[invalid-mount] slurm.extra_mounts[0].dest",
    ]


# ------------------------------------------------------------------ flags
@pytest.mark.parametrize(
    ("item", "where", "unknown"),
    [
        ("/a:/b:bogus", "3:7 error[invalid-mount] slurm.extra_mounts[0].flags", "bogus"),
        ("/a:/b:ro+bogus", "3:7 error[invalid-mount] slurm.extra_mounts[0].flags", "bogus"),
        ("/a:/b:RO", "3:7 error[invalid-mount] slurm.extra_mounts[0].flags", "RO"),
        ("/a:/b:ro,rw", "3:7 error[invalid-mount] slurm.extra_mounts[0].flags", "ro,rw"),
        (
            "{source: /a, dest: /b, flags: weird}",
            "3:37 error[invalid-mount] slurm.extra_mounts[0].flags",
            "weird",
        ),
    ],
)
def test_unknown_flags(validate: Validate, item: str, where: str, unknown: str) -> None:
    diags = validate(f"slurm:\n  extra_mounts:\n    - {item}\n")
    assert brief(diags) == [where]
    assert diags[0].message == f"unknown mount flag(s) {unknown}"
    assert diags[0].hint is not None
    assert diags[0].hint.startswith("flags are joined with '+' from: bind, nodev,")


def test_several_unknown_flags_are_listed() -> None:
    with pytest.raises(ValidationError, match=r"unknown mount flag\(s\) a, b"):
        Mount.model_validate({"source": "/x", "dest": "/y", "flags": "a+ro+b"})


# ------------------------------------------------------------------ structure
def test_a_mapping_mount_needs_dest_and_has_no_other_keys(validate: Validate) -> None:
    diags = validate("slurm:\n  extra_mounts:\n    - {source: /a}\n")
    assert brief(diags) == ["3:7 error[missing-field] slurm.extra_mounts[0].dest"]
    assert diags[0].message == "slurm.extra_mounts[0] needs 'dest'"
    diags = validate("slurm:\n  extra_mounts:\n    - {source: /a, dest: /b, mode: ro}\n")
    assert brief(diags) == ["3:30 error[unknown-key] slurm.extra_mounts[0].mode"]
    assert diags[0].hint == "valid keys: source, dest, flags"
    diags = validate("slurm:\n  extra_mounts:\n    - {src: /a, dest: /b}\n")
    assert brief(diags) == [
        "3:7 error[missing-field] slurm.extra_mounts[0].source",
        "3:8 error[unknown-key] slurm.extra_mounts[0].src",
    ]


@pytest.mark.parametrize(
    ("value", "where", "message"),
    [
        ("/data", "2:17 error[wrong-type] slurm.extra_mounts", "expected a list, got '/data'"),
        (
            "[5]",
            "2:18 error[wrong-type] slurm.extra_mounts[0]",
            "expected a mapping of keys, got 5",
        ),
    ],
)
def test_wrong_shapes(validate: Validate, value: str, where: str, message: str) -> None:
    diags = validate(f"slurm:\n  extra_mounts: {value}\n")
    assert brief(diags) == [where]
    assert diags[0].message == message


def test_nemo_mount_takes_any_spelling(validate: Validate) -> None:
    assert validate("slurm:\n  nemo_mount: /src/Automodel:/opt/Automodel\n") == []
    assert validate("slurm:\n  nemo_mount: {source: /src, dest: /opt/Automodel}\n") == []
    assert brief(validate("slurm:\n  nemo_mount: ~/Automodel:/opt/Automodel\n")) == [
        "2:15 error[invalid-mount] slurm.nemo_mount.source"
    ]


# ------------------------------------------------------------------ duplicate destinations
def test_two_mounts_on_one_dest(validate: Validate) -> None:
    text = """\
        slurm:
          extra_mounts:
            - /a:/data
            - /b:/c
            - {source: /d, dest: /data/}
    """
    diags = validate(text)
    assert brief(diags) == ["5:7 error[duplicate-mount-dest] slurm.extra_mounts[2]"]
    assert diags[0].message == "two mounts land on /data/ (also slurm.extra_mounts[0])"
    assert diags[0].hint == "give each mount its own container path"


def test_a_single_path_mount_collides_with_its_dest(validate: Validate) -> None:
    assert brief(validate("slurm:\n  extra_mounts:\n    - /data\n    - /other:/data\n")) == [
        "4:7 error[duplicate-mount-dest] slurm.extra_mounts[1]"
    ]


def test_collisions_with_hf_home_and_nemo_mount(validate: Validate) -> None:
    text = """\
        slurm:
          hf_home: /hf
          nemo_mount: /src:/opt/Automodel
          extra_mounts:
            - /x:/hf
            - /y:/opt/Automodel
    """
    diags = validate(text)
    assert brief(diags) == [
        "5:7 error[duplicate-mount-dest] slurm.extra_mounts[0]",
        "6:7 error[duplicate-mount-dest] slurm.extra_mounts[1]",
    ]
    assert diags[0].message == "two mounts land on /hf (also slurm.hf_home)"
    assert diags[1].message == "two mounts land on /opt/Automodel (also slurm.nemo_mount)"


def test_a_relative_hf_home_is_not_mounted_so_cannot_collide(validate: Validate) -> None:
    assert validate("slurm:\n  hf_home: ~/.cache/hf\n  extra_mounts:\n    - /x:/hf\n") == []


def test_distinct_dests_are_fine(validate: Validate) -> None:
    assert validate("slurm:\n  extra_mounts:\n    - /a:/a\n    - /b:/a/b\n    - /c:/\n") == []
