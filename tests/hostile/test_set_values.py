"""``--set`` values and recipe values that used to pass silently: tags AutoModel's loader
stops on, tags the job config would lose, anchors, counts no cluster has, tokens.

Each through the real CLI: exit 1 (a config error) or 2 (usage), exactly one error
line naming the argument or the file's line, no traceback, no token byte anywhere,
and no job directory written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.hostile.test_crash_inputs import VALID, cli, one_error_line
from tests.hostile.tokens import KINDS, make

SKYPILOT = (ROOT / "examples" / "llm_finetune_skypilot_spot.yaml").read_text(encoding="utf-8")
APPLY = '!!python/object/apply:os.system ["true"]'


def render(tmp_path: Path, *sets: str, recipe: str = VALID) -> tuple[int, list[str], str]:
    """Render with ``--set``s into a job directory: exit code, error lines, all output."""
    (tmp_path / "r.yaml").write_text(recipe, encoding="utf-8")
    args = [arg for s in sets for arg in ("--set", s)]
    result = cli("render", "--no-check-paths", "r.yaml", "--job-dir", "job", *args, cwd=tmp_path)
    errors = [
        line
        for line in result.stderr.splitlines()
        if " error[" in line or line.startswith("error: ")
    ]
    return result.returncode, errors, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (
            f"model.x={APPLY}",
            "AutoModel's loader (PyYAML's safe loader) has no constructor for the tag "
            "!!python/object/apply:os.system: it stops on the job config",
        ),
        (
            "model.pretrained_model_name_or_path=!custom meta-llama/Llama-3.2-1B",
            "AutoModel's loader (PyYAML's safe loader) has no constructor for the tag "
            "!custom: it stops on the job config",
        ),
        (
            "model.when=!!timestamp 2020-01-01",
            "the tag !!timestamp would not reach the job config: it is written from the "
            "value of --set, without tags",
        ),
        (
            "slurm.account=!custom acct",
            "the tag !custom is not understood here: launcher fields take plain YAML values",
        ),
    ],
)
def test_a_tagged_set_value_is_one_error_naming_the_argument(
    tmp_path: Path, argument: str, message: str
) -> None:
    code, errors, _ = render(tmp_path, argument)
    assert code == 1
    assert len(errors) == 1, errors
    path = argument.partition("=")[0]
    assert errors[0] == f"--set {argument}: error[yaml-tag] {path}: {message}"
    assert not (tmp_path / "job").exists()


def test_a_tag_pyyaml_refuses_in_the_recipe_is_an_error_at_its_line(tmp_path: Path) -> None:
    recipe = VALID.replace(
        "  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B\n",
        f"  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B\n  x: {APPLY}\n",
    )
    code, errors, _ = render(tmp_path, recipe=recipe)
    assert code == 1
    assert errors == [
        "r.yaml:20:6: error[yaml-tag] model.x: AutoModel's loader (PyYAML's safe loader) has "
        "no constructor for the tag !!python/object/apply:os.system: it stops on the job config"
    ]
    assert not (tmp_path / "job").exists()


@pytest.mark.parametrize(
    ("argument", "code_name"),
    [
        ("model.x=*nowhere", "yaml-syntax"),  # an alias of no anchor
        ("model.x=&a [1, *a]", "alias-bomb"),  # an alias of its own anchor: a cycle
        ("slurm.nodes=100000000000000000000000", "out-of-range"),
        ("slurm.nodes=" + "9" * 5000, None),  # any one error: never a traceback
        ("slurm.gpus_per_node=1025", "out-of-range"),
        ("slurm.mem=100000000000000000000000G", "invalid-memory"),
    ],
)
def test_anchors_and_huge_numbers_in_set_are_one_error(
    tmp_path: Path, argument: str, code_name: str | None
) -> None:
    code, errors, _ = render(tmp_path, argument)
    assert code == 1
    assert len(errors) == 1, errors
    if code_name is not None:
        assert f"error[{code_name}]" in errors[0]
    assert not (tmp_path / "job").exists()


def test_an_anchor_inside_one_set_value_is_read_as_the_file_reads_it(tmp_path: Path) -> None:
    code, errors, _ = render(tmp_path, "model.x=&a {b: 1}", "model.y=[1, 2]")
    assert (code, errors) == (0, [])
    text = (tmp_path / "job" / "job_config.yaml").read_text(encoding="utf-8")
    assert '"x":\n    "b": 1\n' in text


@pytest.mark.parametrize(
    ("argument", "path"),
    [
        ("skypilot.accelerators=H100:100000000000000000000000", "skypilot.accelerators"),
        ("skypilot.accelerators={H100: 100000000000000000000000}", "skypilot.accelerators"),
        ("skypilot.num_nodes=100000000000000000000000", "skypilot.num_nodes"),
        ("skypilot.disk_size=100000000000000000000000", "skypilot.disk_size"),
    ],
)
def test_skypilot_counts_no_cloud_has_are_one_error(
    tmp_path: Path, argument: str, path: str
) -> None:
    code, errors, _ = render(tmp_path, argument, recipe=SKYPILOT)
    assert code == 1
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"--set {argument}: error[") and f"] {path}: " in errors[0]
    assert not (tmp_path / "job").exists()


ONE_LINE_KINDS = [
    k for k in KINDS if "\n" not in make(k, 7).value and not make(k, 7).needs_key_name
]
"""A --set value is one line, and 40 hex digits are a token only under a key's name."""


@pytest.mark.parametrize("kind", ONE_LINE_KINDS)
def test_a_token_in_a_tagged_set_value_never_leaves(tmp_path: Path, kind: str) -> None:
    token = make(kind, 7)
    for argument in (f"model.x=!custom {token.value}", f"model.x=[!!timestamp {token.value}]"):
        code, errors, everything = render(tmp_path, argument)
        assert code == 1
        assert len(errors) >= 1
        assert token.middle not in everything
        assert not (tmp_path / "job").exists()


def test_an_unknown_field_to_explain_is_one_usage_line(tmp_path: Path) -> None:
    result = cli("explain", "slurm.nodse", cwd=tmp_path)
    assert result.returncode == 2
    assert one_error_line(result.stderr).startswith("error: ")
    assert result.stdout == ""


@pytest.mark.parametrize("kind", ["hugging-face", "github-ghp"])
def test_a_token_in_the_entry_is_one_usage_line_without_it(tmp_path: Path, kind: str) -> None:
    token = make(kind, 3)
    (tmp_path / "r.yaml").write_text(VALID, encoding="utf-8")
    entry = f"train.py --key {token.value}"
    result = cli(
        "render", "--no-check-paths", "r.yaml", "--entry", entry, "--job-dir", "job", cwd=tmp_path
    )
    assert result.returncode == 2
    assert one_error_line(result.stderr).startswith("error: ")
    assert token.middle not in result.stdout + result.stderr
    assert not (tmp_path / "job").exists()
