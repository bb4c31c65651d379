"""Hostile text in every free-text field can't inject a command and reaches the job unchanged.

The rendered script runs under bash with stand-ins for ``scontrol`` and ``srun`` (the
only Slurm commands it calls) that record what they receive; the real cluster run is
in tests/integration. A canary file proves no value was ever executed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automodel_launch.config.document import LaunchDocument
from automodel_launch.launchers.slurm.render import render_sbatch
from automodel_launch.render.entry import Entry, JobSpec
from tests.support.fake_slurm import FakeSlurm

FAKE_SRUN = """#!/bin/bash
env -0 > "$RECORD/env"
"""

HOSTILE = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00", min_codepoint=1)
text = st.text(HOSTILE, min_size=1, max_size=30).filter(lambda s: "${" not in s)
path_text = st.text(
    st.characters(blacklist_categories=("Cs", "Zs", "Cc"), blacklist_characters=",:\x00"),
    min_size=1,
    max_size=20,
).filter(lambda s: "${" not in s)
names = st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: (
        n
        not in {
            "HOME",
            "PATH",
            "RECORD",
            "JOB_DIR",
            "HF_HOME",
            "WORLD_SIZE",
            "MASTER_ADDR",
            "MASTER_PORT",
            "PWD",
            "SHLVL",
            "OLDPWD",
            "IFS",
            "NCCL_DEBUG",
            "BASHOPTS",
            "SHELLOPTS",
            "UID",
            "EUID",
            "PPID",
        }
        and not n.startswith(("SLURM", "BASH", "TORCH", "PET_"))
    )
)


def _run(
    script: str, tmp: Path, extra: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    slurm = FakeSlurm(tmp / "slurm")
    slurm.tool("srun", FAKE_SRUN)
    slurm.answer("scontrol", "node1\nnode2\n")
    (tmp / "job.sbatch").write_text(script)
    environ = {
        "PATH": f"{slurm.path}:{os.environ['PATH']}",
        "HOME": str(tmp),
        "RECORD": str(tmp),
        "SLURM_JOB_ID": "4242",
        "SLURM_JOB_NODELIST": "node[1-2]",
        **(extra or {}),
    }
    subprocess.run(["bash", str(tmp / "job.sbatch")], env=environ, check=True, cwd=tmp, timeout=20)
    argv = slurm.argv("srun")[-1][1:]
    pairs = (tmp / "env").read_bytes().decode().split("\0")[:-1]
    return argv, dict(p.split("=", 1) for p in pairs)


def _shellcheck(path: Path) -> None:
    if shutil.which("shellcheck") is None:
        from tests.integration.conftest import unavailable

        unavailable("shellcheck is not installed (apt-get install shellcheck)")
    checked = subprocess.run(
        ["shellcheck", "-s", "bash", str(path)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    env_vars=st.dictionaries(names, text, max_size=4),
    hf_home=path_text.map(lambda s: "/" + s),
    image=path_text,
    mount=path_text,
    entry_arg=text.filter(lambda s: "{config}" not in s),
    use_container=st.booleans(),
)
def test_values_reach_the_job_unchanged(
    tmp_path_factory: Any,
    env_vars: dict[str, str],
    hf_home: str,
    image: str,
    mount: str,
    entry_arg: str,
    use_container: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("job")
    canary = tmp / "canary"
    hostile_env = dict(env_vars)
    hostile_env["CANARY_PROBE"] = f"$(touch {canary}) `touch {canary}`; touch {canary}"
    document = LaunchDocument.model_validate({"slurm": {
        "nodes": 2,
        "ntasks_per_node": 2,
        "time": "10",
        "container_image": image if use_container else None,
        "hf_home": hf_home,
        "extra_mounts": [f"/{mount}:/{mount}"],
        "env_vars": hostile_env,
    }})  # fmt: skip
    spec = JobSpec(
        entry=Entry(("train.py", entry_arg, "{config}"), ()),
        job_dir=str(tmp),
        source="c.yaml",
    )
    script = render_sbatch(document, spec)
    argv, job_env = _run(script, tmp)
    _shellcheck(tmp / "job.sbatch")

    assert not canary.exists()
    for name, value in hostile_env.items():
        assert job_env[name] == value
    assert job_env["HF_HOME"] == hf_home
    assert job_env["WORLD_SIZE"] == "4"
    assert job_env["MASTER_ADDR"] == "node1"
    assert argv[-3:] == ["train.py", entry_arg, f"{tmp}/job_config.yaml"]
    if use_container:
        assert f"--container-image={image}" in argv
        assert any(a.endswith(f",/{mount}:/{mount}") for a in argv if a.startswith("--container-m"))
    else:
        assert not any(a.startswith("--container") for a in argv[:-3])  # not the entry's


SBATCH_ARGS = st.lists(
    st.from_regex(
        r"--(comment|hint|wckey|begin|licenses)=[A-Za-z0-9_.:+@%,=-]{1,12}", fullmatch=True
    )
    | st.sampled_from(["--hold", "--nice", "--contiguous", "--gres=gpu:2"]),
    max_size=3,
)
mount_path = st.text(
    st.characters(
        blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"), blacklist_characters=",:\x00"
    ),
    min_size=1,
    max_size=20,
).filter(lambda s: "${" not in s and not any(c.isspace() for c in s))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    setup_value=text,
    command=text.filter(lambda s: s.strip()),
    repo=mount_path,
    args=SBATCH_ARGS,
    qos=st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.,+@%=-]{0,10}", fullmatch=True),
    constraint=st.from_regex(r"[A-Za-z0-9_]{1,6}([&|][A-Za-z0-9_]{1,6}){0,2}", fullmatch=True),
    use_container=st.booleans(),
)
def test_setup_command_repo_root_and_options_stay_what_they_are(
    tmp_path_factory: Any,
    setup_value: str,
    command: str,
    repo: str,
    args: list[str],
    qos: str,
    constraint: str,
    use_container: bool,
) -> None:
    """setup runs in the batch shell and what it exports reaches srun; command reaches each
    node as one word, never run by the batch shell; repo_root leads PYTHONPATH and is
    mounted; a ~ hf_home is created and mounted; every option stays on its own line."""
    tmp = tmp_path_factory.mktemp("job")
    canary = tmp / "canary"
    from automodel_launch.render.shell import quote

    document = LaunchDocument.model_validate({"slurm": {
        "nodes": 2,
        "ntasks_per_node": 2,
        "time": "10",
        "container_image": "nvcr.io#nvidia/nemo:dev" if use_container else None,
        "repo_root": "/" + repo,
        "qos": qos,
        "constraint": constraint,
        "mail_type": ["end", "fail"],
        "sbatch_args": args,
        "setup": [f"export SETUP_VALUE={quote(setup_value)}", "echo set up >&2"],
        "command": f"{command} $(touch {canary}) `touch {canary}`",
    }})  # fmt: skip
    spec = JobSpec(entry=Entry(("train.py", "{config}"), ()), job_dir=str(tmp), source="c.yaml")
    script = render_sbatch(document, spec)
    argv, job_env = _run(script, tmp)
    _shellcheck(tmp / "job.sbatch")

    assert not canary.exists()
    assert job_env["SETUP_VALUE"] == setup_value
    assert argv[-3:] == ["bash", "-c", f"{command} $(touch {canary}) `touch {canary}`"]
    assert "torchrun" not in argv
    assert job_env["PYTHONPATH"] == "/" + repo
    lines = script.splitlines()
    for arg in args:
        assert f"#SBATCH {arg}" in lines
    assert f"#SBATCH --qos={qos}" in lines and f"#SBATCH --constraint={constraint}" in lines
    assert "#SBATCH --mail-type=END,FAIL" in lines
    if use_container:
        hf = f"{tmp}/.cache/huggingface"
        mounts = next(a for a in argv if a.startswith("--container-mounts="))
        assert mounts == f"--container-mounts={tmp}:{tmp},{hf}:{hf},/{repo}:/{repo}"
        assert (tmp / ".cache" / "huggingface").is_dir()
    else:
        assert not any(a.startswith("--container") for a in argv[:-3])  # not the entry's


def test_whole_nodes_hand_the_nodes_gpus_to_the_ranks(tmp_path: Path) -> None:
    """An exclusive job holds every GPU of its nodes, but its srun step gets none it did not
    ask for (seen on Slurm 22.05 with GRES): the step asks for the node's GPUs, if any."""
    spec = JobSpec(entry=Entry(("train.py",), ()), job_dir=str(tmp_path), source="c.yaml")
    whole = LaunchDocument.model_validate({"slurm": {"container_image": None}})
    argv, _ = _run(render_sbatch(whole, spec), tmp_path, {"SLURM_GPUS_ON_NODE": "4"})
    assert "--gpus-per-node=4" in argv
    argv, _ = _run(render_sbatch(whole, spec), tmp_path)
    assert not any(a.startswith("--gpus") for a in argv)
    for fields in ({"gpus_per_node": 8}, {"gpus_per_node": 0, "exclusive": True}):
        counted = LaunchDocument.model_validate({"slurm": {"container_image": None, **fields}})
        argv, _ = _run(render_sbatch(counted, spec), tmp_path, {"SLURM_GPUS_ON_NODE": "4"})
        assert not any(a.startswith("--gpus") for a in argv), fields


def test_env_vars_pythonpath_follows_repo_root_instead_of_replacing_it(tmp_path: Path) -> None:
    """The job's PYTHONPATH is repo_root, then env_vars.PYTHONPATH (whose ${PYTHONPATH} is
    the submitting environment's): the checkout stays first on the path."""
    spec = JobSpec(entry=Entry(("train.py",), ()), job_dir=str(tmp_path), source="c.yaml")

    def job_path(env_vars: dict[str, str], inherited: str | None) -> str:
        document = LaunchDocument.model_validate({"slurm": {
            "container_image": None, "repo_root": "/src/Automodel", "env_vars": env_vars,
        }})  # fmt: skip
        extra = {} if inherited is None else {"PYTHONPATH": inherited}
        _, job_env = _run(render_sbatch(document, spec), tmp_path, extra)
        return job_env["PYTHONPATH"]

    assert job_path({"PYTHONPATH": "/opt/libs"}, "/site") == "/src/Automodel:/opt/libs"
    assert job_path({"PYTHONPATH": "/opt/libs:${PYTHONPATH}"}, "/site") == (
        "/src/Automodel:/opt/libs:/site"
    )
    assert job_path({"PYTHONPATH": ""}, "/site") == "/src/Automodel"
    assert job_path({}, "/site") == "/src/Automodel:/site"
    assert job_path({}, None) == "/src/Automodel"
