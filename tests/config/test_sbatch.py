"""The sbatch options people use (automodel_launch/config/sbatch.py and the rules on them).

Each through the whole pipeline (YAML text -> diagnostics) with the exact code, line,
column, message and fix; the spellings sbatch accepts produce nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from automodel_launch.config import sbatch_options as opts
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.loading import load_text
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_loaded
from tests.conftest import Validate, brief


def one(validate: Validate, line: str) -> tuple[str, str, str | None]:
    """The single diagnostic for ``slurm:`` plus one field line: (brief, message, hint)."""
    diags = validate(f"slurm:\n  gpus_per_node: 8\n  {line}\n")
    assert len(diags) == 1, brief(diags)
    return brief(diags)[0], diags[0].message, diags[0].hint


@pytest.mark.parametrize(
    "line",
    [
        "qos: high",
        "reservation: maint_2026",
        "constraint: a100&ib",
        'constraint: "[rack1|rack2]&a100*2"',
        "exclusive: true",
        "mem: 0",
        "mem: 64G",
        "mem: 4096",
        'mem: "512M"',
        "cpus_per_task: 64",
        "mail_type: fail",
        "mail_type: [END, fail, Time_Limit_90]",
        "dependency: afterok:123",
        "dependency: 123",
        "dependency: afterok:123:456,afterany:789",
        "dependency: after:12+30?afternotok:13_4",
        "dependency: singleton",
        "chdir: /lustre/work",
        "setup: module load cuda",
        "setup: [module load cuda, source venv/bin/activate]",
        'command: ""',
        'sbatch_args: ["--gres=gpu:8", --hold, --comment=a=b, --nice, --nice=5, "--begin=now+60"]',
        "repo_root: /lustre/src/Automodel",
        "repo_root: ~/Automodel",
        "repo_root: ${REPO}",
    ],
)
def test_what_sbatch_accepts_is_accepted(validate: Validate, line: str) -> None:
    assert validate(f"slurm:\n  gpus_per_node: 8\n  {line}\n") == []


def test_values_are_stored_as_sbatch_reads_them() -> None:
    cfg = SlurmConfig.model_validate(
        {"mail_type": ["end", "FAIL", "End"], "mem": 0, "dependency": 42, "setup": "a\nb"}
    )
    assert (cfg.mail_type, cfg.mem, cfg.dependency, cfg.setup) == (
        ["END", "FAIL"],
        "0",
        "42",
        ["a", "b"],
    )
    assert SlurmConfig.model_validate({"command": "  "}).command is None


@pytest.mark.parametrize(
    ("line", "code", "message", "hint"),
    [
        ("qos: my qos", "invalid-slurm-word", None, "use the plain name, e.g. batch"),
        ("reservation: 'r#1'", "invalid-slurm-word", None, None),
        (
            "constraint: a100 ib",
            "invalid-constraint",
            "'a100 ib' is not a Slurm feature expression",
            None,
        ),
        ("constraint: '[a|b'", "invalid-constraint", None, None),
        ("exclusive: user", "wrong-type", None, None),
        ("mem: 64GB", "invalid-memory", "'64GB' is not a Slurm memory size", None),
        ("mem: -1", "invalid-memory", None, None),
        ("cpus_per_task: 0", "out-of-range", None, None),
        (
            "mail_type: fial",
            "invalid-mail-type",
            "'fial' is not an sbatch --mail-type (did you mean FAIL?)",
            None,
        ),
        ("mail_type: []", "invalid-mail-type", "mail_type is an empty list", None),
        (
            "mail_user: jane doe@x.org",
            "invalid-mail-user",
            None,
            "write an address such as jane@example.org",
        ),
        (
            "dependency: afterok",
            "invalid-dependency",
            "'afterok' is not an sbatch --dependency",
            None,
        ),
        ("dependency: afterok:1,afterany:2?singleton", "invalid-dependency", None, None),
        ("dependency: afterok:abc", "invalid-dependency", None, None),
        (
            "chdir: ~/work",
            "invalid-chdir",
            "sbatch does not expand '~' in '~/work'",
            "write the full path",
        ),
        ("chdir: /a b", "invalid-chdir", None, None),
        (
            "chdir: work",
            "invalid-chdir",
            "chdir 'work' is relative: sbatch would read it from "
            "the job directory, where `submit` runs it",
            "write the full path",
        ),
        (
            "setup: [module load x, 3]",
            "wrong-type",
            "a setup line must be text, not a number",
            None,
        ),
    ],
)
def test_values_sbatch_would_refuse_or_misread(
    validate: Validate, line: str, code: str, message: str | None, hint: str | None
) -> None:
    found, said, fix = one(validate, line)
    field = line.split(":")[0]
    assert found == f"3:{len(field) + 5} error[{code}] slurm.{field}"
    if message is not None:
        assert said == message
    if hint is not None:
        assert fix == hint


@pytest.mark.parametrize(
    ("arg", "code", "message", "hint"),
    [
        ("--time=10", "sbatch-option-has-field", "--time is set by the field slurm.time",
         "use slurm.time"),
        ("--gpus-per-node=8", "sbatch-option-has-field", None, "use slurm.gpus_per_node"),
        ("--requeue", "sbatch-option-has-field", None, "use slurm.requeue"),
        ("--signal=B:USR1@90", "sbatch-option-has-field", None, "use slurm.signal"),
        ("--no-requeue", "sbatch-option-has-field", None, "use slurm.requeue"),
        ("--output=x.log", "sbatch-option-refused", "--output cannot be used here: the job's "
         "log is written to the job directory, where `status` and `logs` read it", "remove it"),
        ("--wrap=hostname", "sbatch-option-refused", None, None),
        ("--ntasks-per-node=8", "sbatch-option-refused", None, None),
        ("--array=0-3", "sbatch-option-refused", None, None),
        ("--export=NONE", "sbatch-option-refused", None, None),
        ("--gress=gpu:8", "unknown-sbatch-option", "--gress is not an sbatch option (Slurm 22.05)",
         "did you mean --gres?"),
        ("-p batch", "invalid-sbatch-arg", "'-p batch' is not an sbatch --option",
         "-p is --partition: use slurm.partition"),
        ("-H", "invalid-sbatch-arg", None, "write it long: --hold"),
        ("-L lic:2", "invalid-sbatch-arg", None, "write it long: --licenses=VALUE"),
        ("--comment sweep", "invalid-sbatch-arg", None, "write --comment=VALUE"),
        ("--comment='my run'", "invalid-sbatch-arg", None,
         "write a value without spaces, quotes or '#'"),
        ("--comment=a#b", "invalid-sbatch-arg", None, None),
        ("--comment=${RUN}", "invalid-sbatch-arg", "the value of --comment holds '$': sbatch "
         "reads #SBATCH lines as written, so no variable is expanded there",
         "write the value itself"),
        ("--hold=yes", "invalid-sbatch-arg", "--hold takes no value", "write --hold"),
        ("--comment", "invalid-sbatch-arg", "--comment needs a value", "write --comment=VALUE"),
    ],
)  # fmt: skip
def test_sbatch_args_are_checked_against_sbatchs_options(
    validate: Validate, arg: str, code: str, message: str | None, hint: str | None
) -> None:
    diags = validate(f'slurm:\n  gpus_per_node: 8\n  sbatch_args:\n    - "{arg}"\n')
    assert brief(diags) == [f"4:7 error[{code}] slurm.sbatch_args[0]"]
    if message is not None:
        assert diags[0].message == message
    if hint is not None:
        assert diags[0].hint == hint


# ------------------------------------------------------------------ rules across fields
def test_ranks_without_any_gpu_request_warn_at_ntasks_per_node(validate: Validate) -> None:
    diags = validate("slurm:\n  ntasks_per_node: 4\n  exclusive: false\n")
    assert brief(diags) == ["2:20 warning[ranks-without-gpus] slurm.ntasks_per_node"]
    assert diags[0].message == (
        "4 ranks per node and no GPU request (gpus_per_node is null and exclusive is false): "
        "on clusters that enforce GRES the ranks get no GPU"
    )
    assert diags[0].hint == (
        "set gpus_per_node: 4, or remove exclusive: false to take whole nodes; "
        "gpus_per_node: 0 for a CPU job"
    )


@pytest.mark.parametrize(
    "extra",
    [
        "",  # whole nodes (--exclusive)
        "  exclusive: false\n  gpus_per_node: 0\n",  # a CPU job
        '  exclusive: false\n  sbatch_args: ["--gres=gpu:a100:4"]\n',
        "  exclusive: false\n  sbatch_args: [--gpus=8]\n",
    ],
)
def test_ranks_with_a_resource_request_do_not_warn(validate: Validate, extra: str) -> None:
    assert validate("slurm:\n  ntasks_per_node: 4\n" + extra) == []


def test_whole_nodes_unless_a_gpu_count_is_asked_for() -> None:
    def whole(**fields: object) -> bool:
        return SlurmConfig.model_validate(fields).whole_nodes

    assert whole() and whole(gpus_per_node=None)
    assert not whole(gpus_per_node=8) and not whole(gpus_per_node=0)
    assert not whole(sbatch_args=["--gres=gpu:a100:8"]) and whole(sbatch_args=["--gres=nvme:1"])
    assert whole(gpus_per_node=8, exclusive=True) and not whole(exclusive=False)


def test_command_warns_that_it_replaces_torchrun(validate: Validate) -> None:
    diags = validate("slurm:\n  gpus_per_node: 8\n  command: python train.py\n")
    assert brief(diags) == ["3:12 warning[command-replaces-torchrun] slurm.command"]
    assert "instead of the generated torchrun command" in diags[0].message


def test_mail_user_without_mail_type_warns(validate: Validate) -> None:
    diags = validate("slurm:\n  gpus_per_node: 8\n  mail_user: jane@example.org\n")
    assert brief(diags) == ["3:14 warning[mail-user-without-type] slurm.mail_user"]
    assert diags[0].hint == "add mail_type: FAIL (or END, ALL...)"


def test_shell_text_is_the_shells_to_expand() -> None:
    text = (
        "slurm:\n  gpus_per_node: 8\n  setup: export X=$(hostname) Y=${SLURM_JOB_ID:-1}\n"
        "  command: echo `hostname` $WORLD_SIZE ${MASTER_ADDR} ${UNSET_HERE}\n"
    )
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, Settings(check_paths=False, check_env=True))
    assert brief(report.diagnostics) == ["4:12 warning[command-replaces-torchrun] slurm.command"]


def test_memory_set_twice_is_refused_as_sbatch_would(validate: Validate) -> None:
    text = "slurm:\n  gpus_per_node: 8\n  mem: 64G\n  sbatch_args: [--mem-per-gpu=8G]\n"
    diags = validate(text)
    assert brief(diags) == ["4:17 error[conflicting-sbatch-options] slurm.sbatch_args[0]"]
    assert diags[0].message == (
        "--mem-per-gpu and mem both set the job's memory: sbatch refuses them together"
    )
    both = "slurm:\n  gpus_per_node: 8\n  sbatch_args: [--mem-per-cpu=1G, --mem-per-gpu=8G]\n"
    assert [d.message for d in validate(both)] == [
        "--mem-per-gpu and --mem-per-cpu both set the job's memory: sbatch refuses them together"
    ]
    assert validate("slurm:\n  gpus_per_node: 8\n  sbatch_args: [--mem-per-gpu=8G]\n") == []


def test_a_relative_repo_root_cannot_be_mounted(validate: Validate) -> None:
    diags = validate("slurm:\n  gpus_per_node: 8\n  repo_root: src/Automodel\n")
    assert brief(diags) == ["3:14 error[relative-repo-root] slurm.repo_root"]
    bare = "slurm:\n  gpus_per_node: 8\n  container_image: null\n  repo_root: src/Automodel\n"
    assert validate(bare) == []


def test_a_missing_repo_root_is_a_host_check() -> None:
    def host_check(text: str) -> list[str]:
        loaded = load_text(text, "config.yaml").loaded
        assert loaded is not None
        return brief(validate_loaded(loaded, Settings(check_env=False)).diagnostics)

    text = (
        "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
        "slurm:\n  gpus_per_node: 8\n  repo_root: /nonexistent/Automodel\n"
    )
    assert host_check(text) == ["4:14 error[path-missing] slurm.repo_root"]
    assert host_check(text + "  nemo_mount: /tmp:/nonexistent\n") == []


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(opts.OPTIONS)),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
)
def test_an_accepted_sbatch_arg_is_one_word_sbatch_reads_as_written(name: str, value: str) -> None:
    """Whatever the value: refused with a code, or free of what sbatch splits, strips,
    ends a line at, or leaves unexpanded."""
    arg = f"--{name}={value}"
    try:
        SlurmConfig.model_validate({"sbatch_args": [arg]})
    except ValidationError as exc:
        assert exc.errors()[0]["type"] in {
            "invalid-sbatch-arg", "sbatch-option-has-field", "sbatch-option-refused"
        }  # fmt: skip
        return
    assert all("!" <= c <= "~" and c not in "\"'#$" for c in value), arg
