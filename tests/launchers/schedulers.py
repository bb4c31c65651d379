"""What runs the jobs of the contract suite, one class a launcher, each with the same few
answers: the recipe's launcher section, "the scheduler has started these jobs", "these
jobs end with this exit status", and (where the scheduler does it) "it ran this job
again".

This node's runs and the toy scheduler run every job for real: :mod:`.work` waits in the
job for a ``release`` file. Slurm and SkyPilot have no cluster or cloud here: the fake
Slurm commands (:class:`tests.support.fake_slurm.FakeSlurm`) and the SDK replaced at its
calls (:class:`tests.skypilot_sdk.FakeSdk`) answer as the scheduler would, and the job's
output is what :mod:`.work` prints when this module runs it as the job would have run.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.layout import JOB_CONFIG, slurm_log
from tests.launchers.toy import scheduler as toy_scheduler
from tests.support.fake_slurm import FakeSlurm

WORK = Path(__file__).parent / "work.py"
ENTRY = f"{WORK} {{config}}"
RECIPE = """\
recipe: TrainFinetuneRecipeForNextTokenPrediction
step_scheduler:
  global_batch_size: 8
  local_batch_size: 1
  max_steps: 2
  ckpt_every_steps: 1
model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
  pretrained_model_name_or_path: gpt2
optimizer:
  _target_: torch.optim.Adam
  lr: 1.0e-5
checkpoint:
  checkpoint_dir: /checkpoints
  restore_from: null
"""


def release(manifest: Manifest, code: int) -> None:
    """Let the job's :mod:`.work` end with ``code`` (written whole: renamed into place)."""
    job_dir = Path(manifest.job_dir)
    (job_dir / "release.new").write_text(f"{code}\n")
    (job_dir / "release.new").rename(job_dir / "release")


def output(manifest: Manifest) -> str:
    """What :mod:`.work` prints in ``manifest``'s job (its release written first)."""
    config = Path(manifest.job_dir) / JOB_CONFIG
    done = subprocess.run(
        [sys.executable, str(WORK), str(config)], capture_output=True, text=True, timeout=60
    )
    return done.stdout


class Scheduler:
    """The answers every launcher's stand-in gives; this node's runs by default."""

    name = "interactive"
    real = True
    """The jobs are processes here (the suite can see them end)."""
    requeue: str | None = None
    """Section lines that make the scheduler run a preempted job again; None: it cannot."""

    def section(self) -> str:
        return ""

    def status_code(self, code: int) -> int | None:
        """The exit status ``status`` shows of a job that exited with ``code``."""
        return code

    def logs_code(self, code: int, *, follow: bool) -> int:
        """What ``logs`` (``--follow``: the job's own) ends with for a job that exited with
        ``code``."""
        return code if follow else 0

    def runs(self, manifests: list[Manifest]) -> None:
        """The scheduler has started these jobs (a real one has, on submit)."""

    def end(self, manifests: list[Manifest], code: int) -> None:
        for manifest in manifests:
            release(manifest, code)

    def preempt(self, manifest: Manifest) -> None:
        raise AssertionError(f"{self.name} runs no job again")


class Toy(Scheduler):
    """The toy scheduler's commands on PATH, its launcher plugged in: the one row."""

    name = "toy"

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        toy_scheduler.install(tmp / "toy-bin", tmp / "toy-home")
        monkeypatch.setenv("PATH", f"{tmp / 'toy-bin'}:{os.environ['PATH']}")

    def section(self) -> str:
        return "toy:\n  queue: gpu\n  priority: 7\n"


class Slurm(Scheduler):
    """The fake Slurm commands, first and alone on PATH: ``sbatch`` gives the next id,
    ``squeue`` lists the jobs as this class last set them, ``scancel`` cancels those
    still running."""

    name = "slurm"
    real = False
    requeue = '  signal: "SIGUSR1@300"\n  requeue: true\n'

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.fake = FakeSlurm(tmp / "slurm")
        monkeypatch.setenv("PATH", self.fake.path)
        root = self.fake.root
        (root / "next").write_text("100\n")
        self.fake.tool(
            "sbatch", f'n=$(/bin/cat "{root}/next")\necho $((n + 1)) > "{root}/next"\necho "$n"'
        )
        self.fake.tool("scancel", f'/bin/cp "{root}/squeue.cancelled" "{root}/squeue.out"')
        self.jobs: dict[str, dict[str, Any]] = {}
        self._write()

    def section(self) -> str:
        return 'slurm:\n  partition: batch\n  time: "01:00:00"\n  nodes: 1\n  ntasks_per_node: 1\n'

    def _record(self, manifest: Manifest, state: str, code: int = 0) -> None:
        job_id = str(manifest.scheduler_id)
        array, _, task = job_id.partition("_")
        self.jobs[job_id] = {
            "job_id": int(array) * 1000 + int(task or 0) if task else int(array),
            "array_job_id": int(array) if task else 0,
            "array_task_id": int(task) if task else None,
            "array_task_string": "",
            "name": manifest.name, "job_state": state, "exit_code": code << 8,
            "state_reason": "None",
        }  # fmt: skip

    def _write(self) -> None:
        cancelled = {
            word for call in self.fake.called("scancel") for word in call.split()[2:]
        }  # "scancel -- ID ID": those running are cancelled
        for job_id in cancelled & set(self.jobs):
            if self.jobs[job_id]["job_state"] == "RUNNING":
                self.jobs[job_id]["job_state"] = "CANCELLED"
        self.fake.squeue(*self.jobs.values())
        (self.fake.root / "squeue.out").rename(self.fake.root / "squeue.now")
        after = [
            {**job, "job_state": "CANCELLED"} if job["job_state"] == "RUNNING" else job
            for job in self.jobs.values()
        ]
        self.fake.squeue(*after)
        (self.fake.root / "squeue.out").rename(self.fake.root / "squeue.cancelled")
        (self.fake.root / "squeue.now").rename(self.fake.root / "squeue.out")

    def runs(self, manifests: list[Manifest]) -> None:
        self._write()  # a cancel since is kept
        for manifest in manifests:
            self._record(manifest, "RUNNING")
        self._write()

    def end(self, manifests: list[Manifest], code: int) -> None:
        self._write()
        for manifest in manifests:
            release(manifest, code)
            log = Path(manifest.job_dir) / slurm_log(manifest.name, str(manifest.scheduler_id))
            with log.open("a") as appended:  # --open-mode=append: a requeued run's too
                appended.write(output(manifest))
            self._record(manifest, "COMPLETED" if code == 0 else "FAILED", code)
        self._write()

    def preempt(self, manifest: Manifest) -> None:
        """Preempted at the signal, the script requeued it: its first run's output stays."""
        log = Path(manifest.job_dir) / slurm_log(manifest.name, str(manifest.scheduler_id))
        log.write_text("started with lr 1.0e-5\n")
        self._record(manifest, "REQUEUED")
        self._write()


class SkyPilot(Scheduler):
    """SkyPilot's SDK with its calls answered from the jobs launched here: a cluster job,
    or a managed job (spot, and each point of a sweep)."""

    name = "skypilot"
    real = False
    requeue = "  use_spot: true\n"
    FAILED = 100
    """``tail_logs`` of a failed job (SkyPilot's ``JobExitCode.FAILED``)."""

    def status_code(self, code: int) -> int | None:
        """SkyPilot's queue says a job succeeded or failed, not its exit status."""
        return 0 if code == 0 else None

    def logs_code(self, code: int, *, follow: bool) -> int:
        """The SDK's ``tail_logs`` answers, followed or not: 0, or failed."""
        return 0 if code == 0 else self.FAILED

    def __init__(self, sdk: Any) -> None:
        self.sdk = sdk
        self.ids = itertools.count(1)
        self.requests = itertools.count(1)
        self.jobs: dict[int, dict[str, Any]] = {}
        """SkyPilot job id -> its state, output and whether it is a managed job."""
        answers = {
            "launch": lambda **a: (self._launch(managed=False), None),
            "jobs.launch": lambda **a: ([self._launch(managed=True)], None),
            "queue": lambda **a: self._records(managed=False),
            "jobs.queue": lambda **a: self._records(managed=True, ids=a.get("job_ids")),
            "cancel": lambda **a: self._cancel(a["job_ids"]),
            "jobs.cancel": lambda **a: self._cancel(a["job_ids"]),
        }
        for call, answer in answers.items():
            sdk.answers[f"{call}()"] = self._request(answer)
        sdk.answers["tail_logs()"] = lambda **a: self._tail(a["job_id"], a.get("output_stream"))
        sdk.answers["jobs.tail_logs()"] = sdk.answers["tail_logs()"]

    def _request(self, answer: Any) -> Any:
        """A call returns a request id; ``stream_and_get`` of it gives the answer."""

        def call(**arguments: Any) -> str:
            request = f"request-{next(self.requests)}"
            self.sdk.answers[request] = answer(**arguments)
            return request

        return call

    def section(self) -> str:
        return 'skypilot:\n  cloud: gcp\n  accelerators: "A100:1"\n'

    def _launch(self, *, managed: bool) -> int:
        job_id = next(self.ids)
        self.jobs[job_id] = {"state": "RUNNING", "output": "", "managed": managed}
        return job_id

    def _records(self, *, managed: bool, ids: list[int] | None = None) -> list[Any]:
        from sky.jobs.state import ManagedJobStatus
        from sky.schemas.api.responses import ClusterJobRecord, ManagedJobRecord
        from sky.skylet.job_lib import JobStatus

        found = []
        for job_id, job in self.jobs.items():
            if job["managed"] != managed or (ids is not None and job_id not in ids):
                continue
            if managed:
                found.append(ManagedJobRecord(job_id=job_id, status=ManagedJobStatus(job["state"])))
            else:
                found.append(ClusterJobRecord(
                    job_id=job_id, job_name="x", username="u", user_hash="h", submitted_at=1.0,
                    resources="1x", status=JobStatus(job["state"]), log_path=f"~/sky_logs/{job_id}",
                ))  # fmt: skip
        return found

    def _cancel(self, ids: list[int]) -> None:
        for job_id in ids:
            if self.jobs[job_id]["state"] in ("RUNNING", "RECOVERING"):
                self.jobs[job_id]["state"] = "CANCELLED"

    def _tail(self, job_id: int, stream: Any) -> int:
        job = self.jobs[job_id]
        if stream is None:
            sys.stdout.write(job["output"])
        else:
            stream.write(job["output"])
        return self.FAILED if job["state"] == "FAILED" else 0

    def end(self, manifests: list[Manifest], code: int) -> None:
        for manifest in manifests:
            release(manifest, code)
            job = self.jobs[int(str(manifest.scheduler_id))]
            job["output"] += output(manifest)
            job["state"] = "SUCCEEDED" if code == 0 else "FAILED"

    def preempt(self, manifest: Manifest) -> None:
        """The spot VM was taken: the managed job recovers on another."""
        job = self.jobs[int(str(manifest.scheduler_id))]
        job["output"] = "started with lr 1.0e-5\n"
        job["state"] = "RECOVERING"


SCHEDULERS = ("slurm", "skypilot", "interactive", "toy")


@pytest.fixture(params=SCHEDULERS)
def scheduler(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Scheduler]:
    """Each launcher in turn, with what runs its jobs."""
    name = request.param
    if name == "slurm":
        yield Slurm(tmp_path, monkeypatch)
    elif name == "skypilot":
        yield SkyPilot(request.getfixturevalue("sdk"))
    elif name == "toy":
        from automodel_launch.launchers import plug, unplug
        from tests.launchers.toy import Toy as ToyLauncher

        made = Toy(tmp_path, monkeypatch)
        plug(ToyLauncher())  # the toy launcher's row in the table
        try:
            yield made
        finally:
            unplug("toy")
    else:
        yield Scheduler()


def describe(found: Any) -> str:
    return json.dumps(found, indent=1, default=str)
