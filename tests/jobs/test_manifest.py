"""Every submit writes a manifest with the rest of its job directory; credentials never."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from automodel_launch import __version__
from tests.jobs.test_registry import RECIPE, cli, submit_local
from tests.support.fake_slurm import FakeSlurm


def test_the_manifest_of_a_local_run(tmp_path: Path) -> None:
    secret = "correct-horse-battery-staple"  # not token-shaped: only its variable says so
    done = submit_local(tmp_path, f"run-{secret}", MY_SERVICE_PASSWORD=secret)
    assert done.returncode == 0, done.stderr
    job_dir = tmp_path / "jobs" / f"run-{secret}"
    manifest = json.loads((job_dir / "manifest.json").read_text())
    config = tmp_path / "local.yaml"
    assert set(manifest) == {
        "format", "id", "name", "launcher", "job_dir", "submitted_at", "config_path",
        "config_sha256", "command_line", "artifacts", "tool_version", "scheduler_id",
        "cluster", "details", "sweep", "point", "values", "code", "automodel_version",
        "profile", "overrides", "more_overrides", "origins", "more_origins", "image",
        "entry", "rerun_of", "remote",
    }  # fmt: skip
    assert manifest["entry"] == {
        "text": None, "command": "finetune", "domain": "llm", "nproc_per_node": 1,
    }  # fmt: skip
    assert manifest["rerun_of"] is None
    assert manifest["remote"] is None
    assert manifest["code"] is None  # no repo_root: nothing snapshotted
    assert manifest["automodel_version"] == "0.7.0"
    assert re.fullmatch(r"[0-9a-f]{12}", manifest["id"])
    assert (manifest["name"], manifest["launcher"]) == ("llm_finetune", "interactive")
    assert manifest["job_dir"] == str(job_dir)
    assert manifest["config_path"] == str(config)
    assert manifest["config_sha256"] == hashlib.sha256(config.read_bytes()).hexdigest()
    assert manifest["command_line"] == [
        "automodel-launch", "submit", "local.yaml", "--job-dir", f"{tmp_path}/jobs/run-***",
        "--no-check-paths",
    ]  # fmt: skip
    assert manifest["artifacts"] == ["job_config.yaml", "launch.yaml", "manifest.json", "run.sh"]
    assert manifest["tool_version"] == __version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", manifest["submitted_at"])
    assert manifest["scheduler_id"] == str(manifest["details"]["pid"])
    assert manifest["details"]["detached"] is False
    assert manifest["format"] == 1
    assert not list(job_dir.glob(".manifest.json.*"))  # the update left no staging file
    assert f"recorded as job {manifest['id']}: automodel-launch status {manifest['id']}" in (
        done.stdout
    )


def test_a_dry_run_records_nothing(tmp_path: Path) -> None:
    (tmp_path / "local.yaml").write_text(RECIPE)
    done = cli("submit", "local.yaml", "--dry-run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "recorded" not in done.stdout
    assert cli("jobs", cwd=tmp_path).stdout == "no jobs recorded\n"


def test_the_summary_comes_first_and_names_credentials_only(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    (tmp_path / "slurm.yaml").write_text(
        'slurm:\n  nodes: 2\n  ntasks_per_node: 4\n  time: "04:00:00"\n  partition: gpu\n'
        "  hf_token: ${HF_TOKEN}\n  env_vars:\n    NCCL_DEBUG: INFO\n" + RECIPE
    )
    fake_slurm.answer("sbatch", stderr="sbatch: Job 9 to start\n")
    fake_slurm.in_front()
    done = cli(
        "submit", "slurm.yaml", "--dry-run", "--no-preflight", "--job-dir", str(tmp_path / "j"),
        "--no-check-paths", cwd=tmp_path, HF_TOKEN="hf_" + "x" * 34,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "checking:\n"
        "  launcher       slurm\n"
        "  resources      2 node(s) x 4 process(es) = world size 8, whole nodes, all their GPUs\n"
        "  time limit     04:00:00\n"
        "  partition      gpu\n"
        "  image          nvcr.io/nvidia/nemo:dev\n"
        "  mounts         ${HOME}/.cache/huggingface:${HOME}/.cache/huggingface\n"
        "  env            NCCL_DEBUG\n"
        "  credentials    HF_TOKEN (by name; values never written)\n"
        f"  job directory  {tmp_path / 'j'}\n"
    )
    assert done.stdout == "sbatch --test-only accepts the job: sbatch: Job 9 to start\n"
    again = cli(
        "submit", "slurm.yaml", "--dry-run", "--detach", "--no-preflight", "--job-dir",
        str(tmp_path / "j"), "--no-check-paths", cwd=tmp_path, HF_TOKEN="hf_" + "x" * 34,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert again.stderr == (
        "note: slurm jobs always run detached; --detach changes nothing\n" + done.stderr
    )


def test_a_failed_manifest_update_leaves_the_old_one_and_no_staging_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    job_dir = tmp_path / "job"
    job_dir.mkdir()
    (tmp_path / "c.yaml").write_text("x: 1\n")
    # a file size limit makes the write fail part way, as a full disk would
    script = f"""
import resource, signal
from pathlib import Path
from automodel_launch.jobs.manifest import new_manifest, update_manifest
m = new_manifest(name="n", launcher="slurm", job_dir=Path({str(job_dir)!r}),
                 config=Path({str(tmp_path / "c.yaml")!r}), argv=["a"], artifacts=[],
                 environ={{}})
Path({str(job_dir / "manifest.json")!r}).write_text(m.to_json())
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))
try:
    update_manifest(m.with_scheduler("7", note="x" * 250))
except OSError as exc:
    print("failed", exc.errno)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.stdout == "failed 27\n", done.stderr  # EFBIG
    assert [p.name for p in job_dir.iterdir()] == ["manifest.json"]
    assert json.loads((job_dir / "manifest.json").read_text())["scheduler_id"] is None
