"""Hostile scheduler output through the real ``validate --cluster``.

Fake ``scontrol``, ``srun``, ``sacctmgr``, ``enroot`` and ``sbatch``, alone on PATH, print
bytes that are not UTF-8, terminal escapes, credentials, numbers of thousands of digits,
nested host lists; they fail, or hang past the 5-second timeout. Each case: the
documented exit code, the exact lines that say what could not be read, no traceback, no
byte of a credential, no raw escape, no hang.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.hostile.tokens import KINDS, Token, make
from tests.support.fake_slurm import FakeSlurm


@dataclass(frozen=True)
class Says:
    """One answer of a fake command: to the first call whose arguments contain ``when``."""

    when: str
    out: bytes = b""
    err: bytes = b""
    code: int = 0
    hang: bool = False


PARTITION = (
    b"PartitionName=batch State=UP Default=YES MaxTime=02:00:00 DefaultTime=NONE "
    b"MaxNodes=UNLIMITED MinNodes=0 TotalNodes=2 Nodes=n[1-2] MaxCPUsPerNode=UNLIMITED "
    b"MaxMemPerNode=UNLIMITED\n"
)
NODES = (
    b"NodeName=n1 Gres=gpu:8 CPUTot=64 RealMemory=512000 State=IDLE\n"
    b"NodeName=n2 Gres=gpu:8 CPUTot=64 RealMemory=512000 State=IDLE\n"
)
CONFIG = (
    b"ClusterName = c1\nAccountingStorageType = accounting_storage/slurmdbd\n"
    b"AccountingStorageEnforce = associations\n"
)
ESTIMATE = b"sbatch: Job 19 to start at 2026-11-30T16:43:18 using 64 processors on nodes n1\n"


def cluster() -> dict[str, list[Says]]:
    """A cluster that accepts the job: each test changes one answer."""
    return {
        "scontrol": [
            Says("ping", b"Slurmctld(primary) at c1 is UP\n"),
            Says("partition", PARTITION),
            Says("node", NODES),
            Says("config", CONFIG),
        ],
        "srun": [Says("--help", b"      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH\n")],
        "enroot": [Says("version", b"3.4.1\n")],
        "sacctmgr": [Says("assoc", b"research||normal\n")],
        "sbatch": [Says("--test-only", err=ESTIMATE)],
    }


JOB = """\
slurm:
  time: "01:00:00"
  account: research
  gpus_per_node: 8
  ntasks_per_node: 8
  container_image: "nvcr.io#nvidia/nemo:dev"
model:
  name: tiny
recipe: TrainFinetuneRecipeForNextTokenPrediction
"""
ESTIMATE_LINE = (
    "job.yaml:1:1: note[sbatch-estimate] slurm: sbatch --test-only: Job 19 to start at "
    "2026-11-30T16:43:18 using 64 processors on nodes n1"
)


@dataclass
class Run:
    done: subprocess.CompletedProcess[str]
    seconds: float
    tokens: list[Token] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return self.done.stdout.splitlines()


def validate(
    tmp_path: Path, fakes: dict[str, list[Says]], tokens: tuple[Token, ...] | list[Token] = ()
) -> Run:
    slurm = FakeSlurm(tmp_path / "slurm")
    for name, answers in fakes.items():
        for says in answers:
            if says.hang:
                slurm.hang(name, when=f"*{says.when}*", seconds=60)
            else:
                slurm.answer(name, says.out, says.err, says.code, when=f"*{says.when}*")
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    start = time.monotonic()
    done = run_cli(
        "validate", "--cluster", "job.yaml", cwd=tmp_path,
        environ={"PATH": slurm.path, "USER": "alice"},
    )  # fmt: skip
    run = Run(done, time.monotonic() - start, list(tokens))
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "a bug in automodel-launch" not in said, said
    assert "\x1b" not in said and "\x07" not in said, said
    for token in run.tokens:
        assert token.value not in said and token.middle not in said, (token.kind, said)
    return run


def token(i: int) -> Token:
    return make(KINDS[i % len(KINDS)], seed=i)


def answer(fakes: dict[str, list[Says]], command: str, when: str, **changes: object) -> None:
    """Change the answer of ``command`` to the call with ``when`` in its arguments."""
    fakes[command] = [
        replace(s, **changes) if s.when == when else s  # type: ignore[arg-type]
        for s in fakes[command]
    ]


def test_a_cluster_that_accepts_the_job_is_one_estimate(tmp_path: Path) -> None:
    run = validate(tmp_path, cluster())
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines[0] == ESTIMATE_LINE
    assert "scheduler-output" not in run.done.stdout


UNREADABLE_PARTITION = [
    (b"MaxNodes=UNLIMITED", b"MaxNodes=\xff\xfe", "MaxNodes", "('\ufffd\ufffd')"),
    (b"MaxNodes=UNLIMITED", "MaxNodes=²".encode(), "MaxNodes", "('²')"),
    (b"MaxMemPerNode=UNLIMITED", b"MaxMemPerNode=" + b"9" * 5000, "MaxMemPerNode",
     "(5000 characters)"),
    (b"TotalNodes=2", b"TotalNodes=" + b"9" * 5000, "TotalNodes", "(5000 characters)"),
    (b"MaxTime=02:00:00", b"MaxTime=" + b"9" * 5000, "MaxTime", "(5000 characters)"),
    (b"Nodes=n[1-2]", b"Nodes=n[1-2[3]]", "Nodes", "('n[1-2[3]]')"),
    (b"Nodes=n[1-2]", b"Nodes=n[1-999999999999]", "Nodes", "('n[1-999999999999]')"),
    (b"State=UP", b"State=\x1b[2J", "State", "('\\x1b[2J')"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "key", "shown"), UNREADABLE_PARTITION)
def test_a_partition_value_that_cannot_be_read_is_one_note(
    tmp_path: Path, old: bytes, new: bytes, key: str, shown: str
) -> None:
    fakes = cluster()
    answer(fakes, "scontrol", "partition", out=PARTITION.replace(old, new))
    run = validate(tmp_path, fakes)
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines == [
        ESTIMATE_LINE,
        f"job.yaml:1:1: note[scheduler-output] slurm: `scontrol show partition`: cannot read "
        f"{key} of partition 'batch' {shown}; not checked",
        "1 file checked against AutoModel 0.7.0 (installed here): no problems",
    ]
    assert run.done.stderr == ""


def test_node_values_that_cannot_be_read_are_unknown_not_zero(tmp_path: Path) -> None:
    """A node whose GPUs, CPUs and memory are unknown is no "the nodes have 0 GPUs"."""
    secret = make("hugging-face", 1)
    fakes = cluster()
    hostile = b"Gres=gpu:\x1b[2J CPUTot=" + secret.value.encode()
    nodes = NODES.replace(b"Gres=gpu:8 CPUTot=64", hostile, 1)
    nodes = nodes.replace(b"RealMemory=512000", b"RealMemory=\xff", 1)
    answer(fakes, "scontrol", "node", out=nodes)
    run = validate(tmp_path, fakes, [secret])
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines[:2] == [
        ESTIMATE_LINE,
        "job.yaml:1:1: note[scheduler-output] slurm: `scontrol show node`: cannot read Gres of "
        "node 'n1' ('gpu:\\x1b[2J'); cannot read CPUTot of node 'n1' ('***'); cannot read "
        "RealMemory of node 'n1' ('\ufffd'); not checked",
    ]


def test_many_unreadable_values_are_one_bounded_note(tmp_path: Path) -> None:
    fakes = cluster()
    nodes = b"".join(b"NodeName=n%d Gres=gpu:8 CPUTot=x RealMemory=512000\n" % i for i in (1, 2))
    nodes += b"".join(b"NodeName=m%d CPUTot=\xb2\n" % i for i in range(5000))
    answer(fakes, "scontrol", "node", out=nodes)
    run = validate(tmp_path, fakes)
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines[1] == (
        "job.yaml:1:1: note[scheduler-output] slurm: `scontrol show node`: cannot read CPUTot "
        "of node 'n1' ('x'); cannot read CPUTot of node 'n2' ('x'); cannot read CPUTot of node "
        "'m0' ('\ufffd'); and 4999 more; not checked"
    )


@pytest.mark.parametrize("command", ["sacctmgr", "enroot", "srun"])
def test_a_failing_command_says_so_without_its_token(tmp_path: Path, command: str) -> None:
    secret = token(KINDS.index("github-ghp"))
    fakes = cluster()
    fakes[command] = [
        Says("", err=b"error: \x1b]0;" + secret.value.encode() + b"\x07 denied\n", code=1)
    ]
    run = validate(tmp_path, fakes, [secret])
    assert run.done.returncode == 0, run.done.stderr
    name = {"sacctmgr": "sacctmgr show assoc", "enroot": "enroot version", "srun": "srun --help"}
    note = (
        f"job.yaml:1:1: note[scheduler-output] slurm: `{name[command]}`: exit status 1: "
        "error: \\x1b]0;***\\x07 denied; not checked"
    )
    assert note in run.lines
    if command == "sacctmgr":
        assert (
            "job.yaml:3:12: note[associations-not-checked] slurm.account: account 'research' "
            "was not checked: sacctmgr did not list your associations"
        ) in run.lines


def test_tokens_and_escapes_in_sbatch_test_only_are_cleaned(tmp_path: Path) -> None:
    tokens = [token(i) for i in range(len(KINDS))]
    said = b"".join(b"sbatch: error: \x1b[31m" + t.value.encode() + b"\xff\n" for t in tokens)
    fakes = cluster()
    fakes["sbatch"] = [Says("--test-only", err=said, code=1)]
    run = validate(tmp_path, fakes, tokens)
    assert run.done.returncode == 1
    [refused] = [line for line in run.lines if "sbatch-refused" in line]
    assert refused.startswith(
        "job.yaml:1:1: error[sbatch-refused] slurm: sbatch --test-only refused the job: "
        "error: \\x1b[31m"
    )
    assert len(refused) < 800


def test_hostile_enroot_sacctmgr_and_srun_answers(tmp_path: Path) -> None:
    secret = token(KINDS.index("openai"))
    fakes = cluster()
    fakes["enroot"] = [Says("version", b"\x1b[2J" + secret.value.encode() + b" 99999999999.1\n")]
    fakes["sacctmgr"] = [
        Says("assoc", b"research||normal\n" + b"a" * 300 + b"||\n" + secret.value.encode() + b"|\n")
    ]
    fakes["srun"] = [Says("--help", b"\xff" * 1000 + secret.value.encode())]
    run = validate(tmp_path, fakes, [secret])
    assert run.done.returncode == 1
    assert run.lines[:3] == [
        "job.yaml:1:1: note[scheduler-output] slurm: `sacctmgr show assoc`: cannot read an "
        "association (302 characters); not checked",
        "job.yaml:1:1: note[scheduler-output] slurm: `enroot version`: cannot read its version "
        "(69 characters); not checked",
        "job.yaml:6:20: error[no-pyxis] slurm.container_image: container_image is set, but the "
        "cluster has no pyxis (srun --help has no --container-image): srun stops the job with "
        "'unrecognized option'",
    ]


def test_a_command_that_hangs_is_cut_at_its_timeout(tmp_path: Path) -> None:
    fakes = cluster()
    answer(fakes, "srun", "--help", hang=True)
    run = validate(tmp_path, fakes)
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines[:2] == [
        ESTIMATE_LINE,
        "job.yaml:1:1: note[scheduler-output] slurm: `srun --help`: did not answer within 5s; "
        "not checked",
    ]
    assert run.seconds < 20


def test_scontrol_that_hangs_is_one_warning(tmp_path: Path) -> None:
    fakes = cluster()
    answer(fakes, "scontrol", "node", hang=True)
    run = validate(tmp_path, fakes)
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines[0] == (
        "job.yaml:1:1: warning[cluster-unanswered] slurm: the cluster was not checked: "
        "`scontrol --all show node -o` did not answer within 5s"
    )
    assert run.seconds < 20


@pytest.mark.parametrize("when", ["node", "config"])
def test_scontrol_that_fails_is_one_note(tmp_path: Path, when: str) -> None:
    secret = token(KINDS.index("slack"))
    fakes = cluster()
    answer(fakes, "scontrol", when, out=b"", err=secret.value.encode() + b"\xff\n", code=2)
    run = validate(tmp_path, fakes, [secret])
    command = {"node": "scontrol show node", "config": "scontrol show config"}[when]
    assert (
        f"job.yaml:1:1: note[scheduler-output] slurm: `{command}`: exit status 2: "
        "***\ufffd; not checked"
    ) in run.lines


def test_no_usable_slurm_is_one_error_line(tmp_path: Path) -> None:
    secret = token(KINDS.index("aws-akia"))
    fakes = cluster()
    answer(fakes, "scontrol", "ping", out=b"", err=b"\x1b[2J" + secret.value.encode(), code=1)
    run = validate(tmp_path, fakes, [secret])
    assert run.done.returncode == 1
    assert run.done.stdout == ""
    assert run.done.stderr == (
        "error: --cluster: Slurm is not usable on this host (scontrol ping: \\x1b[2J***)\n"
    )


def test_sbatch_that_hangs_is_one_warning(tmp_path: Path) -> None:
    fakes = cluster()
    answer(fakes, "sbatch", "--test-only", hang=True)
    run = validate(tmp_path, fakes)
    assert run.done.returncode == 0, run.done.stderr
    assert run.lines == [
        "job.yaml:1:1: warning[cluster-unanswered] slurm: the cluster was not checked: "
        "`sbatch --export=ALL --test-only job.sbatch` did not answer within 10s",
        "    hint: check `scontrol ping` and try again; `submit --no-preflight` skips the check",
        "1 file checked against AutoModel 0.7.0 (installed here): 0 errors, 1 warning; 0 failed",
    ]
    assert run.seconds < 25
