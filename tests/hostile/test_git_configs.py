"""A repository whose git configuration names commands: the snapshot runs none of them.

Each case writes, into the repository's ``.git/config`` (or a file it includes, or the
submitting shell's environment), a setting that makes git run a command, the command
leaving a mark. The snapshot must read the same files and the same diff as for a harmless
repository, and no mark may appear. ``core.worktree`` and the ``GIT_*`` variables must not
point the snapshot at another directory.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from automodel_launch.snapshot import SnapshotError, git_run
from automodel_launch.snapshot.git import inspect_git
from tests.snapshot.gitrepo import GIT_ENV, git, repo

LIMIT = 10**6
FILES = {"train.py": "print('committed')\n", "data.txt": "rows\n", ".gitattributes": ""}
EDITED = "print('edited')\n"


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """A committed repository with an edited tracked file; and the mark's path."""
    root = tmp_path / "r"
    repo(root, FILES)
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-qm", "attributes")
    (root / "train.py").write_text(EDITED)
    (root / "data.txt").write_text("rows\nmore rows\n")
    return root, tmp_path / "mark"


def _mark(mark: Path, then: str = "") -> str:
    return f"echo ran >> {mark}; {then}".strip()


def _set(root: Path, key: str, value: str) -> None:
    git(root, "config", key, value)


def _expected(tmp_path: Path) -> bytes:
    """The diff of the same edits in a repository whose configuration names nothing."""
    clean = tmp_path / "clean"
    root, _ = _tree(clean)
    tree = inspect_git(root, LIMIT)
    assert tree is not None
    return tree.diff


def _check(root: Path, mark: Path, tmp_path: Path, expected: bytes | None = None) -> None:
    expected = _expected(tmp_path) if expected is None else expected
    tree = inspect_git(root, LIMIT)
    assert not mark.exists(), mark.read_text()
    assert tree is not None and tree.changed
    assert tree.tracked == [".gitattributes", "data.txt", "train.py"]
    assert tree.diff == expected
    assert b"+print('edited')" in tree.diff and b"+more rows" in tree.diff


def _hook_dir(tmp_path: Path, mark: Path) -> Path:
    hooks = tmp_path / "hooks"
    hooks.mkdir(parents=True)
    for name in ("post-index-change", "pre-commit", "post-checkout", "reference-transaction"):
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\n{_mark(mark)}\n")
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    return hooks


CONFIGS: dict[str, Callable[[Path, Path], dict[str, str]]] = {
    "core.fsmonitor": lambda mark, _: {"core.fsmonitor": _mark(mark, "false")},
    "diff.textconv": lambda mark, _: {"diff.evil.textconv": _mark(mark, "cat")},
    "diff.command": lambda mark, _: {"diff.evil.command": _mark(mark, "true")},
    "diff.external": lambda mark, _: {"diff.external": _mark(mark, "true")},
    "filter.clean": lambda mark, _: {
        "filter.evil.clean": _mark(mark, "cat"), "filter.evil.required": "true"},
    "filter.smudge": lambda mark, _: {"filter.evil.smudge": _mark(mark, "cat")},
    "filter.process": lambda mark, _: {
        "filter.evil.process": _mark(mark, "cat"), "filter.evil.required": "true"},
    "a driver named with dots": lambda mark, _: {
        "filter.a.b=c.clean": _mark(mark, "cat"), "filter.a.b=c.required": "true"},
    "core.pager": lambda mark, _: {"core.pager": _mark(mark, "cat"), "pager.status": "true"},
    "pager.diff": lambda mark, _: {"pager.diff": _mark(mark, "cat")},
    "core.hooksPath": lambda mark, tmp: {"core.hooksPath": str(_hook_dir(tmp, mark))},
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_a_command_in_the_repositorys_config_is_not_run(tmp_path: Path, kind: str) -> None:
    root, mark = _tree(tmp_path)
    for key, value in CONFIGS[kind](mark, tmp_path).items():
        _set(root, key, value)
    if kind == "filter.clean":  # the attribute names an unknown driver in the other cases
        (root / "data.txt").touch()
    _check(root, mark, tmp_path)


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_a_command_in_an_included_file_is_not_run(tmp_path: Path, kind: str) -> None:
    root, mark = _tree(tmp_path)
    included = tmp_path / "included.cfg"
    for key, value in CONFIGS[kind](mark, tmp_path).items():
        git(root, "config", "--file", str(included), key, value)
    _set(root, "include.path", str(included))
    _set(root, f"includeIf.gitdir:{root}/.git.path", str(included))
    _check(root, mark, tmp_path)


def test_the_users_own_config_names_no_command_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, mark = _tree(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    git(root, "config", "--file", str(home / ".gitconfig"), "core.fsmonitor", _mark(mark))
    git(root, "config", "--file", str(home / ".gitconfig"), "filter.evil.clean", _mark(mark))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")
    _check(root, mark, tmp_path)


def test_every_kind_at_once_leaves_a_snapshot_of_the_same_bytes(tmp_path: Path) -> None:
    root, mark = _tree(tmp_path)
    for kind in CONFIGS:
        for key, value in CONFIGS[kind](mark, tmp_path / kind.replace(" ", "_")).items():
            _set(root, key, value)
    _check(root, mark, tmp_path)


def test_core_worktree_does_not_point_the_diff_elsewhere(tmp_path: Path) -> None:
    root, mark = _tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "train.py").write_text("HF_TOKEN = 'hf_from_another_directory'\n")
    _set(root, "core.worktree", str(elsewhere))
    _check(root, mark, tmp_path)
    tree = inspect_git(root, LIMIT)
    assert tree is not None and b"hf_from_another_directory" not in tree.diff


VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
             "GIT_CEILING_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE")  # fmt: skip


def test_the_submitting_shells_git_variables_point_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, mark = _tree(tmp_path)
    expected = _expected(tmp_path)
    other = tmp_path / "other"
    repo(other, {"elsewhere.py": "HF_TOKEN = 'hf_elsewhere'\n"})
    (other / "elsewhere.py").write_text("changed elsewhere\n")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git/index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other / ".git/objects"))
    monkeypatch.setenv("GIT_COMMON_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # would hide r's .git
    _check(root, mark, tmp_path, expected)


def test_the_submitting_shells_git_settings_run_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, mark = _tree(tmp_path)
    expected = _expected(tmp_path)
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", _mark(mark, "true"))
    monkeypatch.setenv("GIT_PAGER", _mark(mark, "cat"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{_mark(mark)}'")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", _mark(mark))
    _check(root, mark, tmp_path, expected)


def test_git_sees_no_credential_and_no_git_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in git first on PATH records the environment it is given, then runs git."""
    root, _ = _tree(tmp_path)
    seen, shim = tmp_path / "seen", tmp_path / "bin"
    shim.mkdir()
    real = shutil.which("git")
    (shim / "git").write_text(f'#!/bin/sh\nenv >> {seen}\necho --- >> {seen}\nexec {real} "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")
    monkeypatch.setenv("HF_TOKEN", "hf_" + "x" * 34)
    monkeypatch.setenv("MY_API_KEY", "not-for-git")
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(tmp_path / "trace"))
    assert inspect_git(root, LIMIT) is not None
    calls = seen.read_text().split("---\n")[:-1]
    assert len(calls) >= 5  # rev-parse, config, rev-parse, symbolic-ref, ls-files, status, diff
    for call in calls:
        names = {line.partition("=")[0] for line in call.splitlines()}
        assert "HF_TOKEN" not in names and "MY_API_KEY" not in names
        git_names = {n for n in names if n.startswith("GIT_")}
        assert {"GIT_DIR", "GIT_WORK_TREE", "GIT_OPTIONAL_LOCKS"} <= git_names
        ours = {"GIT_DIR", "GIT_WORK_TREE", "GIT_OPTIONAL_LOCKS"}
        assert all(n in ours or n.startswith("GIT_CONFIG_") for n in git_names), git_names
        assert f"GIT_DIR={root}/.git" in call.splitlines()
        assert f"GIT_WORK_TREE={root}" in call.splitlines()
    assert not (tmp_path / "trace").exists()


def test_an_include_that_never_answers_is_cut_at_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = _tree(tmp_path)
    fifo = tmp_path / "fifo.cfg"
    os.mkfifo(fifo)
    _set(root, "include.path", str(fifo))
    monkeypatch.setattr(git_run, "TIMEOUT", 1.0)
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, LIMIT)
    assert str(caught.value) == f"cannot snapshot {root}: git rev-parse did not answer within 1s"
    assert caught.value.hint == (
        "look for a configuration file git waits on (an include of a FIFO), or submit with "
        "--no-snapshot"
    )


def test_too_many_drivers_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = _tree(tmp_path)
    monkeypatch.setattr(git_run, "MAX_DRIVERS", 3)
    for index in range(4):
        _set(root, f"filter.f{index}.clean", "cat")
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, LIMIT)
    assert str(caught.value) == (
        f"cannot snapshot {root}: its git configuration defines 4 filter and diff drivers, over 3"
    )
    assert caught.value.hint == "remove the ones it does not use, or submit with --no-snapshot"
    _set(root, "diff.f0.textconv", "cat")  # one name of each kind: two drivers
    _set(root, "filter.f0.smudge", "cat")  # a driver's second setting: the same driver
    monkeypatch.setattr(git_run, "MAX_DRIVERS", 4)
    with pytest.raises(SnapshotError, match="defines 5 filter"):
        inspect_git(root, LIMIT)
    monkeypatch.setattr(git_run, "MAX_DRIVERS", 5)  # exactly the limit is within it
    assert inspect_git(root, LIMIT) is not None


def test_a_linked_worktree_is_read_through_its_git_file(tmp_path: Path) -> None:
    """``.git`` is a file naming the repository's directory (``git worktree add``)."""
    main = tmp_path / "main"
    repo(main, {"train.py": "print('committed')\n"})
    git(main, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = tmp_path / "side"
    (side / "train.py").write_text(EDITED)
    tree = inspect_git(side / ".", LIMIT)
    assert (side / ".git").is_file()
    assert tree is not None and tree.changed and tree.branch == "side"
    assert tree.tracked == ["train.py"] and b"+print('edited')" in tree.diff


def test_a_drivers_command_over_several_lines_is_neutralised_too(tmp_path: Path) -> None:
    """``git config --list -z`` writes ``KEY\\nVALUE\\0``: the key ends at the first
    newline, whatever the value holds after it (a dot here)."""
    root, mark = _tree(tmp_path)
    _set(root, "filter.evil.clean", f"{_mark(mark)}\n: x.y\ncat")
    _set(root, "filter.evil.required", "true")
    (root / "data.txt").touch()
    _check(root, mark, tmp_path)


def test_a_configuration_listing_past_the_bound_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = _tree(tmp_path)
    _set(root, "user.note", "x" * 3000)
    monkeypatch.setattr(git_run, "LIMIT", 2000)
    with pytest.raises(SnapshotError) as caught:
        inspect_git(root, LIMIT)
    assert str(caught.value).startswith(f"cannot snapshot {root}: git config said: ")
    assert caught.value.hint == (
        "fix the repository, or submit with --no-snapshot to run the live tree"
    )


def test_a_submodule_is_not_looked_into(tmp_path: Path) -> None:
    """A submodule's own configuration would apply in a status of it; its changes are not
    the snapshot's (it is not copied)."""
    sub = tmp_path / "sub"
    repo(sub, {"s.txt": "s\n", ".gitattributes": "* filter=subevil\n"})
    root, mark = _tree(tmp_path)
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(root, "commit", "-qm", "submodule")
    git(root / "sub", "config", "filter.subevil.clean", _mark(mark, "cat"))
    (root / "sub/s.txt").write_text("changed in the submodule\n")
    tree = inspect_git(root, LIMIT)
    assert not mark.exists()
    assert tree is not None and tree.submodules == ["sub"]
    assert b"sub" not in tree.diff.replace(b"subevil", b"") and b"+print('edited')" in tree.diff
    (root / "train.py").write_text(FILES["train.py"])
    (root / "data.txt").write_text(FILES["data.txt"])
    tree = inspect_git(root, LIMIT)
    assert tree is not None and not tree.changed and tree.diff == b""
    assert not mark.exists()
