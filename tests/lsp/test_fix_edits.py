"""Quick fixes computed in process: the exact title and edits of each, and where none is.

The client-driven suite (test_fixes.py) shows a fix applied removes its diagnostic; this
one pins each edit to the character, on the texts where a slip would damage the file
(a block scalar, a section's children, the last line), and runs in the test process.
"""

from __future__ import annotations

from typing import Any

import pytest

from automodel_launch.diagnostics import Diagnostic, Severity
from automodel_launch.loading import load_buffer
from automodel_launch.lsp import fixes
from automodel_launch.lsp.text import Lines
from automodel_launch.settings import Settings
from automodel_launch.validation import validate_result
from tests.hostile.tokens import KINDS, make

TOKEN = make("hugging-face", 1).value  # generated: no credential-like literal in the tree
SPOT = "skypilot:\n  cloud: aws\n  accelerators: H100:8\n  use_spot: true\n"


def settings(**given: Any) -> Settings:
    return Settings(**{"check_paths": False, "check_env": False, **given})


def source(text: str, **given: Any) -> fixes.Source:
    return fixes.Source(Lines(text), load_buffer(text, "recipe.yaml").loaded, settings(**given))


def found(text: str, **given: Any) -> list[tuple[str, str, str, tuple[fixes.Edit, ...]]]:
    """(code, path, title, edits) of every fix offered for ``text``'s diagnostics, each
    once (the server offers one fix for the several ``$VAR`` of one value)."""
    result = load_buffer(text, "recipe.yaml")
    report = validate_result(result, "recipe.yaml", settings(**given))
    where = fixes.Source(Lines(text), result.loaded, settings(**given))
    offered = [fixes.fix(d, where) for d in report.diagnostics]
    made = [(f.diagnostic.code, f.diagnostic.path, f.title, f.edits) for f in offered if f]
    return list(dict.fromkeys(made))


def only(text: str, **given: Any) -> tuple[str, tuple[fixes.Edit, ...]]:
    (fix,) = found(text, **given)
    return fix[2], fix[3]


def apply(text: str, edits: tuple[fixes.Edit, ...]) -> str:
    lines = text.split("\n")

    def offset(line: int, column: int) -> int:
        return sum(len(x) + 1 for x in lines[:line]) + column

    for a, b, c, d, new in sorted(edits, reverse=True):
        text = text[: offset(a, b)] + new + text[offset(c, d) :]
    return text


def diagnostic(code: str, path: str, line: int = 1, column: int = 1, hint: str | None = None):
    return Diagnostic(Severity.WARNING, code, path, line, column, "message", hint)


# ------------------------------------------------------------------ did you mean
def test_a_misspelt_key_is_renamed_in_place() -> None:
    text = "slurm:\n  ntask_per_node: 8  # per node\n"
    assert only(text) == ("Change to 'ntasks_per_node'", ((1, 2, 1, 16, "ntasks_per_node"),))


def test_a_misspelt_value_is_replaced_in_place() -> None:
    assert only("skypilot:\n  cloud: awz\n") == ("Change to 'aws'", ((1, 9, 1, 12, "aws"),))


def test_no_rename_without_a_did_you_mean() -> None:
    text = "slurm:\n  nodes: 1\n"
    assert (
        fixes.fix(diagnostic("unknown-key", "slurm.nodes", 2, 3, "remove it"), source(text)) is None
    )
    assert fixes.fix(diagnostic("unknown-key", "slurm.nodes", 2, 3), source(text)) is None
    hint = "did you mean 'nodes'?"
    made = fixes.fix(diagnostic("unknown-key", "slurm.nodes", 2, 3, hint), source(text))
    assert made is not None and made.edits == ((1, 2, 1, 7, "nodes"),)


@pytest.mark.parametrize("first", list("|>[{&*!"))
def test_no_edit_of_a_token_that_is_not_a_plain_scalar(first: str) -> None:
    text = f"slurm:\n  nodes: {first}x\n"
    hint = "did you mean 'nodes'?"
    assert fixes.fix(diagnostic("invalid-choice", "slurm.nodes", 2, 10, hint), source(text)) is None


def test_a_token_starting_with_any_other_character_is_edited() -> None:
    text = "skypilot:\n  cloud: Xaws  # sic\n"
    hint = "did you mean 'aws'?"
    made = fixes.fix(diagnostic("invalid-choice", "skypilot.cloud", 2, 10, hint), source(text))
    assert made is not None and made.edits == ((1, 9, 1, 13, "aws"),)
    made = fixes.fix(diagnostic("yaml11-trap", "skypilot.cloud", 2, 10, "write aws"), source(text))
    assert made is not None and made.edits == ((1, 9, 1, 13, "aws"),)


def test_no_edit_of_an_empty_token() -> None:
    text = "slurm:\n  nodes:\n"
    hint = "did you mean 'nodes'?"
    assert fixes.fix(diagnostic("invalid-choice", "slurm.nodes", 2, 9, hint), source(text)) is None


# ------------------------------------------------------------------ YAML 1.1
def test_a_sexagesimal_time_is_quoted_with_two_digit_hours() -> None:
    text = "slurm:\n  time: 1:00:00  # one hour\n"
    assert only(text) == ('Write "01:00:00"', ((1, 8, 1, 15, '"01:00:00"'),))
    assert only("slurm:\n  time: 12:30:05\n")[1] == ((1, 8, 1, 16, '"12:30:05"'),)


def test_a_yaml11_boolean_is_written_as_yaml12() -> None:
    text = (
        SPOT.replace("use_spot: true", "use_spot: yes") + "step_scheduler:\n  ckpt_every_steps: 5\n"
    )
    assert only(text) == ("Write true", ((3, 12, 3, 15, "true"),))


def test_a_yaml11_value_to_quote_is_quoted() -> None:
    hint = "quote it to keep the text"
    text = "slurm:\n  account: on\n"
    made = fixes.fix(diagnostic("yaml11-trap", "slurm.account", 2, 12, hint), source(text))
    assert made is not None
    assert (made.title, made.edits) == ('Write "on"', ((1, 11, 1, 13, '"on"'),))


def test_no_yaml11_fix_without_a_known_hint_or_on_a_quoted_value() -> None:
    text = "slurm:\n  account: on\n  time: '1:00:00'\n  qos: 1:00:00\n"
    at = source(text)
    assert fixes.fix(diagnostic("yaml11-trap", "slurm.account", 2, 12, "think"), at) is None
    assert fixes.fix(diagnostic("yaml11-trap", "slurm.account", 2, 12), at) is None
    assert fixes.fix(diagnostic("yaml11-trap", "slurm.time", 3, 9, "write x"), at) is None
    # a time-shaped value off a .time path: only the hint decides
    assert fixes.fix(diagnostic("yaml11-trap", "slurm.qos", 4, 8), at) is None
    made = fixes.fix(diagnostic("yaml11-trap", "slurm.qos", 4, 8, "write 3600"), at)
    assert made is not None and made.edits == ((3, 7, 3, 14, "3600"),)


# ------------------------------------------------------------------ credentials
def test_a_credential_field_is_replaced_by_its_reference() -> None:
    text = f"slurm:\n  hf_token: {TOKEN}  # mine\n"
    title, edits = only(text)
    assert title == "Replace the credential with ${HF_TOKEN}"
    assert edits == ((1, 12, 1, 12 + len(TOKEN), "${HF_TOKEN}"),)
    assert apply(text, edits) == "slurm:\n  hf_token: ${HF_TOKEN}  # mine\n"


def test_a_credential_variable_is_replaced_by_a_reference_to_itself() -> None:
    text = f'slurm:\n  env_vars:\n    MY_TOKEN: "{TOKEN}"\n'
    title, edits = only(text)
    assert title == "Replace the credential with ${MY_TOKEN}"
    assert apply(text, edits) == "slurm:\n  env_vars:\n    MY_TOKEN: ${MY_TOKEN}\n"


@pytest.mark.parametrize("style", ["|", ">", "|-", ">+"])
def test_a_credential_in_a_block_scalar_gets_no_fix(style: str) -> None:
    """Replacing the indicator alone would leave the value on the next lines."""
    for text in (
        f"slurm:\n  hf_token: {style}\n    {TOKEN}\n",
        f"slurm:\n  env_vars:\n    MY_TOKEN: {style}\n      {TOKEN}\n",
    ):
        codes = [
            d.code for d in validate_result(load_buffer(text), "r.yaml", settings()).diagnostics
        ]
        assert "secret-in-plain-text" in codes
        assert found(text) == []


def test_no_credential_fix_off_a_credential_path() -> None:
    text = f"slurm:\n  account: {TOKEN}\n"
    at = source(text)
    for path in (
        "slurm.account",
        "slurm.env_vars",
        "slurm.env_vars.MY_TOKEN.x",
        "slurm.env_vars.1A",
    ):
        made = fixes.fix(diagnostic("secret-in-plain-text", path, 2, 12), at)
        assert made is None, path
    made = fixes.fix(diagnostic("secret-in-plain-text", "skypilot.hf_token", 2, 12), at)
    assert made is not None and made.edits == ((1, 11, 1, 11 + len(TOKEN), "${HF_TOKEN}"),)


@pytest.mark.parametrize("kind", KINDS)
def test_no_fix_says_or_writes_a_token(kind: str) -> None:
    token = make(kind, 3)
    key = "WANDB_API_KEY" if token.needs_key_name else "MY_TOKEN"
    texts = [
        f"slurm:\n  env_vars:\n    {key}: {token.value!r}\n",
        f"slurm:\n  hf_token: {token.value!r}\n",
        f"slurm:\n  env_vars:\n    B: ${token.value}/x\n",
        f"skypilot:\n  cloud: {token.value!r}\n",
        f"slurm:\n  {token.value!r}: 1\n",
    ]
    for text in texts:
        for code, path, title, edits in found(text):
            assert token.middle not in f"{path} {title} {edits}", (code, text)


def test_a_bare_reference_that_is_a_token_gets_no_fix() -> None:
    text = f"slurm:\n  env_vars:\n    B: ${TOKEN}\n"
    codes = [d.code for d in validate_result(load_buffer(text), "r.yaml", settings()).diagnostics]
    assert "bare-env-reference" in codes
    assert found(text) == []


# ------------------------------------------------------------------ $VAR
def test_bare_references_are_braced_each_name_once_in_the_title() -> None:
    text = "slurm:\n  env_vars:\n    LOG: $HOME/a/$USER/$HOME \\$HOME $$USER\n"
    title, edits = only(text)
    assert title == "Write ${HOME}, ${USER}"
    assert edits == ((2, 9, 2, 42, "${HOME}/a/${USER}/${HOME} \\$HOME $$USER"),)


def test_no_bare_fix_when_nothing_changes() -> None:
    text = "slurm:\n  env_vars:\n    LOG: ${HOME}\n"
    assert (
        fixes.fix(diagnostic("bare-env-reference", "slurm.env_vars.LOG", 3, 10), source(text))
        is None
    )


# ------------------------------------------------------------------ spot checkpoints
def test_a_spot_job_without_step_scheduler_gets_the_section_at_the_end() -> None:
    assert only(SPOT) == (
        "Add step_scheduler.ckpt_every_steps: 100",
        ((4, 0, 4, 0, "step_scheduler:\n  ckpt_every_steps: 100\n"),),
    )
    text = SPOT.rstrip("\n")  # no newline at the end: one is written first
    assert apply(text, only(text)[1]) == SPOT + "step_scheduler:\n  ckpt_every_steps: 100\n"


def test_the_interval_is_the_warning_threshold_when_smaller() -> None:
    assert only(SPOT, spot_checkpoint_interval_warn=40)[0] == (
        "Add step_scheduler.ckpt_every_steps: 40"
    )
    assert only(SPOT, spot_checkpoint_interval_warn=100)[0].endswith(": 100")


def test_the_interval_goes_inside_step_scheduler_at_its_childrens_indent() -> None:
    text = (
        "step_scheduler:\n"
        "\n"
        "  # how long: a comment is not a child\n"
        "    max_steps: 1000\n"
        "    val_every_steps: 10\n"
        "model:\n"
        "  name: x\n" + SPOT
    )
    _, edits = only(text)
    assert edits == ((1, 0, 1, 0, "    ckpt_every_steps: 100\n"),)
    assert apply(text, edits).startswith(
        "step_scheduler:\n    ckpt_every_steps: 100\n\n  # how long: a comment is not a child\n"
    )
    loaded = load_buffer(apply(text, edits)).loaded
    assert loaded is not None
    assert loaded.data["step_scheduler"]["ckpt_every_steps"] == 100
    assert "ckpt_every_steps" not in loaded.data["model"]


def test_the_interval_goes_in_a_step_scheduler_that_is_not_first() -> None:
    text = SPOT + "step_scheduler:\n  max_steps: 10\nmodel:\n  name: x\n"
    _, edits = only(text)
    assert edits == ((5, 0, 5, 0, "  ckpt_every_steps: 100\n"),)
    loaded = load_buffer(apply(text, edits)).loaded
    assert loaded is not None and loaded.data["step_scheduler"]["ckpt_every_steps"] == 100


@pytest.mark.parametrize(
    "scheduler",
    [
        "step_scheduler: {max_steps: 10}\n",  # a flow mapping: not edited
        "step_scheduler: {}\n",
        "step_scheduler: {\n  }\n",  # empty, over two lines: no child to indent like
        "step_scheduler: 5\n",
        "step_scheduler:\n  checkpoint_interval: 50\n",
        "step_scheduler:\n  ckpt_every_steps: 50\n",
        "step_scheduler:\n  # only a comment\n",
    ],
)
def test_no_interval_fix_where_the_section_cannot_take_it(scheduler: str) -> None:
    text = SPOT + scheduler
    at = source(text)
    assert (
        fixes.fix(diagnostic("spot-no-checkpoint-interval", "skypilot.use_spot", 4, 13), at) is None
    )


def test_no_interval_fix_without_a_loaded_document() -> None:
    at = fixes.Source(Lines(SPOT), None, settings())
    assert (
        fixes.fix(diagnostic("spot-no-checkpoint-interval", "skypilot.use_spot", 4, 13), at) is None
    )


# ------------------------------------------------------------------ fault_tolerance
TITLE_FT = "Remove fault_tolerance: (SkyPilot recovers with skypilot.job_recovery)"


def test_fault_tolerance_first_is_removed_up_to_the_next_section() -> None:
    text = "fault_tolerance:\n  max_restarts: 2\nskypilot:\n  cloud: aws\n"
    assert only(text) == (TITLE_FT, ((0, 0, 2, 0, ""),))


def test_fault_tolerance_last_is_removed_to_the_end() -> None:
    text = "skypilot:\n  cloud: aws\nfault_tolerance:\n  max_restarts: 2"
    assert only(text) == (TITLE_FT, ((2, 0, 3, 17, ""),))
    text = "skypilot:\n  cloud: aws\nfault_tolerance:\n  max_restarts: 2\n"
    assert only(text) == (TITLE_FT, ((2, 0, 4, 0, ""),))


def test_no_fault_tolerance_fix_off_its_place() -> None:
    text = "fault_tolerance:\n  max_restarts: 2\nslurm:\n  nodes: 1\n"
    at = source(text)
    assert fixes.fix(diagnostic("fault-tolerance-needs-slurm", "fault_tolerance", 1, 1), at) is None
    text = "fault_tolerance:\n  max_restarts: 2\nskypilot:\n  cloud: aws\n"
    at = source(text)
    path = "fault_tolerance.max_restarts"
    assert fixes.fix(diagnostic("fault-tolerance-needs-slurm", path, 1, 1), at) is None
    at = fixes.Source(Lines(text), None, settings())
    assert fixes.fix(diagnostic("fault-tolerance-needs-slurm", "fault_tolerance", 1, 1), at) is None


def test_a_code_without_a_fix_gets_none() -> None:
    text = "slurm:\n  nodes: 0\n"
    assert fixes.fix(diagnostic("out-of-range", "slurm.nodes", 2, 10), source(text)) is None
