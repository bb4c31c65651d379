"""Live preflight on the real test cluster (Slurm 22.05, EnforcePartLimits=NO, fake GPUs).

Partitions (see harness/slurm_cluster.sh): batch (default, node1-2, no time limit),
debug (node1, MaxTime 00:30:00, MaxNodes 1), wide (node1-2, MinNodes 2), maint (DOWN);
four GPUs per node; no pyxis; no accounting. Each config below is one that sbatch
accepts and that would never run, or that the cluster refuses: preflight names it at
the field's line before anything is submitted.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS, Cluster
from tests.support.fake_slurm import FakeSlurm

pytestmark = pytest.mark.integration

BARE = "  container_image: null\n  ntasks_per_node: 2\n"
CONFIGS = {
    # name: (config, (code, line, field path), pending reason or None when sbatch refuses)
    "over_max_time": (
        'slurm:\n  partition: debug\n  time: "01:00:00"\n' + BARE,
        ("time-over-partition-limit", 3, "slurm.time"),
        "PartitionTimeLimit",
    ),
    "default_time_over_max_time": (
        "slurm:\n  partition: debug\n" + BARE,
        ("time-over-partition-limit", 1, "slurm"),
        "PartitionTimeLimit",
    ),
    "over_max_nodes": (
        'slurm:\n  partition: debug\n  time: "00:10:00"\n  nodes: 2\n' + BARE,
        ("nodes-outside-partition-limits", 4, "slurm.nodes"),
        "PartitionNodeLimit",
    ),
    "over_node_count": (
        'slurm:\n  nodes: 3\n  time: "00:10:00"\n' + BARE,
        ("nodes-outside-partition-limits", 2, "slurm.nodes"),
        "PartitionNodeLimit",
    ),
    "under_min_nodes": (
        'slurm:\n  time: "00:10:00"\n  partition: wide\n' + BARE,
        ("nodes-outside-partition-limits", 1, "slurm"),
        "PartitionNodeLimit",
    ),
    "down_partition": (
        'slurm:\n  time: "00:10:00"\n  partition: maint\n' + BARE,
        ("partition-unavailable", 3, "slurm.partition"),
        "PartitionDown",
    ),
    "misspelt_partition": (
        'slurm:\n  time: "00:10:00"\n  partition: debgu\n' + BARE,
        ("unknown-partition", 3, "slurm.partition"),
        None,
    ),
    "gpus_over_gres": (
        'slurm:\n  time: "00:10:00"\n  gpus_per_node: 8\n  ntasks_per_node: 8\n'
        "  container_image: null\n",
        ("gpus-over-node-gres", 3, "slurm.gpus_per_node"),
        None,
    ),
    "ranks_over_gpus": (
        'slurm:\n  time: "00:10:00"\n  ntasks_per_node: 8\n  container_image: null\n',
        ("gpus-over-node-gres", 3, "slurm.ntasks_per_node"),
        None,
    ),
    "cpus_over_node": (
        'slurm:\n  time: "00:10:00"\n  cpus_per_task: 16\n' + BARE,
        ("cpus-over-node", 3, "slurm.cpus_per_task"),
        None,
    ),
    "mem_over_node": (
        'slurm:\n  time: "00:10:00"\n  mem: 64T\n' + BARE,
        ("mem-over-node", 3, "slurm.mem"),
        None,
    ),
    "container_without_pyxis": (
        'slurm:\n  time: "00:10:00"\n  ntasks_per_node: 2\n',
        ("no-pyxis", 1, "slurm"),
        None,
    ),
}


def cli(
    cluster: Cluster, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return cluster.run(
        sys.executable, "-m", "automodel_launch", *args, cwd=cwd, timeout=120, extra_env=env
    )


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / f"{name}.yaml"
    # a recipe to train (submit refuses a launcher section with nothing to train), named as
    # AutoModel's CLI needs it from 0.4.0 on
    recipe = (
        "model:\n  pretrained_model_name_or_path: test/tiny\n"
        "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
    )
    path.write_text(text + f"  job_dir: {directory}/jobs\n  job_name: {name}\n" + recipe)
    return path


def logging_shims(directory: Path, *tools: str) -> tuple[FakeSlurm, dict[str, str]]:
    """Each real tool behind a stand-in that logs its arguments first, and PATH with them."""
    shims = FakeSlurm(directory)
    for tool in tools:
        real = subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip()
        shims.tool(tool, f'exec {real} "$@"')
    return shims, {"PATH": f"{shims.path}:{os.environ['PATH']}"}


def test_each_rule_fires_at_the_line_of_its_field(slurm_cluster: Cluster, tmp_path: Path) -> None:
    paths = [write(tmp_path, name, config) for name, (config, _, _) in CONFIGS.items()]
    log, shims = logging_shims(tmp_path / "shims", "scontrol", "srun", "sacctmgr", "sbatch")
    done = cli(
        slurm_cluster, "validate", "--cluster", "-f", "json", *map(str, paths), cwd=tmp_path,
        env=shims,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    # the cluster is read once for all the files (no accounting: sacctmgr is not asked)
    assert log.calls == [
        "scontrol ping",
        "scontrol --all show partition -o",
        "scontrol --all show node -o",
        "scontrol show config",
        "srun --help",
    ]
    files = {Path(f["path"]).stem: f for f in json.loads(done.stdout)["files"]}
    for name, (_, expected, _) in CONFIGS.items():
        errors = [
            (d["code"], d["line"], d["path"])
            for d in files[name]["diagnostics"]
            if d["severity"] == "error"
        ]
        assert errors == [expected], (name, files[name]["diagnostics"])


def test_what_only_sbatch_knows_is_its_refusal_at_the_field(
    slurm_cluster: Cluster, tmp_path: Path
) -> None:
    """No node has the feature, no such reservation: sbatch --test-only says so."""
    paths = [
        write(tmp_path, "feature", 'slurm:\n  time: "00:30:00"\n  constraint: nvlink\n' + BARE),
        write(tmp_path, "reservation", "slurm:\n  reservation: nope\n" + BARE),
    ]
    done = cli(slurm_cluster, "validate", "--cluster", "-f", "json", *map(str, paths), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    found = [
        [(d["code"], d["line"], d["path"], d["message"]) for d in f["diagnostics"]]
        for f in json.loads(done.stdout)["files"]
    ]
    assert found == [
        [("sbatch-refused", 3, "slurm.constraint",
          "sbatch --test-only refused the job: allocation failure: Invalid feature specification")],
        [("sbatch-refused", 2, "slurm.reservation",
          "sbatch --test-only refused the job: allocation failure: Requested reservation is "
          "invalid")],
    ]  # fmt: skip


def pending_reason(cluster: Cluster, job_id: str, expected: str) -> str:
    """The job's reason once it is ``expected``, else the reasons seen in two minutes (a
    limit for a broken run only: a loaded machine gets there first).

    Right after the controller starts, a job may first show a passing reason
    (``PartitionConfig``) before the scheduler settles on the one that holds it.
    """
    deadline = time.monotonic() + 120
    seen = []
    while time.monotonic() < deadline:
        shown = cluster.run("squeue", "-h", "-j", job_id, "-o", "%T %r").stdout.split()
        seen.append(" ".join(shown))
        if shown == ["PENDING", expected]:
            return expected
        time.sleep(0.2)
    return " / ".join(dict.fromkeys(seen))


@pytest.mark.parametrize("name", [n for n, (_, _, reason) in CONFIGS.items() if reason])
def test_without_preflight_sbatch_accepts_it_and_it_pends_forever(
    slurm_cluster: Cluster, tmp_path: Path, name: str
) -> None:
    config, (code, line, _), reason = CONFIGS[name]
    assert reason is not None
    path = write(tmp_path, name, config)
    refused = cli(slurm_cluster, "submit", str(path), cwd=tmp_path)
    assert refused.returncode == 1
    assert f"{path}:{line}:" in refused.stderr and f"error[{code}]" in refused.stderr
    assert not (tmp_path / "jobs").exists()  # nothing written, nothing submitted

    submitted = cli(slurm_cluster, "submit", "--no-preflight", str(path), cwd=tmp_path)
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.split()[3].rstrip(";")
    try:
        assert pending_reason(slurm_cluster, job_id, reason) == reason
    finally:
        slurm_cluster.run("scancel", job_id)


def test_a_dry_run_stops_at_preflight_too(slurm_cluster: Cluster, tmp_path: Path) -> None:
    config, (code, line, _), _ = CONFIGS["over_max_time"]
    path = write(tmp_path, "over_max_time", config)
    done = cli(slurm_cluster, "submit", "--dry-run", str(path), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0].startswith(f"{path}:{line}:9: error[{code}] slurm.time: ")
    assert done.stdout == ""


GOOD = """\
slurm:
  job_name: preflight_ok
  nodes: 2
  ntasks_per_node: 2
  gpus_per_node: 2
  time: "00:30:00"
  partition: batch
  account: research
  qos: high
  container_image: null
  master_port: {port}
  job_dir: {tmp}/jobs
  env_vars:
    OMP_NUM_THREADS: 1
    TMPDIR: {tmp}
"""


def test_a_good_config_passes_and_submits(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    path = tmp_path / "good.yaml"
    path.write_text(GOOD.format(port=free_port(), tmp=tmp_path))
    shown = {}
    for fmt in ("text", "json", "github"):
        done = cli(slurm_cluster, "validate", "--cluster", "-f", fmt, str(path), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        shown[fmt] = done.stdout
    diagnostics = json.loads(shown["json"])["files"][0]["diagnostics"]
    # (the launcher section alone is submitted with --entry below: validate notes that)
    assert [(d["severity"], d["code"], d["line"]) for d in diagnostics] == [
        ("note", "launcher-only", 1),
        ("note", "sbatch-estimate", 1),
        ("note", "associations-not-checked", 8),
    ]
    diagnostics = diagnostics[1:]
    assert diagnostics[1]["message"] == (
        "account 'research' and qos 'high' were not checked: the cluster keeps no accounting "
        "(AccountingStorageType=accounting_storage/none), so Slurm accepts any"
    )
    estimate = diagnostics[0]["message"]
    assert estimate.startswith("sbatch --test-only: Job ")
    assert estimate.endswith("on nodes node[1-2] in partition batch")
    assert f"{path}:1:1: note[sbatch-estimate] slurm: sbatch --test-only: Job " in shown["text"]
    assert (
        "title=automodel-launch sbatch-estimate::slurm: sbatch --test-only: Job"
        in (shown["github"])
    )
    assert shown["github"].startswith(f"::notice file={path},line=1,col=1,")

    path_env = {"PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}"}
    submitted = cli(
        slurm_cluster, "submit", str(path), "--entry", str(HARNESS / "allreduce.py"),
        cwd=tmp_path, env=path_env,
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    # the note is shown, and is no reason to stop
    assert "note[associations-not-checked] slurm.account" in submitted.stderr
    job_id = submitted.stdout.split()[3].rstrip(";")
    assert slurm_cluster.wait(job_id) == "COMPLETED"
    assert slurm_cluster.job_field(job_id, "Partition") == "batch"


def test_no_controller_is_a_clear_error(slurm_cluster: Cluster, tmp_path: Path) -> None:
    conf = Path(slurm_cluster.env["SLURM_CONF"]).read_text()
    down = tmp_path / "slurm.conf"
    down.write_text(_with_port(conf, free_port()))
    path = write(tmp_path, "ok", 'slurm:\n  time: "00:10:00"\n' + BARE)
    done = cli(
        slurm_cluster, "validate", "--cluster", str(path), cwd=tmp_path,
        env={"SLURM_CONF": str(down)},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(
        "error: --cluster: the Slurm controller does not answer (scontrol ping: "
    )
    submitted = cli(slurm_cluster, "submit", str(path), cwd=tmp_path, env={"SLURM_CONF": str(down)})
    assert submitted.returncode == 1
    assert submitted.stderr.endswith(
        "    hint: pass --no-preflight to submit without asking the cluster\n"
    )


def test_no_configuration_is_a_clear_error_after_the_timeout(
    slurm_cluster: Cluster, tmp_path: Path
) -> None:
    # Slurm's clients retry a missing slurm.conf for a minute; preflight waits 5 s (the
    # bound leaves a busy machine half a minute to start the command, and is far from 60 s)
    path = write(tmp_path, "ok", 'slurm:\n  time: "00:30:00"\n' + BARE)
    missing = tmp_path / "no" / "slurm.conf"
    started = time.monotonic()
    done = cli(
        slurm_cluster, "validate", "--cluster", str(path), cwd=tmp_path,
        env={"SLURM_CONF": str(missing)},
    )  # fmt: skip
    assert time.monotonic() - started < 40
    assert done.returncode == 1
    assert done.stderr == (
        "error: --cluster: Slurm is not configured on this host (scontrol: error: "
        f"s_p_parse_file: cannot stat file {missing}: No such file or directory, retrying in "
        "1sec up to 60sec)\n"
    )


@pytest.fixture
def silent_controller() -> Iterator[int]:
    """A port that accepts connections and never answers: a hung slurmctld."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


def test_a_cluster_that_does_not_answer_is_one_warning(
    slurm_cluster: Cluster, tmp_path: Path, silent_controller: int
) -> None:
    conf = Path(slurm_cluster.env["SLURM_CONF"]).read_text()
    silent = tmp_path / "slurm.conf"
    silent.write_text(_with_port(conf, silent_controller))
    paths = [write(tmp_path, f"ok{i}", 'slurm:\n  time: "00:30:00"\n' + BARE) for i in (1, 2)]
    log, shims = logging_shims(tmp_path / "shims", "scontrol", "srun", "sacctmgr", "sbatch")
    done = cli(
        slurm_cluster, "validate", "--cluster", *map(str, paths), cwd=tmp_path,
        env={"SLURM_CONF": str(silent), **shims},
    )  # fmt: skip
    # one wait of 5 s, not one per file or command: the cluster is asked once
    assert log.calls == ["scontrol ping"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("warning[cluster-unanswered]") == 2  # one per file
    assert f"{paths[0]}:1:1: warning[cluster-unanswered] slurm: the cluster was not checked: " \
        "`scontrol ping` did not answer within 5s" in done.stdout  # fmt: skip


def _with_port(conf: str, port: int) -> str:
    return "\n".join(
        f"SlurmctldPort={port}" if line.startswith("SlurmctldPort=") else line
        for line in conf.splitlines()
    )
