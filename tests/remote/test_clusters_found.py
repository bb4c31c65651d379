"""Which cluster a command goes to: every field's check, the files that define clusters,
``--remote`` and a profile's ``remote:``."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.remote.clusters import (
    ClusterError,
    chosen_remote,
    defined_clusters,
    find_remote,
    read_remote,
)

HINT = "see docs/remote.md for the fields of a cluster"


def _good(**changes: object) -> dict[str, object]:
    return {"host": "h", "remote_dir": "/r", **changes}


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The site's file and the user's, neither written yet."""
    (tmp_path / "automodel-launch").mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    site = tmp_path / "site.yaml"
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SITE_PROFILES", str(site))
    site.write_text("{}\n")
    return site, tmp_path / "automodel-launch" / "profiles.yaml"


def test_a_bad_field_is_one_line_with_the_hint() -> None:
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", _good(host="a b"))
    assert str(caught.value) == (
        "clusters.lab.host: is not a host: write user@host, host, or a Host alias of ~/.ssh/config"
    )
    assert caught.value.hint == HINT
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", {"host": "h"})
    assert str(caught.value) == "clusters.lab.remote_dir: Field required"
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", ["host", "h"])
    assert (str(caught.value), caught.value.hint) == (
        "cluster 'lab' is not a mapping", "write host: and remote_dir: under it",
    )  # fmt: skip


def test_the_name_is_the_key_and_the_folder_is_tidied() -> None:
    remote = read_remote("lab-2", _good(name="other", remote_dir="/r//jobs/"))
    assert (remote.name, remote.remote_dir, remote.shown) == ("lab-2", "/r/jobs", "lab-2 (h)")


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"host": "a" * 254}, "host: is not a host"),
        ({"host": "u" * 65 + "@h"}, "host: is not a host"),
        ({"host": "h;x"}, "host: is not a host"),
        ({"host": "-v"}, "host: is not a host"),
        ({"host": "@h"}, "host: is not a host"),
        ({"port": 65536}, "port: Input should be less than or equal to 65535"),
        ({"port": 0}, "port: Input should be greater than or equal to 1"),
        ({"ssh_options": ["-v", 7]}, "clusters.lab.ssh_options.1: Input should be a valid string"),
        ({"ssh_options": ["-v"] * 33}, "ssh_options: List should have at most 32 items"),
        ({"ssh_options": [""]}, "ssh_options: each option is one line of at most 1024"),
        ({"ssh_options": ["x" * 1025]}, "ssh_options: each option is one line"),
        ({"ssh_options": ["a\x00"]}, "ssh_options: each option is one line"),
        ({"ssh_options": ["a\rb"]}, "ssh_options: each option is one line"),
        ({"ssh_options": ["-o'x\""]}, "ssh_options: an option may hold ' or \", not both"),
        ({"ssh_options": ["-oUserKnownHostsFile=/dev/null"]}, "UserKnownHostsFile=/dev/null wo"),
        ({"ssh_options": ["-o", "UserKnownHostsFile /dev/null"]}, "UserKnownHostsFile=/dev/nu"),
        ({"ssh_options": ["-o\tUserKnownHostsFile\t=\t/dev/null"]}, "UserKnownHostsFile=/d"),
        ({"ssh_options": ["-o\tStrictHostKeyChecking=no"]}, "StrictHostKeyChecking=no would"),
        ({"remote_dir": "/" + "a" * 1024}, "remote_dir: String should have at most 1024 char"),
        ({"remote_dir": "/a\x1fb"}, "remote_dir: contains '\\x1f', which an #SBATCH line"),
        ({"name": "x"}, ""),
    ],
)
def test_each_bound_is_enforced(changes: dict[str, object], said: str) -> None:
    if not said:
        with pytest.raises(ClusterError, match=r"clusters\.-x\.name: String should match"):
            read_remote("-x", _good())
        return
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", _good(**changes))
    assert said in str(caught.value)


def test_what_may_be_written() -> None:
    remote = read_remote(
        "lab",
        _good(
            host="u" * 64 + "@" + "a" * 253,
            port=65535,
            ssh_options=["-v"] * 26
            + ["-o" + "x" * 1022, "-oProxyJump='me'", "-J", "a b", "-oUserKnownHostsFile=/k/h"]
            + ["-oproxycommand=x -oControlPath=/t"],
            remote_dir="/" + "a" * 1023,
        ),
    )
    assert remote.port == 65535 and len(remote.ssh_options) == 32
    assert read_remote("a" * 64, _good()).name == "a" * 64
    with pytest.raises(ClusterError, match="String should match pattern"):
        read_remote("a" * 65, _good())
    for host in ("h", "[::1]", "fe80::1%eth0", "a.b-c_d", "u.s_e-r+x@h"):
        assert read_remote("lab", _good(host=host)).host == host


def test_the_users_file_replaces_the_sites_cluster(files: tuple[Path, Path]) -> None:
    site, user = files
    site.write_text(
        "clusters:\n  lab: {host: site, remote_dir: /s}\n  big: {host: b, remote_dir: /b}\n"
    )
    user.write_text("clusters:\n  lab: {host: mine, remote_dir: /m}\np: {remote: lab}\n")
    found = defined_clusters()
    assert found == {
        "lab": (str(user), {"host": "mine", "remote_dir": "/m"}),
        "big": (str(site), {"host": "b", "remote_dir": "/b"}),
    }
    assert find_remote("lab").host == "mine"
    assert find_remote("big").host == "b"


def test_clusters_that_are_no_mapping_name_the_file(files: tuple[Path, Path]) -> None:
    site, user = files
    site.write_text("- a list\n")
    user.write_text("clusters: [lab]\n")
    with pytest.raises(ClusterError) as caught:
        defined_clusters()
    assert (str(caught.value), caught.value.hint) == (
        f"{user}: clusters: is not a mapping of named clusters",
        "write clusters: then each cluster's name, indented",
    )
    user.write_text("clusters:\n  7: {host: h, remote_dir: /r}\n")
    assert list(defined_clusters()) == ["7"]


def test_finding_a_cluster(files: tuple[Path, Path]) -> None:
    _site, user = files
    with pytest.raises(ClusterError) as caught:
        find_remote("lab")
    assert (str(caught.value), caught.value.hint) == (
        "no cluster 'lab': no profile file defines clusters:",
        "define it under clusters: in profiles.yaml",
    )
    with pytest.raises(ClusterError) as caught:
        find_remote("-oProxyCommand=x")
    assert str(caught.value) == "--remote: '-oProxyCommand=x' is not a cluster name"
    user.write_text("clusters:\n  lab: {host: h, remote_dir: r}\n  eos: {host: h}\n")
    with pytest.raises(ClusterError, match=r"^no cluster 'zzz'; known names: eos, lab$"):
        find_remote("zzz")
    with pytest.raises(ClusterError) as caught:
        find_remote("lab")
    assert str(caught.value) == (
        f"{user}: clusters.lab.remote_dir: must be an absolute path on the cluster "
        "(/lustre/me/jobs)"
    )
    assert caught.value.hint == HINT


def test_the_cluster_chosen(files: tuple[Path, Path]) -> None:
    _site, user = files
    user.write_text(
        "clusters:\n  lab: {host: h, remote_dir: /r}\n  big: {host: b, remote_dir: /b}\n"
        "p: {remote: big}\nq: {slurm: {partition: x}}\n"
    )
    assert chosen_remote(None, None) is None
    assert chosen_remote("", "") is None
    assert chosen_remote("lab", "p").host == "h"  # type: ignore[union-attr]
    assert chosen_remote(None, "p").host == "b"  # type: ignore[union-attr]
    assert chosen_remote(None, "q") is None
    assert chosen_remote(None, "nobody") is None


def test_a_job_directory_there_is_at_most_4096_characters() -> None:
    """The job's record takes a path as long as the cluster's remote_dir and the job's
    own names make it, and no longer."""
    from pydantic import ValidationError

    from automodel_launch.jobs.origins import RemoteRecord

    longest = "/" + "a" * 4095
    record = RemoteRecord.model_validate({"name": "lab", "host": "h", "job_dir": longest})
    assert record.job_dir == longest
    with pytest.raises(ValidationError, match="at most 4096 characters"):
        RemoteRecord.model_validate({"name": "lab", "host": "h", "job_dir": longest + "a"})
