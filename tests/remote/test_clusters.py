"""Named clusters: each field of a definition checked, and how one is found."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.remote.clusters import ClusterError, find_remote, read_remote
from automodel_launch.remote.ssh import why


def _good(**changes: object) -> dict[str, object]:
    raw: dict[str, object] = {"host": "me@login.example.org", "remote_dir": "/lustre/me/jobs"}
    raw.update(changes)
    return raw


def test_a_full_definition_reads() -> None:
    remote = read_remote("lab", _good(port=2222, ssh_options=["-i", "~/.ssh/id_ed25519"]))
    assert (remote.name, remote.port, remote.shown) == (
        "lab",
        2222,
        "lab (me@login.example.org:2222)",
    )


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"host": "-oProxyCommand=sh"}, "clusters.lab.host: is not a host"),
        ({"host": "a b"}, "clusters.lab.host: is not a host"),
        ({"port": 70000}, "clusters.lab.port"),
        ({"remote_dir": "jobs"}, "clusters.lab.remote_dir: must be an absolute path"),
        ({"remote_dir": "/a\nb"}, "clusters.lab.remote_dir"),
        (
            {"ssh_options": ["-o", "StrictHostKeyChecking=no"]},
            "StrictHostKeyChecking=no would weaken host-key checking",
        ),
        ({"ssh_options": ["-oUserKnownHostsFile=/dev/null"]}, "would weaken host-key checking"),
        ({"ssh_options": ["-S", "/tmp/x"]}, "'-S /tmp/x': -S is this tool's to set"),
        ({"ssh_options": ["a\nb"]}, "one line"),
        ({"user": "me"}, "clusters.lab.user: Extra inputs are not permitted"),
    ],
)
def test_bad_fields_are_named_with_the_fix(changes: dict[str, object], said: str) -> None:
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", _good(**changes))
    assert said in str(caught.value)


def test_find_names_the_profile_file_and_suggests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "automodel-launch"
    folder.mkdir()
    (folder / "profiles.yaml").write_text(
        "clusters:\n  lab:\n    host: me@login\n    remote_dir: /scratch/me\n"
        "eos:\n  remote: lab\n  slurm: {partition: batch}\n"
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", "")
    assert find_remote("lab").host == "me@login"
    with pytest.raises(ClusterError, match="no cluster 'lba'; did you mean lab"):
        find_remote("lba")
    from automodel_launch.profiles.files import find, profile_files

    files = profile_files()
    assert files[-1].names == ["eos"]
    profile = find("eos", files)
    assert profile is not None and profile.remote == "lab" and profile.problems == []


@pytest.mark.parametrize(
    ("remote_dir", "bad"),
    [("/lustre/my jobs", " "), ("/l/$(id)", "$"), ("/l/`id`", "`"), ("/l/a;b", ";"),
     ("/l/%u", "%"), ("/l/#x", "#"), ("/l/it's", "'"), ("/l/a\tb", "\t"), ("/l/*", "*")],
)  # fmt: skip
def test_a_remote_dir_an_sbatch_line_cannot_carry_is_refused(remote_dir: str, bad: str) -> None:
    """The rule of ``slurm.job_dir``: Slurm splits ``#SBATCH --output`` at a blank."""
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", _good(remote_dir=remote_dir))
    assert str(caught.value) == (
        f"clusters.lab.remote_dir: contains {bad!r}, which an #SBATCH line cannot carry "
        "safely: choose a path of letters, digits, '/', '_', '-', '.'"
    )


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "ssh: connect to host 127.0.0.1 port 1: Connection refused",
            "cannot reach lab (h): connection refused",
        ),
        ("Host key verification failed.", "its host key is not in known_hosts"),
        ("root@127.0.0.1: Permission denied (publickey).", "lab (h) refused the key"),
        (
            "rsync: connection unexpectedly closed (0 bytes received so far)",
            "dropped while copying",
        ),
        ("something else\nthe last line", "ssh to lab (h) failed: the last line"),
    ],
)
def test_what_ssh_says_becomes_one_line(said: str, expected: str) -> None:
    remote = read_remote("lab", _good(host="h"))
    doing = "copying the job directory" if "rsync" in said else "connect"
    assert expected in why(remote, said, doing)
