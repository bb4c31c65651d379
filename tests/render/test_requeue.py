"""render/requeue.py: the ``--signal``/``--requeue`` lines and the trap, rendered for every
combination (shellcheck-clean), and run under bash against stand-ins for the Slurm
commands it calls (the real cluster run is tests/integration/test_slurm_requeue.py).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automodel_launch.config.document import LaunchDocument
from automodel_launch.launchers.slurm.render import render_sbatch
from automodel_launch.render.entry import Entry, JobSpec
from tests.render.test_injection import _shellcheck
from tests.support.fake_slurm import FakeSlurm

# srun stand-in: one task that stops on SIGTERM (as AutoModel's ranks do) or exits 3
# after FAKE_SRUN_SECONDS; it records what happens to it. Its job step (squeue -s) is
# there FAKE_STEP_DELAY seconds after it starts.
FAKE_SRUN = """#!/bin/bash
trap 'echo "srun got TERM" >> "$RECORD/events"; exit 0' TERM
echo $$ > "$RECORD/srun.pid"
end=$((SECONDS + FAKE_SRUN_SECONDS))
sleep "${FAKE_STEP_DELAY:-0}"
touch "$RECORD/step"
while (( SECONDS < end )); do sleep 0.1; done
echo "srun ended" >> "$RECORD/events"
exit 3
"""
# squeue stand-in: the time the job has used (FAKE_USED, -o %M), or the steps (-s) of
# the job it is asked about (-j)
FAKE_SQUEUE = """#!/bin/bash
if [[ " $* " == *" %M "* ]]; then echo "$FAKE_USED"; exit; fi
while [ $# -gt 0 ]; do if [ "$1" = -j ]; then job=$2; fi; shift; done
echo "$job.batch"
if [ -e "$RECORD/step" ]; then echo "$job.0"; fi
"""
FAKE_SCANCEL = """#!/bin/bash
echo "scancel $*" >> "$RECORD/events"
kill -TERM "$(cat "$RECORD/srun.pid")"
"""
FAKE_SCONTROL = """#!/bin/bash
if [ "$1" = requeue ]; then echo "scontrol $*" >> "$RECORD/events"; exit 0; fi
echo node1
"""


def document(**slurm: Any) -> LaunchDocument:
    fields = {"nodes": 1, "ntasks_per_node": 1, "time": "10", "container_image": None}
    return LaunchDocument.model_validate({"slurm": fields | slurm})


def script(doc: LaunchDocument, job_dir: str = "/jobs/x") -> str:
    spec = JobSpec(entry=Entry(("train.py",), ()), job_dir=job_dir, source="c.yaml")
    return render_sbatch(doc, spec)


def directives(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#SBATCH")]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sig=st.sampled_from(["USR1", "USR2", "R:USR1", "12"]),
    seconds=st.integers(0, 599),
    requeue=st.booleans(),
    max_requeues=st.integers(0, 20),
    time_text=st.sampled_from(["10", "04:00:00", "UNLIMITED", "2-00:00:00"]),
    fault_tolerance=st.sampled_from([None, {}, {"requeue": False}, {"enabled": False}]),
)
def test_every_combination_renders_once_and_passes_shellcheck(
    tmp_path_factory: Any,
    sig: str,
    seconds: int,
    requeue: bool,
    max_requeues: int,
    time_text: str,
    fault_tolerance: dict[str, Any] | None,
) -> None:
    data: dict[str, Any] = {
        "slurm": {"time": time_text, "signal": f"{sig}@{seconds}", "requeue": requeue,
                  "max_requeues": max_requeues, "container_image": None},
    }  # fmt: skip
    if fault_tolerance is not None:
        data["fault_tolerance"] = fault_tolerance
    doc = LaunchDocument.model_validate(data)
    text = script(doc)
    path = tmp_path_factory.mktemp("job") / "job.sbatch"
    path.write_text(text)
    subprocess.run(["bash", "-n", str(path)], check=True)
    _shellcheck(path)

    lines = directives(text)
    name = "USR2" if sig == "12" else sig.removeprefix("R:")
    flags = "RB" if sig.startswith("R:") else "B"
    assert lines.count(f"#SBATCH --signal={flags}:{name}@{seconds}") == 1
    ft_requeue = (
        fault_tolerance is not None
        and fault_tolerance.get("enabled", True)
        and (fault_tolerance.get("requeue", True))
    )
    wanted = 1 if requeue or ft_requeue else 0
    assert lines.count("#SBATCH --requeue") == lines.count("#SBATCH --open-mode=append") == wanted
    assert f"REQUEUE_MAX={max_requeues if requeue else 0}\n" in text
    assert f"trap requeue_on_signal {name}\n" in text
    # the trap is set before the first command that could take time
    assert text.index("trap requeue_on_signal") < text.index("MASTER_ADDR=$(")
    assert re.search(r"\n  -m .*|train\.py &\nSRUN_PID=\$!\n", text)


def test_without_a_signal_nothing_changes() -> None:
    text = script(document())
    assert "requeue" not in text.lower() and "--signal" not in text
    assert text.rstrip().endswith("train.py")


def test_the_early_signal_threshold_follows_the_time_limit() -> None:
    assert "REQUEUE_ACT_AFTER=450\n" in script(document(signal="USR1@120", requeue=True))
    assert "REQUEUE_ACT_AFTER=0\n" in script(document(time="2", signal="USR1@90", requeue=True))
    unlimited = script(document(time="UNLIMITED", signal="USR1@90", requeue=True))
    assert "REQUEUE_ACT_AFTER=0\n" in unlimited


# ------------------------------------------------------------------ the script at work
# how long srun runs in a test that signals the batch script 1 s after srun started and
# lets it run on: a slow start on a loaded machine must not end srun before the signal
SIGNALLED = 6


def run_job(
    tmp: Path,
    doc: LaunchDocument,
    *,
    srun_seconds: float,
    restarts: str | None = None,
    signal_after: float | None = 1.0,
    signum: int = signal.SIGUSR1,
    used: str = "0:00",
    step_delay: float = 0,
    array_task: str | None = None,
) -> tuple[int, list[str], str]:
    """Run the script; send it the signal ``signal_after`` s after srun started (time for
    the batch shell to reach its ``wait``). (exit code, events, output)

    ``used`` is what squeue says the job has used when the script starts (-o %M)."""
    slurm = FakeSlurm(tmp / "slurm")
    slurm.tool("srun", FAKE_SRUN)
    slurm.tool("squeue", FAKE_SQUEUE)
    slurm.tool("scancel", FAKE_SCANCEL)
    slurm.tool("scontrol", FAKE_SCONTROL)
    (tmp / "job.sbatch").write_text(script(doc, str(tmp)))
    environ = {
        "PATH": f"{slurm.path}:{os.environ['PATH']}",
        "HOME": str(tmp),
        "RECORD": str(tmp),
        "SLURM_JOB_ID": "4242",
        "SLURM_JOB_NODELIST": "node1",
        "FAKE_SRUN_SECONDS": str(srun_seconds),
        "FAKE_STEP_DELAY": str(step_delay),
        "FAKE_USED": used,
    }
    if restarts is not None:
        environ["SLURM_RESTART_COUNT"] = restarts
    if array_task is not None:  # a task of array 4240 (its own job id is 4242)
        environ |= {"SLURM_ARRAY_JOB_ID": "4240", "SLURM_ARRAY_TASK_ID": array_task}
    job = subprocess.Popen(
        ["bash", str(tmp / "job.sbatch")], env=environ, cwd=tmp,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    if signal_after is not None:
        deadline = time.monotonic() + 60
        while not (tmp / "srun.pid").exists():
            assert job.poll() is None and time.monotonic() < deadline, "srun did not start"
            time.sleep(0.05)
        time.sleep(signal_after)
        job.send_signal(signum)
    output, _ = job.communicate(timeout=120)
    events = (tmp / "events").read_text().splitlines() if (tmp / "events").exists() else []
    return job.returncode, events, output


def test_a_signal_stops_the_ranks_with_sigterm_and_requeues(tmp_path: Path) -> None:
    doc = document(time="2", signal="USR1@90", requeue=True, max_requeues=2)
    code, events, output = run_job(tmp_path, doc, srun_seconds=20)
    assert events == ["scancel --signal=TERM 4242.0", "srun got TERM", "scontrol requeue 4242"]
    assert code == 0, output  # srun's own status: the ranks stopped cleanly
    assert re.search(
        r"automodel-launch: USR1 at \d+s: SIGTERM to the ranks \(checkpoint and stop\), "
        r"then requeue 1 of 2\n", output
    )  # fmt: skip
    assert "requeued job 4242; Slurm holds it about two minutes (BeginTime)" in output


@pytest.mark.parametrize("task", ["0", "3"])
def test_a_task_of_an_array_stops_and_requeues_itself_alone(tmp_path: Path, task: str) -> None:
    """The first task's own job id is the array's (it names every task): the trap asks
    for ARRAYID_INDEX, whichever task it is."""
    doc = document(time="2", signal="USR1@90", requeue=True, max_requeues=2)
    code, events, output = run_job(tmp_path, doc, srun_seconds=20, array_task=task)
    assert events == [
        f"scancel --signal=TERM 4240_{task}.0", "srun got TERM", f"scontrol requeue 4240_{task}",
    ]  # fmt: skip
    assert code == 0, output
    assert f"requeued job 4240_{task}; Slurm holds it about two minutes (BeginTime)" in output


def test_a_command_is_stopped_and_requeued_as_torchrun_is(tmp_path: Path) -> None:
    # bash runs a trap only between commands: a foreground srun would defer it to the end
    doc = document(time="2", signal="USR1@90", requeue=True, command="python x.py")
    path = tmp_path / "job.sbatch"
    path.write_text(script(doc))
    _shellcheck(path)
    run = tmp_path / "run"
    run.mkdir()
    code, events, output = run_job(run, doc, srun_seconds=20)
    assert events == ["scancel --signal=TERM 4242.0", "srun got TERM", "scontrol requeue 4242"]
    assert code == 0, output


def test_the_last_allowed_run_trains_on_and_keeps_srun_status(tmp_path: Path) -> None:
    doc = document(time="2", signal="USR1@90", requeue=True, max_requeues=2)
    code, events, output = run_job(tmp_path, doc, srun_seconds=SIGNALLED, restarts="2")
    assert events == ["srun ended"]
    assert code == 3, output
    assert re.search(
        r"USR1 at \d+s: no requeue left \(SLURM_RESTART_COUNT=2, max_requeues 2\): "
        r"training goes on to the time limit\n", output
    )  # fmt: skip


def test_without_requeue_the_signal_is_only_logged(tmp_path: Path) -> None:
    doc = document(time="2", signal="USR2@90")
    code, events, output = run_job(tmp_path, doc, srun_seconds=SIGNALLED, signum=signal.SIGUSR2)
    assert events == ["srun ended"] and code == 3, output
    assert "no requeue left (SLURM_RESTART_COUNT=0, max_requeues 0)" in output


def test_an_early_signal_waits_for_its_time(tmp_path: Path) -> None:
    # a 10-minute limit signalled 60 s before: a signal in the first 510 s is early
    doc = document(signal="USR1@60", requeue=True)
    started = time.monotonic()
    code, events, output = run_job(tmp_path, doc, srun_seconds=SIGNALLED, restarts="1")
    assert events == ["srun ended"] and code == 3, output
    assert re.search(r"USR1 at \d+s is early for this run: acting at 510s\n", output)
    assert time.monotonic() - started < 120  # the timer (510 s) does not hold the script


def test_a_run_without_a_signal_exits_with_srun_status(tmp_path: Path) -> None:
    doc = document(signal="USR1@60", requeue=True)
    code, events, output = run_job(tmp_path, doc, srun_seconds=0.5, signal_after=None)
    assert (code, events) == (3, ["srun ended"]), output
    assert "automodel-launch" not in output


def test_an_early_signal_is_acted_on_at_its_time(tmp_path: Path) -> None:
    # a 2-minute limit signalled 80 s before: acted on from second 10 of the run (a
    # script slow to start on a busy machine still gets the signal early)
    doc = document(time="2", signal="USR1@80", requeue=True)
    code, events, output = run_job(tmp_path, doc, srun_seconds=40, signal_after=0)
    assert events == ["scancel --signal=TERM 4242.0", "srun got TERM", "scontrol requeue 4242"]
    assert code == 0, output
    early, acted = output.splitlines()[:2]
    found = re.fullmatch(
        r"automodel-launch: USR1 at (\d+)s is early for this run: acting at 10s", early
    )
    assert found and int(found[1]) < 10, output
    found = re.fullmatch(r"automodel-launch: USR1 at (\d+)s: SIGTERM to the ranks .*", acted)
    assert found and int(found[1]) >= 10, output


def test_the_clock_is_the_allocation_s_when_the_batch_step_starts_late(tmp_path: Path) -> None:
    # a 2-minute limit signalled 60 s before: early before second 30 of the allocation.
    # The batch step started 40 s into it (a busy node): the signal is on time, and
    # acted on at once, not 30 s later by the script's own clock (too late to requeue)
    doc = document(time="2", signal="USR1@60", requeue=True)
    code, events, output = run_job(tmp_path, doc, srun_seconds=30, used="0:40")
    assert events == ["scancel --signal=TERM 4242.0", "srun got TERM", "scontrol requeue 4242"]
    assert code == 0, output
    assert "early" not in output
    found = re.match(r"automodel-launch: USR1 at (\d+)s: SIGTERM to the ranks ", output)
    assert found and int(found[1]) >= 40, output


@pytest.mark.parametrize(
    ("used", "seconds"),
    [("0:07", 7), ("12:05", 725), ("1:02:03", 3723), ("08:09:10", 29350),
     ("2-03:04:05", 183845), ("INVALID", None), ("", None), ("1:2:3:4", None),
     ("fail", None), ("no job", None)],
)  # fmt: skip
def test_the_clock_reads_what_squeue_says_the_job_used(
    tmp_path: Path, used: str, seconds: int | None
) -> None:
    """The script's clock function alone, against squeue answers of every shape; without
    an answer (or outside a job) the script keeps its own clock."""
    text = script(document(signal="USR1@60", requeue=True))
    function = re.search(r"^requeue_job_clock\(\) \{\n.*?^\}\n", text, re.M | re.S)
    job = re.findall(r"^REQUEUE_JOB=.*\n", text, re.M)
    assert function and len(job) == 2
    slurm = FakeSlurm(tmp_path / "slurm")
    slurm.tool("squeue", '#!/bin/bash\n[ "$FAKE_USED" != fail ] || exit 1\necho "$FAKE_USED"\n')
    environ = {"PATH": f"{slurm.path}:{os.environ['PATH']}", "FAKE_USED": used}
    if used != "no job":
        environ["SLURM_JOB_ID"] = "4242"
    shell = f"set -euo pipefail\n{''.join(job)}{function[0]}requeue_job_clock\necho $SECONDS\n"
    done = subprocess.run(
        ["bash", "-c", shell], env=environ, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert slurm.argv() == (
        [] if used == "no job" else [["squeue", "-h", "-j", "4242", "-o", "%M"]]
    )
    clock = int(done.stdout)
    if seconds is None:  # the script's own clock: the seconds since bash started
        assert clock < 60
    else:
        assert seconds <= clock < seconds + 60


def test_ranks_whose_step_is_not_there_yet_get_sigterm_when_it_is(tmp_path: Path) -> None:
    # the signal comes while srun is still creating the step: no step to signal yet
    doc = document(time="2", signal="USR1@90", requeue=True)
    code, events, output = run_job(tmp_path, doc, srun_seconds=60, signal_after=0, step_delay=3)
    assert events == ["scancel --signal=TERM 4242.0", "srun got TERM", "scontrol requeue 4242"]
    assert code == 0, output
