"""The one Slurm client, with stand-ins for Slurm's commands alone on PATH: what each
command is given (and never given), its timeout, and what the user reads when it fails."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from automodel_launch.errors import LaunchError
from automodel_launch.launchers.slurm.cluster import client as module
from automodel_launch.launchers.slurm.cluster.client import (
    Dependency,
    NoSlurm,
    Refused,
    SlurmClient,
    SlurmError,
    Submission,
    Unanswered,
    Unparsed,
)
from automodel_launch.launchers.slurm.cluster.commands import Answer
from tests.support.fake_slurm import FakeSlurm

SACCT = "-o JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason"


def test_the_errors_are_one_family_of_launch_errors() -> None:
    for kind in (NoSlurm, Unanswered, Refused, Unparsed):
        assert issubclass(kind, SlurmError)
    assert issubclass(SlurmError, LaunchError)
    from automodel_launch.launchers.slurm import jobs as slurm
    from automodel_launch.launchers.slurm.cluster import commands

    assert (commands.NoSlurm, commands.Unanswered, slurm.SlurmUnavailable) == (
        NoSlurm, Unanswered, SlurmError
    )  # fmt: skip


@pytest.mark.parametrize(
    ("value", "query", "submit"),
    [(None, 30.0, 120.0), ("0.5", 0.5, 0.5), ("3600", 3600.0, 3600.0), ("3601", 30.0, 120.0),
     ("0", 30.0, 120.0), ("-1", 30.0, 120.0), ("nan", 30.0, 120.0), ("x", 30.0, 120.0)],
)  # fmt: skip
def test_one_timeout_policy(
    monkeypatch: pytest.MonkeyPatch, value: str | None, query: float, submit: float
) -> None:
    if value is None:
        monkeypatch.delenv(module.TIMEOUT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(module.TIMEOUT_VARIABLE, value)
    client = SlurmClient()
    assert (client.timeout("query"), client.timeout("submit")) == (query, submit)
    assert client.timeout("probe") == 5.0  # preflight's probes keep theirs
    assert SlurmClient(probe_timeout=2).timeout("probe") == 2


def test_only_slurms_commands_are_run(fake_slurm: FakeSlurm) -> None:
    with pytest.raises(ValueError, match="rm is not one of Slurm's commands"):
        SlurmClient().run(["rm", "-rf", "/"], "query")


def test_sbatch_is_given_the_script_after_its_options(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("sbatch", "1234\n")
    submitted = SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert submitted == Submission("1234", None)
    fake_slurm.answer("sbatch", "1234;gpu-east\n")
    after = Dependency("afterok", ("17", "18_3"))
    assert SlurmClient().submit("job.sbatch", cwd=tmp_path, dependency=after) == Submission(
        "1234", "gpu-east"
    )
    fake_slurm.answer("sbatch", stderr="sbatch: Job 9 to start at 2026-12-01T10:00:00\n")
    any_end = Dependency("afterany", ("17",))
    estimate = SlurmClient().sbatch("job.sbatch", cwd=tmp_path, test_only=True, dependency=any_end)
    assert estimate.stderr == "sbatch: Job 9 to start at 2026-12-01T10:00:00\n"
    assert fake_slurm.calls == [
        "sbatch --export=ALL --parsable job.sbatch",
        "sbatch --export=ALL --dependency=afterok:17:18_3 --parsable job.sbatch",
        "sbatch --export=ALL --dependency=afterany:17 --test-only job.sbatch",
    ]


@pytest.mark.parametrize(
    "ids",
    [(), ("--me",), ("17", "-u"), ("17,18",), ("17:18",), ("0",), ("17 18",), ("afterok",),
     ("",), ("17?",), ("x" * 5000,)],
)  # fmt: skip
def test_a_dependency_on_what_is_no_job_id_is_refused(
    fake_slurm: FakeSlurm, tmp_path: Path, ids: tuple[str, ...]
) -> None:
    fake_slurm.answer("sbatch", "1234\n")
    with pytest.raises(SlurmError) as refused:
        SlurmClient().submit("job.sbatch", cwd=tmp_path, dependency=Dependency("afterok", ids))
    assert str(refused.value).startswith("dependency: ")
    assert fake_slurm.calls == []


def test_a_dependency_is_afterok_or_afterany() -> None:
    with pytest.raises(SlurmError) as refused:
        Dependency("singleton", ("17",))  # type: ignore[arg-type]
    assert str(refused.value) == "dependency: 'singleton' is not afterok or afterany"
    assert Dependency("afterany", ("17", "18_2")).option == "--dependency=afterany:17:18_2"


def test_a_script_that_reads_as_an_option_is_refused(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("sbatch", "1234\n")
    with pytest.raises(SlurmError, match="reads as an option"):
        SlurmClient().submit("--wrap=id", cwd=tmp_path)
    assert fake_slurm.calls == []


@pytest.mark.parametrize(
    "stdout", ["", "--me\n", "3;--me\n", "3\n4\n", "3_1\n3\n", "abc\n", "0\n", "3 4\n"]
)
def test_an_answer_that_is_no_job_id_is_unparsed(stdout: str) -> None:
    with pytest.raises(Unparsed) as caught:
        Submission.read(Answer(0, stdout, ""))
    assert str(caught.value).startswith("sbatch answered with no job id this tool can read: ")
    with pytest.raises(Unparsed):
        Submission.read(Answer(0, "3\n", "", truncated=True))


def test_sbatch_refusing_missing_or_hanging(
    fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(NoSlurm) as missing:
        SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert str(missing.value) == "sbatch is not on PATH: submit from a Slurm login node"
    fake_slurm.answer(
        "sbatch", stderr="sbatch: error: Batch job submission failed:\n Invalid\n", code=1
    )
    with pytest.raises(Refused) as refused:
        SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert str(refused.value) == (
        "sbatch refused the job: sbatch: error: Batch job submission failed:; Invalid"
    )
    assert refused.value.answer.returncode == 1
    monkeypatch.setenv(module.TIMEOUT_VARIABLE, "0.5")
    fake_slurm.hang("sbatch")
    start = time.monotonic()
    with pytest.raises(Unanswered) as hung:
        SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert str(hung.value) == "sbatch did not answer within 0.5s"
    assert time.monotonic() - start < 5


def test_preflights_test_only_names_the_whole_command_and_reads_a_refusal(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("sbatch", stderr="sbatch: error: invalid partition\n", code=1)
    answer = SlurmClient(probe_timeout=0.25).test_only("job.sbatch", cwd=tmp_path)
    assert (answer.returncode, answer.stderr) == (1, "sbatch: error: invalid partition\n")
    fake_slurm.hang("sbatch")
    with pytest.raises(Unanswered) as hung:
        SlurmClient(probe_timeout=0.25).test_only("job.sbatch", cwd=tmp_path)
    assert str(hung.value) == (
        "`sbatch --export=ALL --test-only job.sbatch` did not answer within 0.5s"
    )


def test_scancel_cancels_many_ids_in_one_call(fake_slurm: FakeSlurm) -> None:
    fake_slurm.answer("scancel")
    tasks = [f"1234_{i}" for i in range(1000)]
    SlurmClient().scancel(tasks)
    SlurmClient().scancel(["1234"])
    assert fake_slurm.calls == ["scancel -- " + " ".join(tasks), "scancel -- 1234"]


@pytest.mark.parametrize(
    ("ids", "said"),
    [(["1234_0", "--me"], "scancel: '--me' is not a Slurm job id: Slurm was not asked"),
     (["-u"], "scancel: '-u' is not a Slurm job id: Slurm was not asked"),
     (["1234_[0-3]"], "scancel: '1234_[0-3]' is not a Slurm job id: Slurm was not asked"),
     (["3;4"], "scancel: '3;4' is not a Slurm job id: Slurm was not asked"),
     ([], "scancel: no job id given")],
)  # fmt: skip
def test_scancel_is_never_given_what_is_no_job_id(
    fake_slurm: FakeSlurm, ids: list[str], said: str
) -> None:
    fake_slurm.answer("scancel")
    with pytest.raises(SlurmError) as refused:
        SlurmClient().scancel(ids)
    assert str(refused.value) == said
    assert fake_slurm.calls == []


def test_scancel_refusing_missing_or_saying_too_much(fake_slurm: FakeSlurm) -> None:
    with pytest.raises(NoSlurm) as missing:
        SlurmClient().scancel(["3"])
    assert str(missing.value) == "scancel is not on PATH"
    fake_slurm.answer(
        "scancel", stderr="scancel: error: Kill job error on job id 3: denied\n", code=1
    )
    with pytest.raises(Refused) as refused:
        SlurmClient().scancel(["3"])
    said = "scancel: error: Kill job error on job id 3: denied"
    assert str(refused.value) == f"scancel refused: {said}"
    fake_slurm.tool("scancel", "exec /usr/bin/head -c 70000000 /dev/zero")
    with pytest.raises(SlurmError) as long:
        SlurmClient().scancel(["3"])
    assert str(long.value) == "scancel said more than this tool reads: not read"


def test_sacct_asks_for_many_ids_in_one_call(fake_slurm: FakeSlurm) -> None:
    assert SlurmClient().sacct(["3"]) is None  # no sacct: no accounting
    fake_slurm.answer("sacct", "3|COMPLETED|0:0|||||\n")
    answer = SlurmClient().sacct(["3", "1234_7", "1234"])
    assert answer is not None and answer.stdout == "3|COMPLETED|0:0|||||\n"
    fake_slurm.answer("sacct", stderr="Slurm accounting storage is disabled\n", code=1)
    assert SlurmClient().sacct(["3"]) is None
    with pytest.raises(SlurmError) as refused:
        SlurmClient().sacct(["3", "--starttime=0"])
    assert str(refused.value) == (
        "sacct: '--starttime=0' is not a Slurm job id: Slurm was not asked"
    )
    assert fake_slurm.calls == [
        f"sacct -n -P -X --jobs=3,1234_7,1234 {SACCT}",
        f"sacct -n -P -X --jobs=3 {SACCT}",
    ]


def test_squeue_failing_is_refused(fake_slurm: FakeSlurm) -> None:
    fake_slurm.answer(
        "squeue", stderr="squeue: error: Unable to contact slurm controller\n", code=1
    )
    with pytest.raises(Refused) as refused:
        SlurmClient().squeue()
    assert str(refused.value) == "squeue failed: squeue: error: Unable to contact slurm controller"
    fake_slurm.answer("squeue", '{"jobs": []}')
    assert SlurmClient().squeue().stdout == '{"jobs": []}'
    assert fake_slurm.calls == ["squeue --json", "squeue --json"]


def test_a_probe_runs_in_the_environment_it_is_given(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("scontrol", "Pong\n")
    client = SlurmClient({"PATH": fake_slurm.path})
    assert client.has("scontrol") and not client.has("sinfo")
    assert client.probe("scontrol", "ping").stdout == "Pong\n"
    assert not SlurmClient({"PATH": str(tmp_path)}).has("scontrol")
    fake_slurm.hang("scontrol")
    with pytest.raises(Unanswered) as hung:
        SlurmClient({"PATH": fake_slurm.path}, probe_timeout=0.25).probe(
            "scontrol", "show", "config"
        )
    assert str(hung.value) == "`scontrol show config` did not answer within 0.25s"
    assert hung.value.command == ("scontrol", "show", "config")


def test_sbatch_runs_in_the_job_directory(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    where = fake_slurm.root / "where"
    fake_slurm.tool("sbatch", f'/bin/pwd > "{where}"\necho 1234')
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    assert SlurmClient().submit("job.sbatch", cwd=job_dir).job_id == "1234"
    assert where.read_text() == f"{job_dir}\n"
    other = tmp_path / "other"
    other.mkdir()
    after = Dependency("afterany", ("7",))
    SlurmClient().test_only("job.sbatch", cwd=other, dependency=after)
    assert where.read_text() == f"{other}\n"
    assert (
        fake_slurm.calls[-1] == "sbatch --export=ALL --dependency=afterany:7 --test-only job.sbatch"
    )


def test_sbatch_saying_too_much_gives_no_job_id(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    """sbatch's answer is cut at 1 MiB (and sbatch stopped): a cut answer is never read
    as an id."""
    fake_slurm.tool(
        "sbatch", "echo 3\nexec /usr/bin/head -c 2000000 /dev/zero | /usr/bin/tr '\\0' ' '"
    )
    with pytest.raises((Refused, Unparsed)):
        SlurmClient().submit("job.sbatch", cwd=tmp_path)


def test_what_an_unread_answer_says() -> None:
    with pytest.raises(Unparsed) as caught:
        Submission.read(Answer(0, "", ""))
    assert str(caught.value) == (
        "sbatch answered with no job id this tool can read: nothing; the job may have been "
        "submitted: look with squeue before submitting again"
    )
    assert Submission.read(Answer(0, "\n 3;c1 \n", "")) == Submission("3", "c1")


def test_a_refusal_on_standard_output_is_said(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("sbatch", "error: no\n", code=1)
    with pytest.raises(Refused) as refused:
        SlurmClient().submit("job.sbatch", cwd=tmp_path)
    assert str(refused.value) == "sbatch refused the job: error: no"


def test_a_refusal_keeps_what_was_said(fake_slurm: FakeSlurm) -> None:
    fake_slurm.answer("squeue", "partial", "down\n", code=1)
    fake_slurm.answer("scancel", "", "denied\n", code=1)
    with pytest.raises(Refused) as failed:
        SlurmClient().squeue()
    assert (failed.value.answer.stdout, failed.value.answer.stderr) == ("partial", "down\n")
    with pytest.raises(Refused) as denied:
        SlurmClient().scancel(["3"])
    assert (denied.value.answer.returncode, denied.value.answer.stderr) == (1, "denied\n")


def test_the_commands_run_with_the_clients_path(
    fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_slurm.answer("squeue", '{"jobs": []}')
    monkeypatch.setenv("PATH", str(tmp_path))  # this process finds no squeue
    assert SlurmClient({"PATH": fake_slurm.path}).squeue().stdout == '{"jobs": []}'
    with pytest.raises(NoSlurm):
        SlurmClient().squeue()


def test_at_most_so_many_ids_at_once() -> None:
    from automodel_launch.launchers.slurm.cluster.client import MAX_IDS, checked_ids

    many = [str(i + 1) for i in range(MAX_IDS)]
    assert checked_ids(many, "scancel") == many
    with pytest.raises(SlurmError) as refused:
        checked_ids([*many, "7"], "scancel")
    assert str(refused.value) == "scancel: 100001 job ids, more than 100000 at once"


def test_a_kind_is_query_submit_or_probe() -> None:
    with pytest.raises(KeyError):
        SlurmClient().timeout("QUERY")  # type: ignore[arg-type]


def test_no_other_module_runs_slurms_commands() -> None:
    """Only the client runs commands through ``cluster.commands`` (and the snapshot, git),
    and only it writes a Slurm command (``["squeue", ...]``), but for ``shell``'s
    interactive allocation; the renderers write theirs into the job's script, which this
    process never runs."""
    import ast

    package = Path(module.__file__).parents[3]
    runners, writers = set(), set()
    for path in sorted(package.rglob("*.py")):
        name = str(path.relative_to(package))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "automodel_launch.launchers.slurm.cluster.commands"
                and any(alias.name == "run" for alias in node.names)
            ):
                runners.add(name)
            first = node.elts[0] if isinstance(node, ast.List) and node.elts else None
            if isinstance(first, ast.Constant) and first.value in module.PROGRAMS:
                writers.add(name)
    # snapshot/git_run.py runs git, remote/transfer.py rsync (no Slurm command: the
    # writers below would see one)
    client = "launchers/slurm/cluster/client.py"
    assert sorted(runners) == [client, "remote/transfer.py", "snapshot/git_run.py"]
    # launchers/slurm/shell.py writes the salloc and srun of `shell`: they hold the user's
    # terminal (stdin, no timeout, output unbounded), which the client's run() never does
    renderers = ("render/", "launchers/slurm/render.py", "launchers/slurm/requeue.py")
    assert sorted(w for w in writers if not w.startswith(renderers)) == [
        client, "launchers/slurm/shell.py",
    ]  # fmt: skip
