"""automodel_launch/jobdir.py: a job directory is written whole or not at all."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from automodel_launch.jobdir import JobDirError, check_job_dir, remove_job_dir, write_job_dir
from tests.conftest import ROOT


def test_files_and_modes(tmp_path: Path) -> None:
    target = tmp_path / "jobs" / "one"
    write_job_dir(target, {"job.sbatch": "#!/bin/bash\n", "job_config.yaml": "a: 1\n"})
    assert sorted(p.name for p in target.iterdir()) == ["job.sbatch", "job_config.yaml"]
    assert (target / "job.sbatch").stat().st_mode & 0o777 == 0o755
    assert (target / "job_config.yaml").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["one"]


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[str] = []
    real = Path.write_text

    def failing(self: Path, data: str, *args: object, **kwargs: object) -> int:
        if written:
            raise OSError(28, "No space left on device")
        written.append(self.name)
        return real(self, data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", failing)
    target = tmp_path / "job"
    with pytest.raises(OSError, match="No space left"):
        write_job_dir(target, {"job.sbatch": "x", "job_config.yaml": "y"})
    assert written == ["job.sbatch"]
    assert list(tmp_path.iterdir()) == []


def test_an_empty_existing_directory_is_used(tmp_path: Path) -> None:
    target = tmp_path / "job"
    target.mkdir()
    write_job_dir(target, {"run.sh": "echo\n"})
    assert [p.name for p in target.iterdir()] == ["run.sh"]


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "job"
    target.write_text("not a directory")
    with pytest.raises(JobDirError, match="already exists"):
        write_job_dir(target, {"run.sh": "echo\n"})
    assert target.read_text() == "not a directory"


@pytest.mark.parametrize(
    "bad", ["with space", "hash#1", "pct%j", 'quote"', "dollar$x", "semi;colon"]
)
def test_paths_sbatch_cannot_carry(tmp_path: Path, bad: str) -> None:
    with pytest.raises(JobDirError, match="cannot carry safely"):
        check_job_dir(tmp_path / bad)


def test_relative_paths_become_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert check_job_dir(Path("slurm_jobs/run")) == tmp_path / "slurm_jobs" / "run"


def test_home_is_expanded_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert check_job_dir(Path("~/x")) == tmp_path / "home" / "x"


def test_an_unknown_user_home_is_refused() -> None:
    with pytest.raises(JobDirError, match="~surely-no-such-user-here/x"):
        check_job_dir(Path("~surely-no-such-user-here/x"))


@pytest.mark.parametrize("bad", ["tab\tx", "nl\nx", "ctl\x01x", "dollar${HOME}"])
def test_the_rule_of_the_job_dir_field(tmp_path: Path, bad: str) -> None:
    with pytest.raises(JobDirError, match="cannot carry safely"):
        check_job_dir(tmp_path / bad)


def test_remove(tmp_path: Path) -> None:
    target = tmp_path / "new" / "parents" / "job"
    written = write_job_dir(target, {"run.sh": "echo\n"})
    assert written.created == (target, target.parent, target.parent.parent)
    remove_job_dir(written)
    assert list(tmp_path.iterdir()) == []


def test_remove_keeps_what_it_did_not_write(tmp_path: Path) -> None:
    target = tmp_path / "job"
    target.mkdir()  # the user's own (empty) directory
    written = write_job_dir(target, {"run.sh": "echo\n"})
    remove_job_dir(written)
    assert target.is_dir() and list(target.iterdir()) == []
    other = tmp_path / "other"
    written = write_job_dir(other, {"run.sh": "echo\n"})
    (other / "train.log").write_text("something ran here")
    remove_job_dir(written)
    assert [p.name for p in other.iterdir()] == ["train.log"]


def test_a_full_disk_leaves_no_parent_it_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: Path, data: str, *args: object, **kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    (tmp_path / "jobs").mkdir()
    with pytest.raises(OSError, match="No space left"):
        write_job_dir(tmp_path / "jobs" / "new" / "deeper" / "job", {"run.sh": "echo\n"})
    assert list(tmp_path.iterdir()) == [tmp_path / "jobs"]  # existed before: kept
    assert list((tmp_path / "jobs").iterdir()) == []


_SLOW_WRITER = """
import pathlib, sys, time
from automodel_launch import jobdir
real = pathlib.Path.write_text
def slow(self, *args, **kwargs):
    written = real(self, *args, **kwargs)
    print("writing", flush=True)
    time.sleep(60)
    return written
pathlib.Path.write_text = slow
def body():
    jobdir.write_job_dir(pathlib.Path(sys.argv[1]), {"run.sh": "echo", "job_config.yaml": "a: 1"})
    return 0
from automodel_launch.cli import errors
sys.exit(errors.run(body))  # as every command runs
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_mid_write_leaves_nothing(tmp_path: Path, sig: signal.Signals) -> None:
    target = tmp_path / "new" / "job"
    child = subprocess.Popen(
        [sys.executable, "-c", _SLOW_WRITER, str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert child.stdout is not None
    assert child.stdout.readline() == "writing\n"  # the first file is written: mid-write
    child.send_signal(sig)
    _, stderr = child.communicate(timeout=30)
    assert child.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []


def test_parallel_claims_in_the_same_second_get_distinct_directories(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from automodel_launch.jobdir import claim_job_dir

    base = tmp_path / "new" / "jobs"
    with ThreadPoolExecutor(max_workers=8) as pool:
        claims = list(pool.map(lambda _: claim_job_dir(base, "run"), range(20)))
    directories = [directory for directory, _ in claims]
    assert len(set(directories)) == 20
    assert all(d.is_dir() and not any(d.iterdir()) for d in directories)
    stamps = {d.name.split("_")[1].split("-")[0] for d in directories}
    assert len(stamps) <= 2  # one second, or two if the clock ticked over
    first = min(directories, key=lambda d: len(d.name))
    assert any(d.name == f"{first.name}-2" for d in directories)


def test_a_claimed_directory_is_removed_with_its_parents_when_the_write_fails(
    tmp_path: Path,
) -> None:
    from automodel_launch.jobdir import claim_job_dir

    target, claimed = claim_job_dir(tmp_path / "a" / "b", "run")
    assert claimed == (target, tmp_path / "a" / "b", tmp_path / "a")
    with pytest.raises(OSError, match="File name too long"):
        write_job_dir(target, {"x" * 300: "x"}, claimed)  # a name the write cannot make
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_writes_its_points_in_their_directories_and_removes_them_whole(
    tmp_path: Path,
) -> None:
    from automodel_launch.jobdir import remove_job_dir

    target = tmp_path / "sweep"
    files = {"job.sbatch": "#!/bin/bash\n", "points/0/job_config.yaml": "a: 1\n",
             "points/1/job_config.yaml": "a: 2\n"}  # fmt: skip
    written = write_job_dir(target, files)
    assert (target / "points" / "1" / "job_config.yaml").read_text() == "a: 2\n"
    assert (target / "points" / "0").stat().st_mode & 0o777 == 0o755
    remove_job_dir(written)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../escape", "/etc/passwd", "points//x", "points/./x", ""])
def test_a_file_name_outside_the_job_directory_is_refused_and_nothing_is_left(
    tmp_path: Path, name: str
) -> None:
    with pytest.raises(ValueError, match="is not a path inside the job directory"):
        write_job_dir(tmp_path / "job", {"run.sh": "echo\n", name: "x"})
    assert list(tmp_path.iterdir()) == []
    assert not (tmp_path.parent / "escape").exists()


def test_an_empty_read_only_directory_is_refused_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "job"
    target.mkdir(mode=0o555)
    with pytest.raises(JobDirError) as raised:
        write_job_dir(target, {"run.sh": "echo\n"})
    assert str(raised.value) == (
        f"{target} is read-only; make it writable (chmod u+w) or pick a new job directory"
    )
    assert target.stat().st_mode & 0o777 == 0o555 and list(target.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir()] == ["job"]  # no staging left


def test_a_link_to_an_empty_directory_is_refused_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "job").symlink_to("real")
    with pytest.raises(JobDirError, match="is a link; give the directory it points to"):
        write_job_dir(tmp_path / "job", {"run.sh": "echo\n"})
    assert (tmp_path / "job").is_symlink()


def test_render_into_a_read_only_directory_is_one_error(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    target = tmp_path / "job"
    target.mkdir(mode=0o555)
    config = tmp_path / "c.yaml"
    config.write_text((ROOT / "examples" / "llm_finetune_slurm.yaml").read_text())
    done = run_cli("render", str(config), "--job-dir", str(target), "--no-check-paths",
                   cwd=tmp_path)  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1] == (
        f"error: {target} is read-only; make it writable (chmod u+w) or pick a new job directory"
    )
    assert "Traceback" not in done.stderr
    assert target.stat().st_mode & 0o777 == 0o555
