"""What ``shell`` runs: the words (argv, never a shell string), their environment (the
recipe's variables resolved from the caller's by name) and the exit status handed back."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from automodel_launch.config.document import LaunchDocument
from automodel_launch.errors import UsageError
from automodel_launch.job_shell import open_shell, run, shell_of
from automodel_launch.launchers.shell import CannotRun, NoProgram, ShellCommand, ShellError
from automodel_launch.launchers.slurm.shell import (
    JOB_NAME,
    WHOLE_NODE_NOTE,
    _path,
    job_environment,
    step_without_gpus,
)
from automodel_launch.loading import load_text
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.support.fake_slurm import FakeSlurm

TOKEN = "hf_" + "Q" * 34
RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
CALLER = {"PATH": "/usr/bin", "HOME": "/home/ada", "HF_TOKEN": TOKEN, "USER": "ada"}


def document(text: str) -> LaunchDocument:
    loaded = load_text(RECIPE + text, "config.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    assert report.document is not None, report.diagnostics
    assert not [d for d in report.diagnostics if d.is_error], report.diagnostics
    return report.document


SLURM = """slurm:
  job_name: llm_finetune
  nodes: 2
  ntasks_per_node: 8
  gpus_per_node: 8
  time: "04:00:00"
  account: llm_team
  partition: batch
  container_image: nvcr.io/nvidia/nemo:dev
  hf_home: /lustre/hf_cache
  extra_mounts:
    - /lustre/${USER}/checkpoints:/ckpt
  env_vars:
    HF_TOKEN: ${HF_TOKEN}
    RUN_DIR: /scratch/${USER}
    OUT: ${RUN_DIR}/out
    LABEL: "it's ${MISSING,fallback} (a b)"
"""


def test_a_slurm_recipe_allocates_one_node_and_runs_the_command_in_its_container() -> None:
    shell = shell_of(document(SLURM), CALLER, ["python", "-c", "print(1)"])
    words, env = shell.words, shell.env
    assert words == [
        "salloc", f"--job-name={JOB_NAME}", "--nodes=1", "--ntasks-per-node=1",
        "--time=04:00:00", "--account=llm_team", "--partition=batch", "--gpus-per-node=8",
        "srun", "--export=ALL", "--ntasks-per-node=1",
        "--container-image=nvcr.io/nvidia/nemo:dev",
        "--container-mounts=/lustre/hf_cache:/lustre/hf_cache,/lustre/ada/checkpoints:/ckpt",
        "--no-container-mount-home", "--", "python", "-c", "print(1)",
    ]  # fmt: skip
    assert not any(TOKEN in word for word in words)
    assert env["HF_TOKEN"] == TOKEN  # by name, from the caller
    assert (env["RUN_DIR"], env["OUT"]) == ("/scratch/ada", "/scratch/ada/out")
    assert env["LABEL"] == "it's fallback (a b)"
    assert env["HF_HOME"] == "/lustre/hf_cache"
    assert env["PATH"] == "/usr/bin"
    assert (env["TORCH_NCCL_ASYNC_ERROR_HANDLING"], env["NCCL_DEBUG"]) == ("1", "WARN")


def test_an_interactive_shell_is_one_pty_task_and_nodes_can_be_asked_for() -> None:
    shell = shell_of(document(SLURM), CALLER, [], nodes=3)
    words, _ = shell.words, shell.env
    assert "--nodes=3" in words
    srun = words[words.index("srun") :]
    assert srun[:5] == ["srun", "--export=ALL", "--nodes=1", "--ntasks=1", "--pty"]
    assert srun[-2:] == ["--", "bash"]


def test_whole_nodes_workdir_repo_root_and_salloc_sbatch_args() -> None:
    text = """slurm:
  ntasks_per_node: 4
  container_image: null
  chdir: /work/ada
  mem: 64G
  cpus_per_task: 16
  constraint: a100
  qos: high
  reservation: maint
  repo_root: ~/Automodel
  hf_home: ~/hf
  sbatch_args: ["--gres=gpu:4", "--comment=try", "--hold", "--exclude=node7"]
"""
    shell = shell_of(document(text), {**CALLER, "PYTHONPATH": "/opt/lib"}, ["true"])
    words, env = shell.words, shell.env
    assert words == [
        "salloc", f"--job-name={JOB_NAME}", "--nodes=1", "--ntasks-per-node=1",
        "--time=04:00:00", "--qos=high", "--reservation=maint", "--constraint=a100",
        "--mem=64G", "--cpus-per-task=16", "--gres=gpu:4", "--comment=try", "--exclude=node7",
        "srun", "--export=ALL", "--ntasks-per-node=1", "--chdir=/work/ada", "--", "true",
    ]  # fmt: skip
    assert env["PYTHONPATH"] == "/home/ada/Automodel:/opt/lib"
    assert env["HF_HOME"] == "/home/ada/hf"
    shell = shell_of(document("slurm:\n  container_image: null\n"), CALLER, ["true"])
    bare, env = shell.words, shell.env
    assert "--exclusive" in bare  # gpus_per_node null: whole nodes, as the script asks
    assert "PYTHONPATH" not in env
    assert env["HF_HOME"] == "/home/ada/.cache/huggingface"


def test_the_container_workdir_follows_chdir() -> None:
    text = "slurm:\n  chdir: /work\n  container_image: nvcr.io/nvidia/nemo:dev\n"
    shell = shell_of(document(text), CALLER, ["true"])
    words, _ = shell.words, shell.env
    assert "--chdir=/work" in words and "--container-workdir=/work" in words


def test_a_whole_node_step_gets_no_gpu_unless_asked() -> None:
    def whole(text: str) -> bool:
        section = document("slurm:\n  container_image: null\n" + text).slurm
        assert section is not None
        return step_without_gpus(section)

    assert whole("")
    assert not whole("  gpus_per_node: 4\n  ntasks_per_node: 4\n")
    assert not whole("  gpus_per_node: 0\n")
    assert not whole("  exclusive: false\n")
    assert not whole("  sbatch_args: ['--gres=gpu:8']\n")
    assert whole("  exclusive: true\n")


def test_a_command_word_that_looks_like_an_option_stays_the_command() -> None:
    shell = shell_of(document(SLURM), CALLER, ["--help"])
    words, _ = shell.words, shell.env
    assert words[-2:] == ["--", "--help"]


def test_paths_read_as_the_jobs_shell_reads_them() -> None:
    assert _path("~", {"HOME": "/h"}) == "/h"
    assert _path("~/x", {"HOME": "/h"}) == "/h/x"
    assert _path("/a/~", {"HOME": "/h"}) == "/a/~"
    assert _path("${D,/d}/x", {}) == "/d/x"


def test_repo_root_alone_on_pythonpath_when_the_caller_has_none() -> None:
    doc = document("slurm:\n  container_image: null\n  repo_root: /src/Automodel\n")
    assert doc.slurm is not None
    assert job_environment(doc.slurm, {})["PYTHONPATH"] == "/src/Automodel"
    assert job_environment(doc.slurm, {"PYTHONPATH": ""})["PYTHONPATH"] == "/src/Automodel"


def test_open_shell_runs_and_hands_back_the_status(
    fake_slurm: FakeSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_slurm.in_front()
    environ = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    assert open_shell(document(""), ["sh", "-c", "exit 5"], environ=environ) == 5
    assert capsys.readouterr().err == ""
    assert open_shell(document(""), ["sh", "-c", "exit 6"]) == 6  # this process's environment
    # a stand-in salloc that checks its words and environment, and exits 4
    fake_slurm.tool(
        "salloc",
        '[ "$1" = --job-name=automodel-launch-shell ] && [ "$2" = --nodes=2 ] '
        '&& [ "$GREETING" = hi ] && exit 4\nexit 9\n',
    )
    doc = document("slurm:\n  container_image: null\n  env_vars:\n    GREETING: hi\n")
    assert open_shell(doc, ["true"], 2, {"PATH": fake_slurm.path, "HOME": "/h"}) == 4
    assert capsys.readouterr().err == WHOLE_NODE_NOTE + "\n"
    doc = document("slurm:\n  container_image: null\n  gpus_per_node: 8\n  env_vars:\n"
                   "    GREETING: hi\n")  # fmt: skip
    assert open_shell(doc, ["true"], 2, {"PATH": fake_slurm.path, "HOME": "/h"}) == 4
    assert capsys.readouterr().err == ""


def test_the_environment_of_a_recipe_overrides_the_callers() -> None:
    doc = document("slurm:\n  env_vars:\n    NCCL_DEBUG: INFO\n    HOME2: ${HOME}\n")
    assert doc.slurm is not None
    env = job_environment(doc.slurm, {"NCCL_DEBUG": "TRACE", "HOME": "/h"})
    assert (env["NCCL_DEBUG"], env["HOME2"]) == ("INFO", "/h")
    assert job_environment(doc.slurm, {"HOME": "/h"})["HF_HOME"] == "/h/.cache/huggingface"


def test_a_local_recipe_runs_the_callers_shell_or_bash() -> None:
    doc = document("")
    assert shell_of(doc, {**CALLER, "SHELL": "/bin/zsh"}, []) == ShellCommand(
        ["/bin/zsh"], {**CALLER, "SHELL": "/bin/zsh"},
    )  # fmt: skip
    assert shell_of(doc, CALLER, []).words == ["bash"]
    assert shell_of(doc, CALLER, ["ls", "-l"], nodes=1).words == ["ls", "-l"]
    with pytest.raises(UsageError) as raised:
        shell_of(doc, CALLER, [], nodes=2)
    assert (
        str(raised.value) == "--nodes 2: a recipe without a launcher section runs on this node only"
    )
    assert raised.value.hint == "leave --nodes out"


def test_a_skypilot_recipe_is_refused_with_the_alternative() -> None:
    doc = document("skypilot:\n  cloud: aws\n  accelerators: A100:8\n")
    with pytest.raises(ShellError) as raised:
        shell_of(doc, CALLER, [])
    assert str(raised.value) == (
        "shell does not open SkyPilot clusters: a cluster is launched by `submit` and kept by "
        "SkyPilot"
    )
    assert raised.value.hint == (
        "once the job's cluster is up, `sky ssh CLUSTER` (or `ssh CLUSTER`) opens a shell on "
        "its first node; `sky status` names it"
    )
    assert raised.value.exit_code == 1


def test_the_exit_status_is_the_commands(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "SECRET_TOKEN": TOKEN}
    assert run(["sh", "-c", "exit 7"], env) == 7
    assert run(["sh", "-c", '[ "$SECRET_TOKEN" = "$0" ]', TOKEN], env) == 0
    assert run(["sh", "-c", "kill -TERM $$"], env) == 128 + signal.SIGTERM
    with pytest.raises(NoProgram) as missing:
        run(["no-such-program-here"], env)
    assert (str(missing.value), missing.value.exit_code) == (
        "cannot run 'no-such-program-here': no such program", 127,
    )  # fmt: skip
    assert missing.value.hint == "check the command's name"
    with pytest.raises(NoProgram) as salloc:
        run(["salloc"], {"PATH": str(tmp_path)})
    assert salloc.value.hint == "run it on a Slurm login node"
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(CannotRun) as cannot:
        run([str(script)], env)
    assert (str(cannot.value), cannot.value.exit_code) == (
        f"cannot run '{script}': Permission denied", 126,
    )  # fmt: skip


def test_ctrl_c_goes_to_the_child_and_the_wait_goes_on() -> None:
    """SIGINT to this process while the child runs: nothing here; the child's status."""
    child = (
        "import os, signal, time; signal.signal(signal.SIGINT, lambda *a: os._exit(42)); "
        "os.kill(os.getppid(), signal.SIGINT); time.sleep(0.2); os.kill(os.getpid(), "
        "signal.SIGINT); time.sleep(5)"
    )
    before = signal.getsignal(signal.SIGINT)
    assert run([sys.executable, "-c", child], dict(os.environ)) == 42
    assert signal.getsignal(signal.SIGINT) is before
