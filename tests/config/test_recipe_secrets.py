"""automodel_launch/config/recipe_secrets.py: credentials in recipe sections and comments.

A token-shaped key or value, or a literal under a secret-named key, would ride the job
config into the job directory: a warning to validate, an error to render. A comment
holding a token is a warning (the job config redacts it).
"""

from __future__ import annotations

import pytest

from automodel_launch.diagnostics import Diagnostic
from tests.conftest import Validate, brief

WANDB_HEX = "0123456789abcdef" * 2 + "01234567"


def _echoes(diags: list[Diagnostic], secret: str) -> list[str]:
    return [d.message for d in diags if secret in d.message or secret in (d.hint or "")]


def test_a_literal_under_a_secret_named_recipe_key_is_a_warning_when_validating(
    validate: Validate,
) -> None:
    diags = validate(f"wandb:\n  api_key: {WANDB_HEX}\n  password: hunter2\n  project: demo\n")
    assert brief(diags) == [
        "2:12 warning[secret-in-recipe] wandb.api_key",
        "3:13 warning[secret-in-recipe] wandb.password",
    ]
    assert diags[1].message == (
        "'password' holds a credential written into the file; the job config would carry it "
        "into the job directory"
    )
    assert diags[1].hint == (
        "write password: ${WANDB_PASSWORD} (AutoModel resolves it on the nodes) and set "
        "WANDB_PASSWORD where the job runs"
    )
    assert _echoes(diags, WANDB_HEX) == _echoes(diags, "hunter2") == []


@pytest.mark.parametrize(
    "entry",
    ["api_key: ${WANDB_API_KEY}", "token: ${oc.env:HF_TOKEN,null}", "password: ${DB_PW,}",
     "password: ''", "use_auth_token: true", "pad_token: '<pad>'",
     "eos_token_id: 2", "key: value", "tokenizer: x", "api_key: null"],
)  # fmt: skip
def test_recipe_entries_that_are_not_credentials(validate: Validate, entry: str) -> None:
    assert validate(f"model:\n  {entry}\n") == []


def test_a_token_shaped_recipe_key_is_flagged_without_showing_it(validate: Validate) -> None:
    token = "hf_" + "K3yK3yK3y" * 4
    diags = validate(f"model:\n  {token}: 1\n")
    assert brief(diags) == ["2:3 warning[secret-in-recipe] model.***"]
    assert all(token not in str(d.as_dict()) for d in diags)


def test_a_comment_holding_a_token_is_a_warning_that_says_where(validate: Validate) -> None:
    token = "hf_" + "C0mm3nt" * 5
    diags = validate(f"model:\n  name: x  # was {token}\n# hf_token: {token}\n# plain\n")
    assert brief(diags) == [
        "2:12 warning[secret-in-comment] ",
        "3:1 warning[secret-in-comment] ",
    ]
    assert diags[0].message == (
        "this comment holds a credential; the job config never carries it (redacted)"
    )


def test_a_literal_default_of_a_reference_is_a_literal(validate: Validate) -> None:
    assert brief(validate("db:\n  password: ${DB_PW,hunter2}\n")) == [
        "2:13 warning[secret-in-recipe] db.password"
    ]


def test_a_recipe_credential_stops_a_render() -> None:
    from automodel_launch.loading import load_text
    from automodel_launch.validation import validate_loaded
    from tests.conftest import offline_settings

    loaded = load_text("wandb:\n  password: hunter2\n", "c.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings(), purpose="render")
    assert brief(report.diagnostics) == ["2:13 error[secret-in-recipe] wandb.password"]
    assert report.document is None


@pytest.mark.parametrize(
    "written",
    [
        '"\\x68f_' + "A1b2C3d4" * 4 + '"',  # hf_... spelled with an escape
        '"hf_' + "A1b2C3d4" * 2 + "\\\n    " + "A1b2C3d4" * 2 + '"',  # joined across a line
    ],
)
def test_a_token_spelled_with_yaml_escapes_is_still_found(validate: Validate, written: str) -> None:
    text = f"model:\n  source: {written}\n"
    assert "hf_" + "A1b2C3d4" * 4 not in text  # the text alone does not show it
    assert brief(validate(text)) == ["2:11 warning[secret-in-recipe] model.source"]


def test_the_walk_answers_the_same_data_once_and_other_data_afresh() -> None:
    """The rule and the file's redactor both ask; the second asks the same, unmodified data."""
    from automodel_launch.config.recipe_secrets import recipe_credentials

    data = {"wandb": {"password": "hunter22"}}
    first = recipe_credentials(data)
    assert recipe_credentials(data) is first
    assert [c.loc for c in first] == [("wandb", "password")]
    other = {"wandb": {"password": "${WANDB_PASSWORD}"}}  # equal in shape, another dict
    assert recipe_credentials(other) == ()
    assert [c.loc for c in recipe_credentials({"wandb": {"api_key": "x" * 12}})] == [
        ("wandb", "api_key")
    ]
