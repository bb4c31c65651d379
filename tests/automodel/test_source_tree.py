"""The code that will run: a checkout in repo_root or named by --automodel-source, read from
its source, cached by content, and what cannot be read falling back to the table."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest

from automodel_launch.automodel import cache, source, which
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_path
from tests.automodel.standin import standin
from tests.conftest import brief, offline_settings
from tests.snapshot.gitrepo import repo

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
WARMUP = "step_scheduler:\n  global_batch_size: 8\n  warmup_steps: 10\n"


def fork(root: Path) -> Path:
    """A checkout of a stand-in AutoModel whose StepScheduler takes warmup_steps."""
    standin(root, ", warmup_steps=0")
    return root


def job(tmp_path: Path, checkout: Path, extra: str = "") -> Path:
    slurm = f"slurm:\n  nodes: 1\n  ntasks_per_node: 8\n  repo_root: {checkout}\n{extra}"
    path = tmp_path / "job.yaml"
    path.write_text(RECIPE + WARMUP + slurm, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _nothing_kept_between_tests() -> None:
    which._MEMO.clear()


def entries() -> list[Path]:
    return sorted(cache.directory().glob("*.json"))


def test_a_fork_in_repo_root_is_checked_as_its_code_accepts(tmp_path: Path) -> None:
    checkout = tmp_path / "fork"
    commit = repo(checkout, standin(tmp_path / "scratch", ", warmup_steps=0"))
    report = validate_path(job(tmp_path, checkout), offline_settings())
    assert brief(report.diagnostics) == []
    assert (report.automodel_version, report.automodel_found, report.automodel_why) == (
        "main", "repo_root", f"slurm.repo_root at {commit[:7]}"
    )  # fmt: skip
    step = checkout / "nemo_automodel" / "components" / "training" / "step_scheduler.py"
    step.write_text(step.read_text() + "\n# an edit\n")
    report = validate_path(job(tmp_path, checkout), offline_settings())
    assert report.automodel_why == f"slurm.repo_root at {commit[:7]}, dirty"


def test_the_table_refuses_what_the_fork_takes(tmp_path: Path) -> None:
    path = job(tmp_path, fork(tmp_path / "fork"))
    settings = offline_settings(automodel_version="0.7.0")
    (found,) = validate_path(path, settings).diagnostics
    assert brief([found]) == ["4:3 error[unknown-argument] step_scheduler.warmup_steps"]


def test_automodel_source_names_the_code_outright(tmp_path: Path) -> None:
    checkout = fork(tmp_path / "elsewhere")
    path = tmp_path / "job.yaml"
    path.write_text(RECIPE + WARMUP, encoding="utf-8")
    report = validate_path(path, offline_settings(automodel_source=checkout))
    assert (report.automodel_found, report.automodel_why, report.diagnostics) == (
        "source", f"--automodel-source {checkout}", []
    )  # fmt: skip
    package = checkout / "nemo_automodel"  # the package itself names it too
    assert validate_path(path, offline_settings(automodel_source=package)).diagnostics == []


def test_what_was_read_is_cached_and_read_again_only_when_a_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = fork(tmp_path / "fork")
    path = job(tmp_path, checkout)
    validate_path(path, offline_settings())
    (first,) = entries()
    which._MEMO.clear()

    def no_reading(*args: object, **kwargs: object) -> object:
        raise AssertionError("read again")

    with monkeypatch.context() as patched:
        patched.setattr("automodel_launch.automodel.extract.automodel_table", no_reading)
        assert validate_path(path, offline_settings()).diagnostics == []  # from the cache
    step = checkout / "nemo_automodel" / "components" / "training" / "step_scheduler.py"
    step.write_text(step.read_text().replace("warmup_steps", "warmup_epochs"))
    which._MEMO.clear()
    (found,) = validate_path(path, offline_settings()).diagnostics
    assert found.hint == "did you mean 'warmup_epochs'?"
    assert len(entries()) == 2 and first in entries()


@pytest.mark.parametrize(
    "damage",
    [b"", b"{", b'{"format": 1}', b"\xff\xfe", b'{"format": 1, "key": "x", "nearest": "main"}'],
)
def test_a_damaged_cache_entry_is_read_as_missing_and_written_again(
    tmp_path: Path, damage: bytes
) -> None:
    path = job(tmp_path, fork(tmp_path / "fork"))
    validate_path(path, offline_settings())
    (entry,) = entries()
    entry.write_bytes(damage)
    which._MEMO.clear()
    assert validate_path(path, offline_settings()).diagnostics == []
    assert cache.load(entry.stem) is not None  # written whole again


def test_an_entry_for_another_key_is_not_trusted(tmp_path: Path) -> None:
    path = job(tmp_path, fork(tmp_path / "fork"))
    validate_path(path, offline_settings())
    (entry,) = entries()
    other = entry.with_name("0" * 64 + ".json")
    other.write_bytes(entry.read_bytes())
    assert cache.load("0" * 64) is None


def test_a_cache_that_cannot_be_written_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert validate_path(job(tmp_path, fork(tmp_path / "fork")), offline_settings()).ok


# ------------------------------------------------------------------- what cannot be read
def hostile(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A fork made unreadable one way, and the end of the note it gives."""
    checkout = fork(tmp_path / "fork")
    package = checkout / "nemo_automodel"
    if kind == "link out":
        (package / "outside.py").symlink_to(tmp_path / "job.yaml")
        return checkout, f"is a link out of the tree (to {tmp_path / 'job.yaml'})"
    if kind == "fifo":
        os.mkfifo(package / "pipe.py")
        return checkout, f"{package / 'pipe.py'} is not a regular file or directory"
    if kind == "huge":
        (package / "huge.py").write_bytes(b"#" * (source.MAX_FILE_BYTES + 1))
        return checkout, f"{package / 'huge.py'} is larger than 4 MB"
    if kind == "syntax":
        (package / "broken.py").write_text("def f(:\n")
        return checkout, "Python cannot parse nemo_automodel/broken.py:1: invalid syntax"
    if kind == "not utf-8":
        (package / "latin.py").write_bytes(b"x = '\xe9'\n")
        return checkout, f"{package / 'latin.py'} is not UTF-8 text (byte 5)"
    if kind == "directory out":
        (tmp_path / "elsewhere").mkdir()
        (package / "vendored").symlink_to(tmp_path / "elsewhere")
        return checkout, f"is a link out of the tree (to {tmp_path / 'elsewhere'})"
    if kind == "name not text":
        (package / "tab\there.py").write_text("")
        return checkout, f"a name under {package} is not printable text"
    if kind == "name not utf-8":
        os.close(os.open(os.fsencode(package) + b"/caf\xe9.py", os.O_CREAT | os.O_WRONLY))
        return checkout, f"a name under {package} is not UTF-8 text"
    many = package / "many"
    many.mkdir()
    for n in range(source.MAX_FILES + 1):
        os.close(os.open(many / f"m{n}.py", os.O_CREAT | os.O_WRONLY))
    return checkout, f"{package} holds more than {source.MAX_FILES:,} Python files"


KINDS = ["link out", "fifo", "huge", "syntax", "not utf-8", "directory out", "name not text",
         "name not utf-8", "many"]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_tree_is_a_note_and_the_tables_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(source, "MAX_FILES", 1_000)  # thousands, made in a second
    checkout, why = hostile(tmp_path, kind)
    report = validate_path(job(tmp_path, checkout), offline_settings())
    refused, note = report.diagnostics  # in the order of their lines
    assert (note.code, note.severity.value, note.path) == (
        "automodel-not-read", "note", "slurm.repo_root"
    )  # fmt: skip
    assert note.message.startswith("the AutoModel source of slurm.repo_root cannot be read: ")
    assert why in note.message
    assert note.message.endswith("; checked against AutoModel 0.7.0")
    assert (refused.code, refused.path) == ("unknown-argument", "step_scheduler.warmup_steps")
    assert report.automodel_found == "default"


def test_reading_too_long_stops_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "MAX_SECONDS", -1.0)
    (_, note) = validate_path(
        job(tmp_path, fork(tmp_path / "fork")), offline_settings()
    ).diagnostics
    assert "took more than -1 s" in note.message


def test_a_repo_root_not_on_this_host_or_not_automodel(tmp_path: Path) -> None:
    settings = Settings(check_paths=True, check_env=False)
    missing = validate_path(job(tmp_path, tmp_path / "elsewhere"), settings).diagnostics
    assert [d.code for d in missing] == ["unknown-argument", "path-missing"]  # said once
    plain = tmp_path / "own_code"
    plain.mkdir()
    (_, note) = validate_path(job(tmp_path, plain), settings).diagnostics
    assert note.message == (
        f"slurm.repo_root {plain} holds no nemo_automodel package: its code is not read; "
        "checked against AutoModel 0.7.0"
    )
    assert note.hint == (
        "point it at a checkout of AutoModel (the directory holding nemo_automodel/)"
    )
    submitting = validate_path(job(tmp_path, plain), settings, purpose="submit").diagnostics
    assert [d.code for d in submitting] == ["unknown-argument"]  # information for validate


def test_nothing_in_the_tree_is_run(tmp_path: Path) -> None:
    checkout = fork(tmp_path / "fork")
    canary = tmp_path / "ran"
    (checkout / "nemo_automodel" / "__init__.py").write_text(
        textwrap.dedent(f"""
        from pathlib import Path
        Path({str(canary)!r}).write_text("imported")
        """)
    )
    assert validate_path(job(tmp_path, checkout), offline_settings()).diagnostics == []
    assert not canary.exists()


@pytest.mark.parametrize(
    ("bound", "value", "says"),
    [("MAX_ENTRIES", 5, "holds more than 5 names"),
     ("MAX_TOTAL_BYTES", 100, "are over 0 MB")],
)  # fmt: skip
def test_a_tree_past_its_bounds_is_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: str, value: int, says: str
) -> None:
    monkeypatch.setattr(source, bound, value)
    report = validate_path(job(tmp_path, fork(tmp_path / "fork")), offline_settings())
    (_, note) = report.diagnostics
    assert note.code == "automodel-not-read" and says in note.message


def test_links_inside_the_tree_are_read_once_where_they_lie(tmp_path: Path) -> None:
    checkout = fork(tmp_path / "fork")
    package = checkout / "nemo_automodel"
    (package / "alias.py").symlink_to(package / "recipes" / "llm" / "train_ft.py")
    (package / "loop").symlink_to(package)  # walked, it would never end
    (package / "recipes" / "again").symlink_to("../recipes")
    listed = [name for name, _, _ in source.listing(package).files]
    assert "nemo_automodel/alias.py" not in listed and len(listed) == len(set(listed)) == 9
    assert validate_path(job(tmp_path, checkout), offline_settings()).diagnostics == []


def test_a_link_to_a_credential_is_never_read_nor_shown(tmp_path: Path) -> None:
    netrc = tmp_path / "home" / ".netrc"
    netrc.parent.mkdir()
    netrc.write_text("machine example.com login me password hunter2-secret\n")
    checkout = fork(tmp_path / "fork")
    (checkout / "nemo_automodel" / "creds.py").symlink_to(netrc)
    report = validate_path(job(tmp_path, checkout), offline_settings())
    (_, note) = report.diagnostics
    assert note.message.startswith("the AutoModel source of slurm.repo_root cannot be read: ")
    assert f"is a link out of the tree (to {netrc})" in note.message
    assert not any("hunter2" in (d.message + (d.hint or "")) for d in report.diagnostics)


@pytest.mark.parametrize("becomes", ["longer", "a fifo", "a link"])
def test_a_file_that_changes_after_it_was_listed_is_not_read(tmp_path: Path, becomes: str) -> None:
    package = fork(tmp_path / "fork") / "nemo_automodel"
    listed = source.listing(package)
    path = package / "recipes" / "llm" / "train_ft.py"
    if becomes == "longer":
        path.write_text(path.read_text() + "# more\n")
        says = "changed while it was read"
    else:
        path.unlink()
        if becomes == "a fifo":
            os.mkfifo(path)  # opened for reading, it would wait for a writer
            says = "changed while it was read"
        else:
            path.symlink_to(tmp_path / "job.yaml")
            says = "cannot be read (Too many levels of symbolic links)"
    with pytest.raises(source.Unreadable, match=re.escape(f"{path} {says}")):
        source.read(listed)
