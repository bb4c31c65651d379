"""The Slurm client on a named cluster: every command goes to the transport in play (the
cluster's shell), never to this host, with its timeout, its working directory there, its
standard input and the credentials it needs; the transport here records what it is asked
(the outermost boundary: the shell over SSH), and this host has no Slurm at all."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.launchers.slurm.cluster import client as module
from automodel_launch.launchers.slurm.cluster.client import (
    MAX_OUTPUT,
    SBATCH_OUTPUT,
    Answer,
    Dependency,
    NoSlurm,
    Refused,
    SlurmClient,
    SlurmError,
    Submission,
)
from automodel_launch.launchers.slurm.cluster.transport import current_transport, using
from automodel_launch.launchers.slurm.output import SACCT_FIELDS
from tests.support.fake_slurm import FakeSlurm

THERE = "/lustre/me/jobs"


@dataclass
class Recording:
    """A cluster's shell that records each request and answers what the test says."""

    programs: set[str] = field(default_factory=lambda: set(module.PROGRAMS))
    answers: list[Answer] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)

    def run(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        cwd: str | None,
        limit: int,
        name: str | None,
        stdin: bytes | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> Answer:
        self.calls.append({"command": list(command), "timeout": timeout, "cwd": cwd,
                           "limit": limit, "name": name, "stdin": stdin,
                           "secrets": secrets})  # fmt: skip
        return self.answers.pop(0) if self.answers else Answer(0, "1234\n", "")

    def has(self, program: str) -> bool:
        self.asked.append(program)
        return program in self.programs

    def where(self, local: str) -> str:
        return THERE + "/" + Path(local).name

    def push(self, local: Path) -> str:
        raise AssertionError("the client never copies")


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recording]:
    """The recording shell in play; this host's PATH holds no Slurm command."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-slurm"))
    monkeypatch.delenv(module.TIMEOUT_VARIABLE, raising=False)
    shell = Recording()
    with using(shell):
        yield shell


def call(**given: Any) -> dict[str, Any]:
    return {"cwd": None, "limit": MAX_OUTPUT, "stdin": None, "secrets": None, **given}


def test_a_query_is_asked_there(cluster: Recording) -> None:
    cluster.answers = [Answer(0, '{"jobs": []}', "")]
    assert SlurmClient().squeue().stdout == '{"jobs": []}'
    cluster.answers = [Answer(0, "3|COMPLETED|0:0|||||\n", "")]
    found = SlurmClient().sacct(["3"])
    assert found is not None and found.stdout == "3|COMPLETED|0:0|||||\n"
    SlurmClient().scancel(["3", "4_1"])
    assert cluster.asked == ["squeue", "sacct", "sacct", "scancel"]
    assert cluster.calls == [
        call(command=["squeue", "--json"], timeout=30.0, name="squeue"),
        call(command=["sacct", "-n", "-P", "-X", "--jobs=3", "-o", SACCT_FIELDS],
             timeout=30.0, name="sacct"),
        call(command=["scancel", "--", "3", "4_1"], timeout=30.0, name="scancel"),
    ]  # fmt: skip


def test_a_program_is_looked_for_there(cluster: Recording, tmp_path: Path) -> None:
    cluster.programs = {"squeue"}
    assert SlurmClient().has("squeue") and not SlurmClient().has("sacct")
    with pytest.raises(NoSlurm) as missing:
        SlurmClient().scancel(["3"])
    assert str(missing.value) == "scancel is not on PATH"
    assert SlurmClient().sacct(["3"]) is None  # no accounting there
    with pytest.raises(NoSlurm) as no_sbatch:
        SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert str(no_sbatch.value) == "sbatch is not on PATH: submit from a Slurm login node"
    assert cluster.calls == []


def test_sbatch_runs_in_the_job_directory_there_with_the_credentials(
    cluster: Recording, tmp_path: Path
) -> None:
    job = tmp_path / "look"
    cluster.answers = [Answer(0, "1234;east\n", "")]
    after = Dependency("afterok", ("17",))
    secrets = {"HF_TOKEN": "hf_value"}
    submitted = SlurmClient().submit("job.sbatch", cwd=job, dependency=after, secrets=secrets)
    assert submitted == Submission("1234", "east")
    assert cluster.calls == [
        call(command=["sbatch", "--export=ALL", "--dependency=afterok:17", "--parsable",
                      "job.sbatch"],
             timeout=120.0, cwd=f"{THERE}/look", limit=SBATCH_OUTPUT, name="sbatch",
             secrets=secrets),
    ]  # fmt: skip


def test_a_refusal_there_is_a_refusal(cluster: Recording, tmp_path: Path) -> None:
    cluster.answers = [Answer(1, "", "sbatch: error: invalid partition\n")]
    with pytest.raises(Refused) as refused:
        SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert str(refused.value) == "sbatch refused the job: sbatch: error: invalid partition"


def test_a_test_only_sends_the_script_on_standard_input(cluster: Recording, tmp_path: Path) -> None:
    """No job directory there yet: sbatch reads the script from its standard input."""
    (tmp_path / "job.sbatch").write_text("#!/bin/bash\n#SBATCH --time=1\n")
    script = b"#!/bin/bash\n#SBATCH --time=1\n"
    cluster.answers = [Answer(0, "", "sbatch: Job 9 to start at noon\n")] * 2
    estimate = SlurmClient().sbatch("job.sbatch", cwd=tmp_path, test_only=True)
    assert estimate.stderr == "sbatch: Job 9 to start at noon\n"
    SlurmClient(probe_timeout=2).test_only(
        "job.sbatch", cwd=tmp_path, dependency=Dependency("afterany", ("7",))
    )
    assert cluster.calls == [
        call(command=["sbatch", "--export=ALL", "--test-only"], timeout=120.0, stdin=script,
             limit=SBATCH_OUTPUT, name="sbatch"),
        call(command=["sbatch", "--export=ALL", "--dependency=afterany:7", "--test-only"],
             timeout=4.0, stdin=script,
             name="`sbatch --export=ALL --dependency=afterany:7 --test-only`"),
    ]  # fmt: skip


def test_a_script_that_cannot_be_read_is_not_sent(cluster: Recording, tmp_path: Path) -> None:
    (tmp_path / "job.sbatch").mkdir()
    with pytest.raises(SlurmError) as caught:
        SlurmClient().test_only("job.sbatch", cwd=tmp_path)
    assert str(caught.value).startswith("cannot read the script job.sbatch to send: ")
    with pytest.raises(SlurmError) as missing:
        SlurmClient().sbatch("gone.sbatch", cwd=tmp_path, test_only=True)
    assert str(missing.value).startswith("cannot read the script gone.sbatch to send: ")
    (tmp_path / "big.sbatch").write_bytes(b"#" * (SBATCH_OUTPUT + 1))
    with pytest.raises(SlurmError) as big:
        SlurmClient().test_only("big.sbatch", cwd=tmp_path)
    assert str(big.value) == f"cannot read the script big.sbatch to send: {SBATCH_OUTPUT + 1}"
    assert cluster.calls == []
    (tmp_path / "big.sbatch").write_bytes(b"#" * SBATCH_OUTPUT)
    SlurmClient().test_only("big.sbatch", cwd=tmp_path)
    assert cluster.calls[0]["stdin"] == b"#" * SBATCH_OUTPUT


def test_a_probe_is_named_by_its_command_and_keeps_its_time(cluster: Recording) -> None:
    cluster.answers = [Answer(0, "Pong\n", "")]
    assert SlurmClient(probe_timeout=3).probe("scontrol", "ping").stdout == "Pong\n"
    SlurmClient().run(["sinfo"], "query", cwd="/here/job", seconds=7, limit=10)
    assert cluster.calls == [
        call(command=["scontrol", "ping"], timeout=3, name="`scontrol ping`"),
        call(command=["sinfo"], timeout=7, cwd=f"{THERE}/job", limit=10, name="sinfo"),
    ]


def test_the_clients_own_transport_comes_first(cluster: Recording) -> None:
    mine = Recording(answers=[Answer(0, '{"jobs": [1]}', "")])
    assert SlurmClient(transport=mine).squeue().stdout == '{"jobs": [1]}'
    assert (len(mine.calls), cluster.calls) == (1, [])


def test_without_a_transport_the_command_runs_here(
    cluster: Recording, fake_slurm: FakeSlurm
) -> None:
    """``using(None)`` inside a cluster's: this host again, and back after."""
    fake_slurm.answer("squeue", '{"here": 1}\n')
    fake_slurm.alone()
    cluster.answers = [Answer(0, '{"there": 1}', "")]
    with using(None):
        assert current_transport() is None
        assert SlurmClient().squeue().stdout == '{"here": 1}\n'
        with pytest.raises(ValueError) as refused:
            SlurmClient().run(["squeue"], "query", stdin=b"x")
        assert str(refused.value) == (
            "standard input and credentials are given to a remote command only"
        )
        with pytest.raises(ValueError):
            SlurmClient().run(["squeue"], "query", secrets={"HF_TOKEN": "x"})
    assert current_transport() is cluster
    assert SlurmClient().squeue().stdout == '{"there": 1}'
    assert [c["command"] for c in cluster.calls] == [["squeue", "--json"]]
    assert fake_slurm.argv() == [["squeue", "--json"]]
