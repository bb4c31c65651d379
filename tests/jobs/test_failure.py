"""Failure diagnosis from what failed jobs leave in their directories.

``captured/failure/{exit,oom}`` are what torchrun 2.13 left on 2 CPU ranks running
``tests/integration/harness/failing_rank.py`` (decorated with ``@record``) with the
variables our scripts set: the log (``out.log``, torchrun's output with every rank's
tagged lines), each rank's ``torchrun/RUN/attempt_0/N/`` and the agent's
``errors/node0.json``. In ``exit``, rank 1 exits 3 while rank 0 waits in an all_reduce;
torch's own report names rank 0 (stopped with SIGTERM after rank 1 left) as the root cause.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs import failure_sources
from automodel_launch.jobs.failure import Failure, diagnose
from automodel_launch.jobs.manifest import Manifest, new_manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.view import status_lines
from automodel_launch.launchers.dispatch import with_failure

CAPTURED = Path(__file__).parent / "captured" / "failure"
LOG = "job_12.out"


def job(tmp_path: Path, captured: str | None = None, **details: Any) -> Manifest:
    job_dir = tmp_path / "job"
    if captured is not None:
        shutil.copytree(CAPTURED / captured, job_dir)
        (job_dir / "out.log").rename(job_dir / LOG)
    else:
        job_dir.mkdir()
    (tmp_path / "job.yaml").write_text("slurm: {}\n")
    manifest = new_manifest(
        name="job", launcher="slurm", job_dir=job_dir, config=tmp_path / "job.yaml", argv=[],
        artifacts=[], environ={}, details=details or None,
    )  # fmt: skip
    return manifest.model_copy(update={"scheduler_id": "12"})


def failed(manifest: Manifest, state: str = "FAILED", scheduler: str | None = "FAILED",
           code: int | None = 1, log: bool = True) -> JobStatus:  # fmt: skip
    log_path = str(Path(manifest.job_dir) / LOG) if log else None
    return JobStatus(manifest, state, scheduler_state=scheduler, exit_code=code,  # type: ignore[arg-type]
                     log_path=log_path)  # fmt: skip


def write_log(manifest: Manifest, text: str) -> None:
    (Path(manifest.job_dir) / LOG).write_text(text)


def test_the_rank_that_exited_first_not_the_one_stopped_after_it(tmp_path: Path) -> None:
    status = with_failure(failed(job(tmp_path, "exit")))
    assert status.failure == Failure(
        rank=1, exit_code=3, signal=None, cause="exit-code",
        summary="Rank 1 exited with code 3: its last lines say why.",
        log_tail=["rank 1 gives up"],
    )  # fmt: skip
    assert status.to_json()["failure"] == {
        "rank": 1, "exit_code": 3, "signal": None, "cause": "exit-code",
        "summary": "Rank 1 exited with code 3: its last lines say why.",
        "log_tail": ["rank 1 gives up"],
    }  # fmt: skip
    assert status_lines(status)[-3:] == [
        "failure    exit-code: Rank 1 exited with code 3: its last lines say why.",
        "last lines of rank 1:",
        "  rank 1 gives up",
    ]


def test_cuda_out_of_memory_names_the_fields_to_change(tmp_path: Path) -> None:
    shown = diagnose(failed(job(tmp_path, "oom")))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.signal, shown.cause) == (0, 1, None, "oom-gpu")
    assert shown.summary == (
        "Rank 0 ran out of GPU memory: lower `local_batch_size`, turn on activation "
        "checkpointing, or spread the model over more nodes (`slurm.nodes`)."
    )
    assert shown.log_tail[-1] == (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 79.15 GiB "
        "total capacity; 70.02 GiB already allocated; 1.56 GiB free)"
    )
    assert shown.log_tail[0] == "rank 0 allocates"


def test_without_a_log_the_error_files_say_it(tmp_path: Path) -> None:
    """A foreground run's output went to the terminal: torch's files are what is left;
    the rank's exit code is the one its agent recorded in its copy."""
    manifest = job(tmp_path, "oom")
    shown = diagnose(failed(manifest, log=False, code=None))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.cause) == (0, 1, "oom-gpu")
    assert shown.log_tail[0] == "Traceback (most recent call last):"
    assert shown.log_tail[-1].startswith("RuntimeError: CUDA out of memory. Tried to allocate")


def test_only_the_agents_file(tmp_path: Path) -> None:
    manifest = job(tmp_path, "oom")
    shutil.rmtree(Path(manifest.job_dir) / "torchrun")
    shown = diagnose(failed(manifest, log=False, code=None))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.cause) == (None, 1, "oom-gpu")
    assert shown.summary.startswith("The job ran out of GPU memory")
    assert shown.log_tail[0] == "Traceback (most recent call last):"  # the agent's copy's


REPORT = """\
Root Cause (first observed failure):
[0]:
  time      : {time}
  host      : {node}
  rank      : {rank} (local_rank: 0)
  exitcode  : {code} (pid: 4242){sig}
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""


def test_two_nodes_the_earliest_report_that_is_no_collateral(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    for run in ("a_1", "b_2"):
        (Path(manifest.job_dir) / "torchrun" / run / "attempt_0" / "0").mkdir(parents=True)
    write_log(manifest, "".join([
        "[rank2]:step 1\n[rank2]:step 2 done\n",
        REPORT.format(time="2026-12-02_04:00:01", node="node1", rank=0, code=-15,
                      sig="  (SIGTERM)"),
        REPORT.format(time="2026-12-02_04:00:02", node="node2", rank=2, code=7, sig=""),
        REPORT.format(time="2026-12-02_04:00:09", node="node3", rank=4, code=-9,
                      sig="  (SIGKILL)"),
    ]))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.signal, shown.cause) == (2, 7, None, "exit-code")
    assert shown.log_tail == ["step 1", "step 2 done"]


def test_a_rank_killed_by_a_signal(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, REPORT.format(time="2026-12-02_04:00:09", node="n", rank=3, code=-9,
                                      sig="  (SIGKILL)"))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.signal, shown.cause) == (3, 137, "SIGKILL",
                                                                        "exit-code")  # fmt: skip
    assert shown.summary == "Rank 3 exited with code 137 (SIGKILL): its last lines say why."


@pytest.mark.parametrize(
    ("scheduler", "state", "cause", "start"),
    [
        ("TIMEOUT", "TIMEOUT", "time-limit",
         "The job ran past its time limit (0:01:00): raise `slurm.time`"),
        ("PREEMPTED", "PREEMPTED", "preempted", "The job was preempted by the scheduler"),
        ("DEADLINE", "TIMEOUT", "time-limit", "The job ran past its time limit"),
        ("NODE_FAIL", "FAILED", "node-failure", "The job lost a node: submit it again"),
        ("BOOT_FAIL", "FAILED", "node-failure", "The job lost a node: submit it again"),
        ("OUT_OF_MEMORY", "FAILED", "oom-host", "The job ran out of host memory"),
    ],
)  # fmt: skip
def test_what_slurm_says_comes_first(
    tmp_path: Path, scheduler: str, state: str, cause: str, start: str
) -> None:
    manifest = job(tmp_path, "oom")  # the log says CUDA: Slurm's word wins
    status = replace(failed(manifest, state, scheduler, 143), time_limit="0:01:00")
    shown = diagnose(status)
    assert shown is not None
    assert shown.cause == cause
    assert shown.summary.startswith(start)
    assert shown.rank == 0  # the rank is still the one that failed first


STOPPED_LINE = ("slurmstepd-node1: error: *** JOB 12 ON node1 CANCELLED AT 2026-12-02T04:01:05 "
                "DUE TO TIME LIMIT ***")  # fmt: skip


def forgotten(tmp_path: Path, code: str | None, after: float) -> JobStatus:
    """A job Slurm no longer knows (no accounting, past MinJobAge), stopped for its time
    limit, that left ``code`` in ``exit_code`` ``after`` seconds after Slurm's line."""
    from automodel_launch.launchers.slurm.jobs import from_job_dir
    from automodel_launch.launchers.slurm.output import iso_time

    manifest = job(tmp_path, time="00:01:00")
    job_dir = Path(manifest.job_dir)
    write_log(manifest, f"[rank0]:rank 0 sleeps\n{STOPPED_LINE}\n")
    if code is not None:
        (job_dir / "exit_code").write_text(code)
        stopped = iso_time("2026-12-02T04:01:05")
        assert stopped is not None
        os.utime(job_dir / "exit_code", (stopped + after, stopped + after))
    return with_failure(from_job_dir(manifest, None))


@pytest.mark.parametrize(("code", "after", "exit_code", "signal"), [
    ("143\n", 1, 143, "SIGTERM"), ("0\n", 2, None, None), ("143\n", -100, 143, "SIGTERM"),
    ("143\n", 300, 143, "SIGTERM"), ("143\n", -120, 143, "SIGTERM"), (None, 0, None, None),
])  # fmt: skip
def test_a_timeout_slurm_has_forgotten(
    tmp_path: Path, code: str | None, after: float, exit_code: int | None, signal: str | None
) -> None:
    """The exit status the job left (143, or 0 when bash recorded its last command's) is
    not how it ended: Slurm's line in its log is, as long as nothing ended it later."""
    status = forgotten(tmp_path, code, after)
    assert (status.state, status.exit_code, status.scheduler_state) == ("TIMEOUT", exit_code,
                                                                         None)  # fmt: skip
    assert status.finished
    assert status.failure is not None
    assert status.failure.model_dump() == {
        "rank": None, "exit_code": exit_code, "signal": signal, "cause": "time-limit",
        "summary": "The job ran past its time limit (00:01:00): raise `slurm.time`, or "
                   "checkpoint more often and resume.",
        "log_tail": ["[rank0]:rank 0 sleeps", STOPPED_LINE],
    }  # fmt: skip


@pytest.mark.parametrize(("code", "after", "state"), [
    ("0\n", 301, "COMPLETED"), ("0\n", -121, "COMPLETED"), ("1\n", 3600, "FAILED"),
])  # fmt: skip
def test_a_job_that_ran_again_after_slurm_stopped_it(
    tmp_path: Path, code: str, after: float, state: str
) -> None:
    """Requeued after a stop, it ended otherwise: its exit status says how."""
    status = forgotten(tmp_path, code, after)
    assert status.state == state
    assert status.failure is None or status.failure.cause == "exit-code"


@pytest.mark.parametrize(("marker", "state", "cause"), [
    ("PREEMPTION", "PREEMPTED", "preempted"), ("NODE FAILURE", "FAILED", "node-failure"),
])  # fmt: skip
def test_other_stops_slurm_has_forgotten(
    tmp_path: Path, marker: str, state: str, cause: str
) -> None:
    from automodel_launch.launchers.slurm.jobs import from_job_dir

    manifest = job(tmp_path)
    line = STOPPED_LINE.replace("TIME LIMIT", marker)
    if marker == "PREEMPTION":  # the step's line (Slurm writes the job's and its steps')
        line = line.replace("JOB 12 ", "STEP 12.0 ")
    write_log(manifest, line + "\n")
    status = with_failure(from_job_dir(manifest, None))
    assert (status.state, status.finished) == (state, True)
    assert status.failure is not None and status.failure.cause == cause


NCCL = "[rank1]:torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970"
WATCHDOG = ("[rank1]:[E1202 04:00:00 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE)")  # fmt: skip
CONFIG_TRACE = (
    '[rank1]:  File "/opt/Automodel/nemo_automodel/recipes/llm/train_ft.py", line 812, in '
    "setup\n"
    '[rank1]:  File "/opt/Automodel/nemo_automodel/components/config/loader.py", line 120, '
    "in instantiate\n[rank1]:TypeError: __init__() got an unexpected keyword argument 'lr'"
)


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        (NCCL, "nccl"),
        (WATCHDOG, "nccl"),
        ("[rank1]:ModuleNotFoundError: No module named 'nemo_automodel'", "import-error"),
        ("[rank1]:ImportError: cannot import name 'x' from 'y'", "import-error"),
        (CONFIG_TRACE, "config-error"),
        ("[rank1]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB",
         "oom-gpu"),
        ("slurmstepd: error: Detected 1 oom_kill event in StepId=12.0. Some of the step "
         "tasks have been OOM Killed.", "oom-host"),
        ("[rank1]:MemoryError", "oom-host"),
        # Slurm's FAILED: a stop in the log is of an earlier run (requeued)
        ("slurmstepd: error: *** JOB 12 ON node2 CANCELLED AT 2026-12-02T04:00:00 DUE TO "
         "NODE FAILURE ***", "exit-code"),
        ("[rank1]:ValueError: something else", "exit-code"),
    ],
)  # fmt: skip
def test_log_patterns(tmp_path: Path, log: str, cause: str) -> None:
    manifest = job(tmp_path)
    write_log(manifest, log + "\n")
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert (shown.rank, shown.cause) == (None, cause)
    assert shown.log_tail == log.splitlines()


def test_the_failing_ranks_words_not_another_ranks(tmp_path: Path) -> None:
    """Rank 0 died of an import error; rank 1 then timed out in NCCL: import-error."""
    manifest = job(tmp_path)
    write_log(manifest, "\n".join([
        "[rank0]:ModuleNotFoundError: No module named 'flash_attn'", WATCHDOG,
        REPORT.format(time="2026-12-02_04:00:01", node="n1", rank=0, code=1, sig=""),
        REPORT.format(time="2026-12-02_04:10:01", node="n2", rank=1, code=-6, sig=" (SIGABRT)"),
    ]))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.cause) == (0, 1, "import-error")
    assert shown.summary.startswith("Rank 0 could not import a module: install it")


def test_nothing_to_go_by(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    shown = diagnose(failed(manifest, code=None))
    assert shown == Failure(
        rank=None, exit_code=None, signal=None, cause="unknown",
        summary="The job failed, and its files do not say why: look at the whole log "
                "(`automodel-launch logs JOB`).",
        log_tail=[],
    )  # fmt: skip
    coded = diagnose(failed(manifest, code=2))
    assert coded is not None and (coded.cause, coded.exit_code) == ("exit-code", 2)


@pytest.mark.parametrize("state", ["COMPLETED", "RUNNING", "PENDING", "CANCELLED", "UNKNOWN"])
def test_only_failed_jobs(tmp_path: Path, state: str) -> None:
    status = failed(job(tmp_path, "exit"), state, state, 0)
    assert diagnose(status) is None
    assert with_failure(status) is status
    assert status.to_json()["failure"] is None


def test_the_log_tail_is_bounded(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, "".join(f"[rank0]:line {i}" + " word" * 300 + "\n" for i in range(500)))
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert len(shown.log_tail) == 20
    assert shown.log_tail[0].startswith("[rank0]:line 480 word")
    assert {len(line) for line in shown.log_tail} == {403}
    assert shown.log_tail[0].endswith(" wor...")


def test_the_end_of_a_large_log(tmp_path: Path) -> None:
    """The last 256 KiB: torchrun's report at the end is read, its first, cut, line not."""
    manifest = job(tmp_path)
    report = REPORT.format(time="2026-12-02_04:00:09", node="n", rank=5, code=2, sig="")
    head = "[rank5]:" + "y" * 100_000 + "CUDA out of memory\n"
    write_log(manifest, head + "[rank5]:z\n" * 30_000 + report)
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.cause) == (5, 2, "exit-code")
    assert 20_000 < len(failure_sources.log_lines(Path(manifest.job_dir), LOG)) < 30_000


# ------------------------------------------------------------------ hostile files
def rank_file(manifest: Manifest, local: str = "0") -> Path:
    folder = Path(manifest.job_dir) / "torchrun" / "r_1" / "attempt_0" / local
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "error.json"


@pytest.mark.parametrize(
    "content",
    [
        b"{" * 200_000,
        b"[" * 100 + b"]" * 100,
        b'{"message": {"message": 7}}',
        b'{"message": {"message": "x", "extraInfo": {"timestamp": "-1"}}}',
        b'{"message": {"message": "x", "errorCode": 100000}}',
        b"\xff\xfe garbage",
        b'{"message": "x", "timestamp": 1e999}',
        b"",
    ],
)
def test_garbled_error_files_are_left_out(tmp_path: Path, content: bytes) -> None:
    manifest = job(tmp_path)
    rank_file(manifest).write_bytes(content)
    assert failure_sources.error_files(Path(manifest.job_dir)) == []
    shown = diagnose(failed(manifest, code=None))
    assert shown is not None and shown.cause == "unknown"


def test_a_huge_error_file_is_not_read(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    big = {"message": {"message": "CUDA out of memory" + "x" * (1 << 20)}}
    rank_file(manifest).write_text(json.dumps(big))
    shown = diagnose(failed(manifest, code=None))
    assert shown is not None and shown.cause == "unknown"


def test_fifos_and_links_are_not_read(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    os.mkfifo(rank_file(manifest, "0"))
    secret = tmp_path / "elsewhere.json"
    secret.write_text('{"message": "CUDA out of memory"}')
    rank_file(manifest, "1").symlink_to(secret)
    (Path(manifest.job_dir) / "errors").mkdir()
    (Path(manifest.job_dir) / "errors" / "node0.json").symlink_to(secret)
    os.mkfifo(Path(manifest.job_dir) / LOG)
    (Path(manifest.job_dir) / "torchrun" / "r_2").symlink_to(Path(manifest.job_dir) / "torchrun"
                                                             / "r_1")  # fmt: skip
    shown = diagnose(failed(manifest, code=None))
    assert shown is not None
    assert (shown.cause, shown.log_tail) == ("unknown", [])


def test_no_token_and_no_lone_surrogate_in_what_is_shown(tmp_path: Path) -> None:
    from tests.hostile.tokens import KINDS, make

    manifest = job(tmp_path)
    tokens = [make(kind, 20) for kind in KINDS]
    shaped = [t for t in tokens if not t.needs_key_name]
    write_log(manifest, "".join(
        f"[rank0]:export HF_TOKEN={t.value}\n" if t.needs_key_name else f"[rank0]:got {t.value}\n"
        for t in tokens
    ))  # fmt: skip
    rank_file(manifest).write_text(json.dumps({"message": {
        "message": "RuntimeError: \udc80 " + shaped[0].value,
        "extraInfo": {"py_callstack": "Traceback\n\udc80" + shaped[1].value, "timestamp": "1"},
    }}))  # fmt: skip
    status = with_failure(failed(manifest))
    shown = json.dumps(status.to_json()) + "\n".join(status_lines(status))
    for token in tokens:
        assert token.middle not in shown, token.kind
    assert status.failure is not None
    assert len(status.failure.log_tail) == min(20, len(tokens))
    "\n".join(status_lines(status)).encode("utf-8")
    no_log = with_failure(failed(manifest, log=False))
    assert no_log.failure is not None and no_log.failure.log_tail == ["Traceback", "?***"]
    shown = json.dumps(no_log.to_json()) + "\n".join(status_lines(no_log))
    assert shaped[1].middle not in shown


# ------------------------------------------------------------------ other launchers
def test_a_detached_local_run(tmp_path: Path) -> None:
    """``submit --detach`` on this node: the log is ``output.log``, the status is read by
    the local backend from the run's ``exit_code``; ``status`` diagnoses it."""
    from automodel_launch import api

    manifest = job(tmp_path, "exit")
    job_dir = Path(manifest.job_dir)
    (job_dir / LOG).rename(job_dir / "output.log")
    (job_dir / "exit_code").write_text("1\n")
    local = manifest.model_copy(update={
        "launcher": "interactive", "scheduler_id": "4242",
        "details": {"pid": 4242, "detached": True, "started_at": 1.0},
    })  # fmt: skip
    status = api.status(local)
    assert (status.state, status.exit_code) == ("FAILED", 1)
    assert status.failure is not None
    assert (status.failure.rank, status.failure.exit_code) == (1, 3)
    assert status.failure.log_tail == ["rank 1 gives up"]


def test_a_skypilot_job_goes_by_its_failure_reason(tmp_path: Path) -> None:
    manifest = job(tmp_path).model_copy(update={"launcher": "skypilot", "scheduler_id": "3"})
    reason = "Job failed: ModuleNotFoundError: No module named 'flash_attn'"
    status = JobStatus(manifest, "FAILED", scheduler_state="FAILED", reason=reason,
                       log_path="~/sky_logs/x.log")  # fmt: skip
    shown = diagnose(status)
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.cause, shown.log_tail) == (
        None, None, "import-error", []
    )  # fmt: skip


def test_the_real_timeout_once_slurm_forgot_it(tmp_path: Path) -> None:
    """``captured/failure/timeout``: the job directory of the 1-minute sleeper of
    tests/integration/test_failure_slurm.py after Slurm stopped it (bash recorded 0 as
    its exit status), read as once neither squeue nor sacct knows the job."""
    from automodel_launch.launchers.slurm.jobs import from_job_dir
    from automodel_launch.launchers.slurm.output import iso_time

    manifest = job(tmp_path, "timeout", time="00:01:00")
    stopped = iso_time("2026-12-02T04:14:31")
    assert stopped is not None
    os.utime(Path(manifest.job_dir) / "exit_code", (stopped + 0.2, stopped + 0.2))
    before = from_job_dir(manifest, None)
    assert (before.state, before.exit_code) == ("COMPLETED", 0)
    status = with_failure(before)
    assert (status.state, status.exit_code) == ("TIMEOUT", None)
    assert status.failure is not None
    assert (status.failure.rank, status.failure.cause) == (None, "time-limit")
    assert status.failure.summary.startswith("The job ran past its time limit (00:01:00)")
    assert status.failure.log_tail[-1] == "srun: launch/slurm: _step_signal: Terminating StepId=1.0"
    assert status_lines(status)[1] == "state      TIMEOUT"


def test_only_a_rank_stopped_after_another_left_a_file(tmp_path: Path) -> None:
    """A run in the foreground (no log): rank 1 exited 3 without an exception (no file);
    rank 0, whose peer went away, wrote one: it is not taken for the first to fail."""
    manifest = job(tmp_path, "exit")
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.signal, shown.cause) == (None, 143, "SIGTERM",
                                                                        "exit-code")  # fmt: skip
    assert shown.log_tail[-1].startswith("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo")


@pytest.mark.parametrize(("code", "shown"), [
    (-255, (None, None)), (-100, (228, None)), (255, (255, None)), (137, (137, "SIGKILL")),
    (-10, (138, "SIGUSR1")), (140, (140, "SIGUSR2")),  # Slurm's warning signals
])  # fmt: skip
def test_exit_codes_out_of_range(tmp_path: Path, code: int, shown: tuple[Any, Any]) -> None:
    manifest = job(tmp_path)
    write_log(manifest, REPORT.format(time="2026-12-02_04:00:09", node="n", rank=3, code=code,
                                      sig=""))  # fmt: skip
    failure = diagnose(failed(manifest))
    assert failure is not None
    assert (failure.rank, (failure.exit_code, failure.signal)) == (3, shown)


def test_a_signal_named_with_a_digit(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, entry(3, -10))
    status = with_failure(failed(manifest))
    assert status.failure is not None and status.failure.signal == "SIGUSR1"
    assert status.failure.summary == (
        "Rank 3 exited with code 138 (SIGUSR1): its last lines say why."
    )
    assert status.to_json()["failure"]["signal"] == "SIGUSR1"


@pytest.mark.parametrize(("code", "rank"), [(255, 3), (-255, 3), (256, None), (-256, None)])
def test_a_report_of_an_exit_code_past_255_is_no_report(
    tmp_path: Path, code: int, rank: int | None
) -> None:
    manifest = job(tmp_path)
    write_log(manifest, entry(3, code))
    failure = diagnose(failed(manifest))
    assert failure is not None and failure.rank == rank


def test_ranks_folders_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(failure_sources, "MAX_RANK_FOLDERS", 3)
    monkeypatch.setattr(failure_sources, "MAX_ERROR_FILES", 2)
    manifest = job(tmp_path)
    for local in range(6):
        rank_file(manifest, str(local)).write_text(json.dumps({"message": f"rank {local}"}))
    assert [r.local_rank for r in failure_sources.error_files(Path(manifest.job_dir))] == [0, 1]
    for local in (0, 1):
        rank_file(manifest, str(local)).unlink()
    assert [r.local_rank for r in failure_sources.error_files(Path(manifest.job_dir))] == [2]


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        ("CUDA out of memory", "oom-gpu"),
        ("torch.OutOfMemoryError: x", "oom-gpu"),
        ("CUDA error: out of memory", "oom-gpu"),
        ("HIP out of memory", "oom-gpu"),
        ("CUBLAS_STATUS_ALLOC_FAILED", "oom-gpu"),
        ("MemoryError", "oom-host"),
        ("OSError: [Errno 12] Cannot allocate memory", "oom-host"),
        ("NCCL error in: x", "nccl"),
        ("NCCL timeout", "nccl"),
        ("NCCL WARN Net : Connection closed", "nccl"),
        ("ncclSystemError: System call failed", "nccl"),
        ("Watchdog caught collective operation timeout: x", "nccl"),
        ("NCCL communicator was aborted on rank 1", "nccl"),
        ("[PG 0 Rank 1] ProcessGroupNCCL's watchdog got stuck for 480 seconds: Timeout", "nccl"),
        ("ProcessGroupNCCL is going to abort", "nccl"),
        ("ModuleNotFoundError: No module named 'x'", "import-error"),
        ("ImportError: cannot import name 'x'", "import-error"),
        ('  File "/a/recipes/llm/train_ft.py", line 9, in setup', "config-error"),
        ('  File "/a/components/config/loader.py", line 9, in instantiate', "config-error"),
        ('  File "/a/recipes/llm/train_ft.py", line 9, in build_model', "config-error"),
        ('  File "/a/recipes/llm/train_ft.py", line 9, in _build_optimizer', "config-error"),
        ('  File "/a/other/train_ft.py", line 9, in setup', "exit-code"),
        ('  File "/a/recipes/llm/train_ft.py", line 9, in step', "exit-code"),
        ("NcclError", "exit-code"),
    ],
)
def test_each_words_of_a_cause(tmp_path: Path, said: str, cause: str) -> None:
    manifest = job(tmp_path)
    write_log(manifest, f"[rank1]:{said}\n")
    shown = diagnose(failed(manifest))
    assert shown is not None and shown.cause == cause


@pytest.mark.parametrize(
    "said",
    ["slurmstepd: error: Detected 1 oom_kill event in StepId=12.0", "oom-kill event",
     "Out of memory: Killed process 4242 (python)", "Some of the step tasks have been OOM Killed"],
)  # fmt: skip
def test_each_words_of_the_host_oom_killer(tmp_path: Path, said: str) -> None:
    manifest = job(tmp_path)
    write_log(manifest, said + "\n")
    shown = diagnose(failed(manifest))
    assert shown is not None and shown.cause == "oom-host"


@pytest.mark.parametrize(
    "said",
    ["Connection closed by peer [10.0.0.2]:1234", "Connection reset by peer",
     "BrokenPipeError: [Errno 32] Broken pipe", "SignalException: Process 9 got signal: 2",
     "NCCL remote process exited or there was a network error", "Process 9 got signal: 15"],
)  # fmt: skip
def test_each_words_of_a_rank_stopped_after_another(tmp_path: Path, said: str) -> None:
    """Rank 0 failed a second earlier, of its peer's departure: rank 1 is the first."""
    manifest = job(tmp_path)
    write_log(manifest, "".join([
        f"[rank0]:{said}\n",
        REPORT.format(time="2026-12-02_04:00:01", node="n1", rank=0, code=1, sig=""),
        REPORT.format(time="2026-12-02_04:00:02", node="n2", rank=1, code=4, sig=""),
    ]))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.exit_code) == (1, 4)


# ------------------------------------------------------------------ which rank is first
ENTRY = """\
[{idx}]:
  time      : {time}
  host      : n
  rank      : {rank} (local_rank: {rank})
  exitcode  : {code} (pid: 42)
  error_file: {error_file}
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
"""


def entry(rank: int, code: int, time: str = "2026-12-02_04:00:01", error_file: str = "<N/A>",
          idx: int = 0) -> str:  # fmt: skip
    return ENTRY.format(idx=idx, time=time, rank=rank, code=code, error_file=error_file)


def test_the_root_cause_of_a_report_before_its_other_failures(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, "".join([
        "=" * 60 + "\nx.py FAILED\n" + "-" * 60 + "\nFailures:\n", entry(2, 5),
        "-" * 60 + "\nRoot Cause (first observed failure):\n", entry(3, 6, idx=1),
        "=" * 60 + "\n", "Failures:\n", entry(1, 7),  # a later report's other failure
    ]))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.exit_code) == (3, 6)


def test_a_report_missing_a_field_is_no_report(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    for field in ("time", "rank", "exitcode"):
        broken = "".join(line for line in entry(4, 9).splitlines(keepends=True)
                         if not line.startswith(f"  {field} "))  # fmt: skip
        write_log(manifest, "Root Cause (first observed failure):\n" + broken)
        shown = diagnose(failed(manifest, code=None))
        assert shown is not None and (shown.rank, shown.exit_code) == (None, None), field


def test_only_ranks_stopped_by_torchrun_reported(tmp_path: Path) -> None:
    """Every report is of a rank stopped by SIGTERM (Slurm stopped the job): the earliest
    is still the rank the report names."""
    manifest = job(tmp_path)
    write_log(manifest, "Root Cause (first observed failure):\n" + entry(2, -15)
              + "Root Cause (first observed failure):\n"
              + entry(1, -15, time="2026-12-02_04:00:03"))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.exit_code, shown.signal) == (2, 143, "SIGTERM")


def test_a_shell_stopped_by_sigterm_is_stopped_too(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, entry(0, 143) + entry(1, 4, time="2026-12-02_04:00:02"))
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.exit_code) == (1, 4)


def error_at(path: Path, text: str, seconds: int, code: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    message: dict[str, Any] = {"message": text, "extraInfo": {"timestamp": str(seconds)}}
    if code is not None:
        message["errorCode"] = code
    path.write_text(json.dumps({"message": message}))


def test_the_reported_ranks_error_file_says_why(tmp_path: Path) -> None:
    """Nothing in the log but torchrun's report: the rank's error file (named in it by its
    absolute path, as torchrun prints it) holds the CUDA error."""
    manifest = job(tmp_path)
    path = rank_file(manifest, "0")
    error_at(path, "torch.OutOfMemoryError: CUDA out of memory", 5)
    agent = Path(manifest.job_dir) / "errors" / "node0.json"
    agent.parent.mkdir()
    agent.write_text(json.dumps({"message": {"message": "ImportError: x", "errorCode": 1}}))
    write_log(manifest, entry(0, 1, error_file=str(path)))
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.cause) == (0, "oom-gpu")


def test_without_a_report_the_earliest_error_file(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    error_at(rank_file(manifest, "0"), "ValueError: late", 1_700_000_090)
    error_at(rank_file(manifest, "1"), "ImportError: early", 1_700_000_010)
    error_at(Path(manifest.job_dir) / "errors" / "node0.json", "ImportError: early",
             1_700_000_010, 7)  # fmt: skip
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None
    assert (shown.rank, shown.exit_code, shown.cause) == (1, 7, "import-error")


def test_an_agents_file_of_another_failure(tmp_path: Path) -> None:
    """The agent's copy is of the same rank only when it says the same at the same time."""
    manifest = job(tmp_path)
    error_at(rank_file(manifest, "0"), "ValueError: x", 1_700_000_010)
    error_at(Path(manifest.job_dir) / "errors" / "node0.json", "ValueError: x",
             1_700_000_020, 7)  # fmt: skip
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None and (shown.rank, shown.exit_code) == (0, 1)


def test_without_a_report_error_files_of_two_nodes(tmp_path: Path) -> None:
    """Each node's agent has its run folder; a local rank is no global rank then."""
    manifest = job(tmp_path)
    error_at(rank_file(manifest, "1"), "ValueError: x", 1_700_000_010)
    other = Path(manifest.job_dir) / "torchrun" / "r_2" / "attempt_0" / "0" / "error.json"
    error_at(other, "ValueError: y", 1_700_000_020)
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None and (shown.rank, shown.exit_code) == (None, 1)


def test_the_last_attempt_and_ranks_in_order(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    runs = Path(manifest.job_dir) / "torchrun"
    (runs / "a_0").mkdir(parents=True)  # an agent that started no rank
    for attempt in ("attempt_2", "attempt_10"):
        for local in ("9", "10"):
            error_at(runs / "b_1" / attempt / local / "error.json", f"{attempt} {local}", 1)
    found = failure_sources.error_files(Path(manifest.job_dir))
    assert [(r.error.text, r.local_rank, r.run) for r in found] == [
        ("attempt_10 9", 9, "b_1"), ("attempt_10 10", 10, "b_1")
    ]  # fmt: skip


def test_what_slurm_stopped_is_the_whole_jobs(tmp_path: Path) -> None:
    """A rank known to have failed first, but Slurm stopped the job: the job's sentence."""
    from automodel_launch.launchers.slurm.jobs import from_job_dir

    manifest = job(tmp_path, time="00:01:00")
    write_log(manifest, entry(1, -15) + STOPPED_LINE + "\n")
    status = with_failure(from_job_dir(manifest, None))
    assert status.failure is not None and status.failure.rank == 1
    assert status.failure.summary.startswith("The job ran past its time limit (00:01:00)")
    write_log(manifest, entry(1, -9) + "slurmstepd: error: Detected 1 oom_kill event\n")
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.cause) == (1, "oom-host")
    assert shown.summary.startswith("The job ran out of host memory")


@pytest.mark.parametrize(("log", "state", "cause"), [
    ("[rank0]:ValueError: x\n", "FAILED", "exit-code"),
    ("slurmstepd: error: Detected 1 oom_kill event in StepId=12.0\n", "FAILED", "oom-host"),
])  # fmt: skip
def test_a_failed_job_slurm_has_forgotten(tmp_path: Path, log: str, state: str, cause: str) -> None:
    from automodel_launch.launchers.slurm.jobs import from_job_dir

    manifest = job(tmp_path)
    (Path(manifest.job_dir) / "exit_code").write_text("1\n")
    write_log(manifest, log)
    status = with_failure(from_job_dir(manifest, None))
    assert (status.state, status.exit_code) == (state, 1)
    assert status.failure is not None and status.failure.cause == cause


def test_words_without_a_limit_and_without_a_rank() -> None:
    from automodel_launch.jobs.failure_text import failure_lines, summary

    assert summary("time-limit", None, None, None, None) == (
        "The job ran past its time limit: raise `slurm.time`, or checkpoint more often and resume."
    )
    shown = Failure(rank=None, exit_code=None, signal=None, cause="unknown", summary="S.",
                    log_tail=["a"])  # fmt: skip
    assert failure_lines(shown) == ["failure    unknown: S.", "last lines of the job:", "  a"]


def test_the_exact_end_of_a_large_log(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, "".join(f"[rank0]:{i}\n" for i in range(100_000)))
    data = (Path(manifest.job_dir) / LOG).read_bytes()[-failure_sources.LOG_TAIL_BYTES :]
    lines = failure_sources.log_lines(Path(manifest.job_dir), LOG)
    assert lines == data.decode().splitlines()[1:]
    assert lines[-1] == "[rank0]:99999"


def test_exit_codes_and_signals() -> None:
    from automodel_launch.jobs.failure import _Candidate, _exit

    assert _exit(None, 0) == (0, None)
    assert _exit(None, 127) == (127, None)
    assert _exit(None, 128) == (128, None)
    assert _exit(None, 138) == (138, "SIGUSR1")
    assert _exit(_Candidate(0, -12, ""), None) == (140, "SIGUSR2")
    assert _exit(None, 129) == (129, "SIGHUP")
    assert _exit(None, 255) == (255, None)
    assert _exit(None, 256) == (None, None)
    assert _exit(_Candidate(0, 0, ""), 9) == (0, None)
    assert _exit(_Candidate(0, -1, ""), None) == (129, "SIGHUP")
    assert _exit(_Candidate(0, None, ""), 2) == (2, None)


def test_a_ranks_lines_without_torchs_own_tag(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    exact = "[rank2]:" + "ab " * 133 + "c"  # 400 characters once untagged
    write_log(manifest, "[rank2]:[rank2]:  indented \n[rank2]:[rank2]:x\n" + exact + "\n"
              + entry(2, 1))  # fmt: skip
    shown = diagnose(failed(manifest))
    assert shown is not None
    assert shown.log_tail == [" indented", "x", exact.removeprefix("[rank2]:")]


def test_a_log_outside_the_job_directory_is_not_read(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    other = tmp_path / "other.log"
    other.write_text("[rank0]:CUDA out of memory\n")
    status = replace(failed(manifest, code=3), log_path=str(other))
    shown = diagnose(status)
    assert shown is not None and (shown.cause, shown.log_tail) == ("exit-code", [])
    # nor a file of the job directory of the same name: that log is not the job's
    (Path(manifest.job_dir) / "other.log").write_text("[rank0]:CUDA out of memory\n")
    shown = diagnose(status)
    assert shown is not None and (shown.cause, shown.log_tail) == ("exit-code", [])


def test_the_reported_ranks_own_exit_code_first(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, entry(2, 4))
    shown = diagnose(failed(manifest, code=None))
    assert shown is not None and (shown.cause, shown.exit_code) == ("exit-code", 4)


def test_a_node_failure_slurm_has_forgotten_is_the_whole_jobs(tmp_path: Path) -> None:
    from automodel_launch.launchers.slurm.jobs import from_job_dir

    manifest = job(tmp_path)
    write_log(manifest, entry(1, 1) + STOPPED_LINE.replace("TIME LIMIT", "NODE FAILURE") + "\n")
    status = with_failure(from_job_dir(manifest, None))
    assert status.failure is not None and status.failure.rank == 1
    assert status.failure.summary.startswith("The job lost a node")


def test_a_run_folder_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    error_at(elsewhere / "attempt_0" / "0" / "error.json", "CUDA out of memory", 5)
    (Path(manifest.job_dir) / "torchrun").mkdir()
    (Path(manifest.job_dir) / "torchrun" / "r_1").symlink_to(elsewhere)
    assert failure_sources.error_files(Path(manifest.job_dir)) == []


def test_a_log_that_is_not_utf8(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    (Path(manifest.job_dir) / LOG).write_bytes(b"[rank0]:\xff\xfe boom\n")
    shown = diagnose(failed(manifest))
    assert shown is not None and shown.log_tail == ["[rank0]:\ufffd\ufffd boom"]


def bare(rank: int, code: int) -> str:
    """An entry of torchrun's report without its ``[N]:`` line."""
    return "".join(entry(rank, code).splitlines(keepends=True)[1:])


@pytest.mark.parametrize(
    ("log", "rank"),
    [
        (bare(1, 3) + bare(2, 4), 1),  # entries one after the other: both read
        (bare(2, 3) + "Root Cause (first observed failure):\n" + bare(3, 4), 3),
        ("Root Cause (first observed failure):\n" + bare(3, 4) + "Failures:\n" + bare(2, 3), 3),
        ("Root Cause (first observed failure):\n" + bare(3, 4) + "=====\n" + bare(2, 3), 3),
    ],
)
def test_reports_line_by_line(tmp_path: Path, log: str, rank: int) -> None:
    manifest = job(tmp_path)
    write_log(manifest, log)
    exits = failure_sources.rank_exits(log.splitlines())
    assert len(exits) == 2
    shown = diagnose(failed(manifest))
    assert shown is not None and shown.rank == rank


def test_agents_files_count_to_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(failure_sources, "MAX_ERROR_FILES", 1)
    manifest = job(tmp_path)
    error_at(rank_file(manifest, "0"), "x", 1)
    error_at(Path(manifest.job_dir) / "errors" / "node0.json", "y", 1)
    assert [r.path for r in failure_sources.error_files(Path(manifest.job_dir))] == [
        "torchrun/r_1/attempt_0/0/error.json"
    ]


def test_folders_looked_at_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(failure_sources, "_MAX_ENTRIES", 2)
    for name in ("1", "2", "3"):
        (tmp_path / name).mkdir()
    assert len(failure_sources._folders(tmp_path, re.compile("[0-9]"))) == 2


# ------------------------------------------------------------------ the order of candidates
def plain_error_at(path: Path, text: str, callstack: str = "") -> None:
    """An error file without a timestamp (torch's older form, or a hand-written one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    message = {"message": text, "extraInfo": {"py_callstack": callstack}}
    path.write_text(json.dumps({"message": message}))


def test_an_error_file_without_a_time(tmp_path: Path) -> None:
    """Alone it is the first failure (no crash); a file whose time is known comes first."""
    manifest = job(tmp_path)
    plain_error_at(rank_file(manifest, "1"), "ImportError: untimed", "Traceback\nImportError")
    status = with_failure(failed(manifest, log=False, code=1))
    assert status.failure is not None
    assert (status.failure.rank, status.failure.cause) == (1, "import-error")
    assert status.failure.log_tail == ["Traceback", "ImportError"]
    assert status_lines(status)[-3:] == ["last lines of rank 1:", "  Traceback", "  ImportError"]
    error_at(rank_file(manifest, "2"), "ValueError: timed", 1_700_000_010)
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None and (shown.rank, shown.cause) == (2, "exit-code")


def test_a_rank_known_before_a_rank_unknown_at_the_same_time(tmp_path: Path) -> None:
    """The agent's copy of another failure (another text) at the same second as a rank's
    own file: the rank's is taken, whichever comes first in the files."""
    manifest = job(tmp_path)
    error_at(Path(manifest.job_dir) / "errors" / "node0.json", "ImportError: y", 1_700_000_010)
    error_at(rank_file(manifest, "1"), "ValueError: x", 1_700_000_010)
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None and (shown.rank, shown.cause) == (1, "exit-code")


def test_an_earlier_agents_file_of_another_failure_comes_first(tmp_path: Path) -> None:
    """An agent's file that is no copy of a rank's file is a candidate of its own, with no
    rank: the earlier one is the first, and its words give the cause."""
    manifest = job(tmp_path)
    error_at(rank_file(manifest, "0"), "ValueError: x", 1_700_000_020)
    agent = Path(manifest.job_dir) / "errors" / "node0.json"
    error_at(agent, "ImportError: y", 1_700_000_010, 5)
    shown = diagnose(failed(manifest, log=False, code=1))
    assert shown is not None and (shown.rank, shown.exit_code, shown.cause) == (
        None, 5, "import-error"
    )  # fmt: skip


def test_ranks_of_one_time_the_lower_first(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, entry(5, 3) + entry(2, 4, idx=1) + entry(7, 6, idx=2))
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.exit_code) == (2, 4)


def test_a_peer_gone_only_in_a_ranks_last_200_lines(tmp_path: Path) -> None:
    """Whether a rank was stopped because a peer went away is read in its last 200 lines:
    an earlier "Connection reset by peer" (a retried download) does not make it so."""
    manifest = job(tmp_path)
    for far, rank in ((199, 2), (200, 1)):
        lines = "[rank1]:Connection reset by peer\n" + "[rank1]:step\n" * far
        write_log(manifest, lines + entry(1, 3) + entry(2, 4, time="2026-12-02_04:00:02"))
        shown = diagnose(failed(manifest))
        assert shown is not None and shown.rank == rank, far


def test_what_a_report_says_field_by_field(tmp_path: Path) -> None:
    """An entry before any "Root Cause" heading is no root cause; the error file's path is
    read up to 4096 characters."""
    long_path = "/" * (4096 - 10) + "error.json"
    report = entry(1, 3, error_file=long_path + "x") + entry(2, 3, error_file=long_path)
    lines = report.split("\n")
    assert failure_sources.rank_exits(lines) == [
        failure_sources.RankExit(1, 3, "2026-12-02_04:00:01", long_path, False),
        failure_sources.RankExit(2, 3, "2026-12-02_04:00:01", long_path, False),
    ]


def test_rank_folders_among_other_entries(tmp_path: Path) -> None:
    """Entries of other names (a rank's scratch folder, a file) are passed over, however
    the directory lists them."""
    manifest = job(tmp_path)
    for local in range(10):
        error_at(rank_file(manifest, str(local)), f"rank {local}", 1)
        (rank_file(manifest, "0").parent.parent / f"scratch{local}").mkdir()
        (rank_file(manifest, "0").parent.parent / f"{local}.txt").write_text("x")
    found = failure_sources.error_files(Path(manifest.job_dir))
    assert [r.local_rank for r in found] == list(range(10))


def test_an_agents_copy_is_its_ranks_failure_not_another(tmp_path: Path) -> None:
    """Rank 0 lost its peer (its lines say so): it was stopped; the agent's copy of its
    file is the same failure, so it is no earlier failure of its own: rank 1's is first."""
    manifest = job(tmp_path)
    write_log(manifest, "[rank0]:Connection reset by peer\n")
    error_at(rank_file(manifest, "0"), "RuntimeError: x", 1_700_000_010)
    error_at(Path(manifest.job_dir) / "errors" / "node0.json", "RuntimeError: x",
             1_700_000_010, 1)  # fmt: skip
    error_at(rank_file(manifest, "1"), "ValueError: y", 1_700_000_020)
    shown = diagnose(failed(manifest, code=1))
    assert shown is not None and (shown.rank, shown.cause) == (1, "exit-code")


def test_the_first_ranks_words_on_a_line_of_their_own(tmp_path: Path) -> None:
    manifest = job(tmp_path)
    write_log(manifest, "[rank2]:step\n[rank2]:MemoryError: x\n" + entry(2, 1))
    shown = diagnose(failed(manifest))
    assert shown is not None and (shown.rank, shown.cause) == (2, "oom-host")
