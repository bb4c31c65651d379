"""automodel_launch/secrets.py: secret names, token shapes, redaction, display.

Every token here is built at run time from a prefix and filler, so the repository
itself holds none.
"""

from __future__ import annotations

import pytest
from pydantic import Field

from automodel_launch import secrets
from automodel_launch.config.environment import CREDENTIAL_FIELDS, credential_fields, redactor
from automodel_launch.config.types import SecretReference, StrictSection
from automodel_launch.diagnostics import Diagnostic, Severity

HEX40 = "0123456789abcdef" * 2 + "01234567"
TOKENS = {
    "hugging-face": "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "github-ghp": "ghp_" + "A1b2" * 9,
    "github-gho": "gho_" + "A1b2" * 9,
    "github-ghu": "ghu_" + "A1b2" * 9,
    "github-ghs": "ghs_" + "A1b2" * 9,
    "github-ghr": "ghr_" + "A1b2" * 9,
    "github-fine-grained": "github_pat_" + "11ABCDEFG0" + "x" * 12 + "_" + "Y" * 59,
    "gitlab": "glpat-" + "Ab1_" * 5,
    "aws-akia": "AKIA" + "ABCDEFGH23456789",
    "aws-asia": "ASIA" + "ABCDEFGH23456789",
    "google": "AIza" + "Sy" + "A1b2c3d4e5" * 3 + "f6g",
    "slack-bot": "xoxb-" + "1234567890-abcdefghij",
    "slack-short": "xoxp-" + "1-a",
    "openai": "sk-" + "A1b2C3d4" * 4,
    "openai-project": "sk-proj-" + "A1b2C3d4" * 4,
    "anthropic": "sk-ant-api03-" + "A1b2C3d4" * 4,
    "ngc": "nvapi-" + "A1b2C3d4" * 4,
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0In0" + "." + "sig_nature-1",
    "pem": "-----BEGIN RSA " + "PRIVATE KEY-----",
    "openssh": "-----BEGIN OPENSSH " + "PRIVATE KEY-----",
    "wandb-assigned": "WANDB_API_KEY=" + HEX40,
    "url-password": "https://user:" + "pa55word" + "@git.example.com/repo.git",
}


# ------------------------------------------------------------------ names
@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("HF_TOKEN", True),
        ("hf_token", True),
        ("WANDB_API_KEY", True),
        ("DB_PASSWORD", True),
        ("MYTOKEN", True),
        ("OPENAI_APIKEY", True),
        ("ADMINPASSWORD", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("GITHUB_PAT", True),
        ("GIT_AUTH", True),
        ("SSH_PASSPHRASE", True),
        ("NGC_TOKEN_V2", True),
        ("OPENAI_APIKEY_2", True),
        ("OPENAIAPIKEY", True),
        ("CLIENT_SECRET", True),
        ("PASSWORD_DB", True),
        ("DB_PASSWD", True),
        ("GIT_CREDENTIAL", True),
        ("GCP_CREDENTIALS", True),
        ("TOKENIZERS_PARALLELISM", False),
        ("KEYBOARD", False),
        ("MONKEY", False),
        ("PATH", False),
        ("HF_HOME", False),
    ],
)
def test_is_secret_name(name: str, secret: bool) -> None:
    assert secrets.is_secret_name(name) is secret


@pytest.mark.parametrize(
    "key",
    ["api_key", "apiKey", "API_KEY", "password", "passwd", "db_password", "hf_token", "token",
     "access_token", "auth_token", "secret", "client_secret", "secret_key", "private_key",
     "wandb_key", "github_pat", "credentials", "apikey", "passphrase", "refresh-token",
     "secrets", "credential", "accesskey", "privatekey", "model_api_key", "hfToken"],
)  # fmt: skip
def test_recipe_keys_that_name_a_credential(key: str) -> None:
    assert secrets.is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    ["key", "keys", "tokenizer", "tokenizer_name", "max_tokens", "pad_token", "bos_token",
     "eos_token", "eos_token_id", "mask_token_id", "monkey", "num_key_value_heads",
     "check_phantom_keys", "token_loss_weight", "pretokenize", "add_eos_token", "sort_key",
     "passage_prefix", "n_passages", "hf_adapter_ignored_key_prefix", "", "_", "hf_model_key"],
)  # fmt: skip
def test_recipe_keys_that_do_not(key: str) -> None:
    assert not secrets.is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    ["signing_key", "encryption_key", "client_key", "license_key", "openai_key",
     "anthropic_key", "huggingface_token", "ngc_key", "google_key", "aws_key", "github_token",
     "gh_token", "gitlab_token", "slack_token", "bearer_token", "session_token", "oauth_token",
     "bot_token", "personal_token", "hub_token", "security_key", "service_key"],
)  # fmt: skip
def test_every_qualifier_makes_a_key_or_token_a_credential(key: str) -> None:
    assert secrets.is_secret_key(key)


# ------------------------------------------------------------------ values
@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_every_token_format_is_recognised_alone_and_inside_text(kind: str) -> None:
    token = TOKENS[kind]
    assert secrets.looks_like_token(token)
    assert secrets.looks_like_token(f"  # export X={token} and more")
    assert token not in secrets.redact_tokens(f"a {token} b")


@pytest.mark.parametrize(
    "text",
    [
        "hf_" + "a" * 29,
        "ghp_" + "a" * 29,
        "github_pat_" + "a" * 21,
        "glpat-" + "a" * 19,
        "AKIA" + "A" * 15,
        "AIza" + "a" * 34,
        "sk-short",
        "nvapi-" + "a" * 19,
        "sk-" + "a" * 19,
        "GR1348941" + "a" * 19,
        "xoxb-" + "abcdefghi",
        "api_key=" + HEX40 + "a",  # 41 hex digits: not a W&B key
        "\u00e9t\u00e9 \u00a0",
        HEX40,  # a commit hash alone is not a key
        "revision: " + HEX40,
        "https://user:${GIT_PASSWORD}@example.com/x",
        "/home/hf_cache",
        "meta-llama/Llama-3.2-1B-Instruct",
        "nvcr.io/nvidia/nemo:25.07",
        "plain text",
        "",
    ],
)
def test_values_that_are_not_tokens(text: str) -> None:
    assert not secrets.looks_like_token(text)
    assert secrets.redact_tokens(text) == text


@pytest.mark.parametrize("prefix", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
def test_every_github_classic_prefix(prefix: str) -> None:
    assert secrets.redact_tokens(f"url {prefix}{'Z9' * 18} end") == "url *** end"


@pytest.mark.parametrize("prefix", ["sk-", "sk-proj-", "sk-ant-api03-"])
def test_openai_and_anthropic_key_styles(prefix: str) -> None:
    assert secrets.redact_tokens(f"OPENAI={prefix}{'Q7_-' * 6}") == "OPENAI=***"


@pytest.mark.parametrize(
    "token",
    [
        "hf_" + "a" * 30,
        "ghp_" + "a" * 30,
        "github_pat_" + "a" * 22,
        "GR1348941" + "a" * 20,
        "sk-" + "a" * 20,
        "nvapi-" + "a" * 20,
        "xoxb-" + "abcdefghij",
    ],
)
def test_tokens_of_the_shortest_length(token: str) -> None:
    assert secrets.redact_tokens(f"x={token} y") == "x=*** y"


@pytest.mark.parametrize(
    "prefix",
    ["glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-",
     "gloas-"],
)  # fmt: skip
def test_every_gitlab_prefix(prefix: str) -> None:
    assert secrets.redact_tokens(f"url {prefix}{'Ab1_' * 5} end") == "url *** end"


@pytest.mark.parametrize("prefix", ["A3TX", "ABIA", "ACCA", "AKIA", "ASIA"])
def test_every_aws_key_id_prefix(prefix: str) -> None:
    assert secrets.redact_tokens(f"id {prefix}ABCDEFGH23456789 end") == "id *** end"


@pytest.mark.parametrize("letter", "abposr")
def test_every_slack_token_kind_in_both_forms(letter: str) -> None:
    numbered, worded = f"xox{letter}-1-a", f"xox{letter}-" + "abcdefghij"
    assert secrets.redact_tokens(f"s {numbered} {worded} {numbered.upper()} e") == "s *** *** *** e"


def test_slack_webhook_url() -> None:
    url = "https://hooks.slack.com/services/" + "T0A1/B2C3/" + "x9Y8z7"
    assert secrets.redact_tokens(f"hook: {url}") == "hook: ***"


def test_a_whole_private_key_block_goes_and_the_text_after_it_stays() -> None:
    label = "RSA " + "PRIVATE KEY"
    block = f"-----BEGIN {label}-----" + "MIIB" * 16 + f"-----END {label}-----"
    assert secrets.redact_tokens(f"a {block} b") == "a *** b"


def test_a_private_key_without_its_end_goes_to_the_end_of_the_line() -> None:
    head = "-----BEGIN OPENSSH " + "PRIVATE KEY-----"
    assert secrets.redact_tokens(f"k: {head}b3BlbnNzaC1r rest\nnext") == "k: ***\nnext"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("key BEGIN EC " + "PRIVATE KEY here", "key *** here"),
        ("PuTTY-User-" + "Key-File-3: ssh-ed25519", "***: ssh-ed25519"),
    ],
)
def test_private_key_markers_without_dashes(text: str, shown: str) -> None:
    assert secrets.redact_tokens(text) == shown


@pytest.mark.parametrize(
    "text",
    ["token=" + HEX40, "secret: " + HEX40, "password=" + HEX40, "passwd=" + HEX40,
     "API_KEY: " + HEX40],
)  # fmt: skip
def test_a_hex_key_under_every_key_like_name(text: str) -> None:
    assert secrets.redact_tokens(text) == text.removesuffix(HEX40) + "***"


def test_a_text_holding_every_hint_is_still_searched() -> None:
    text = " ".join(secrets._LITERALS) + " " + TOKENS["hugging-face"]
    assert secrets.redact_tokens(text) == " ".join(secrets._LITERALS) + " ***"


def test_only_the_password_of_a_url_is_masked() -> None:
    url = "https://user:" + "pa55word" + "@host/x.git"
    assert secrets.redact_tokens(url) == "https://user:***@host/x.git"


def test_only_the_hex_key_of_an_assignment_is_masked() -> None:
    assert secrets.redact_tokens(f"api_key: '{HEX40}'") == "api_key: '***'"


# ------------------------------------------------------------------ redaction
def test_known_values_go_longest_first() -> None:
    hide = secrets.Redactor(["abcd", "abcdefgh"])
    assert hide("x abcdefgh y abcd") == "x *** y ***"


def test_known_values_then_patterns() -> None:
    hide = secrets.Redactor(["hunter22"])
    assert hide("pw hunter22 and " + TOKENS["github-ghp"]) == "pw *** and ***"
    assert secrets.Redactor()("t " + TOKENS["hugging-face"]) == "t ***"


def test_values_too_short_to_redact_safely_are_ignored() -> None:
    assert secrets.Redactor(["ab", ""])("ab cab") == "ab cab"
    assert secrets.Redactor(["abc"])("ab abc") == "ab ***"


@pytest.mark.parametrize("launcher", ["slurm", "skypilot"])
def test_the_file_redactor_knows_both_launchers(launcher: str) -> None:
    data = {launcher: {"env_vars": {"DB_PASSWORD": "hunter22", "PLAIN": "visible"}}}
    hide = redactor(data, {})
    assert hide("hunter22 visible") == "*** visible"


def test_the_file_redactor_knows_recipe_credentials_and_their_text_as_written() -> None:
    data = {"wandb": {"password": 31337, "project": "demo"}}
    hide = redactor(data, {("wandb", "password"): "0o75131"})
    assert hide("31337 0o75131 demo") == "*** *** demo"


def test_credential_fields_come_from_the_models() -> None:
    assert CREDENTIAL_FIELDS == {"hf_token": "HF_TOKEN", "wandb_key": "WANDB_API_KEY"}

    class WithNgc(StrictSection):
        ngc_key: SecretReference | None = Field(default=None, description="As `${NGC_API_KEY}`.")
        ngc_org: str | None = Field(default=None, description="Not `${SECRET}`: plain text.")
        plain: SecretReference | None = None

    # a new SecretReference field is a credential with no table to edit
    assert credential_fields((WithNgc,)) == {"ngc_key": "NGC_API_KEY", "plain": "PLAIN"}


# ------------------------------------------------------------------ display
def test_display_escapes_terminal_controls() -> None:
    text = "a\x1b[31mred\x1b]8;;http://x\x07link\u202eb\nc\r\x00"
    assert secrets.display(text) == ("a\\x1b[31mred\\x1b]8;;http://x\\x07link\\u202eb\\nc\\r\\x00")


def test_display_cuts_long_words_and_long_texts() -> None:
    shown = secrets.display("'" + "x" * 4_000_000 + "' is not valid")
    assert shown == "'" + "x" * 79 + "..." + "x" * 39 + "' is not valid"
    assert secrets.display("ab " * 1000) == ("ab " * 200) + "..."


def test_display_cut_lengths_exactly() -> None:
    assert secrets.display("y" * 120) == "y" * 120
    assert secrets.display("y" * 121) == "y" * 80 + "..." + "y" * 40
    path = "/" + "d" * 150 + "/jobs/run-7/manifest.json"
    assert secrets.display(f"cannot read {path}") == (
        f"cannot read /{'d' * 79}...{'d' * 15}/jobs/run-7/manifest.json"
    )
    assert secrets.display("abcd " * 120) == "abcd " * 120
    assert secrets.display("abcd " * 120 + "z") == "abcd " * 120 + "..."


@pytest.mark.parametrize(
    "char",
    ["\x00", "\x1f", "\x7f", "\x80", "\x9f", "\u200b", "\u200f", "\u202a", "\u202e",
     "\u2066", "\u2069", "\ufeff"],
)  # fmt: skip
def test_display_escapes_every_control_range_to_its_ends(char: str) -> None:
    assert secrets.display(f"a{char}b") == "a" + repr(char)[1:-1] + "b"


def test_the_first_control_character_not_allowed() -> None:
    assert secrets.control_character("plain text") is None
    assert secrets.control_character("a\tb\nc") == "\t"
    assert secrets.control_character("a\tb\nc", allowed="\t\n") is None
    assert secrets.control_character("a\tb\x1b[2J\u202e", allowed="\t") == "\x1b"
    assert secrets.control_character("\u202ex\x1b", allowed="\t\n") == "\u202e"


def test_display_redacts_before_cutting() -> None:
    shown = secrets.display("x" * 10 + TOKENS["github-ghp"])
    assert "A1b2" not in shown


def test_every_diagnostic_is_cleaned_where_it_is_made() -> None:
    token = TOKENS["hugging-face"]
    d = Diagnostic(
        Severity.ERROR, "x", f"env_vars.{token}", 1, 1, f"key '{token}'\x1b[2J", f"hint {token}"
    )
    assert (d.path, d.message, d.hint) == ("env_vars.***", "key '***'\\x1b[2J", "hint ***")


def test_environment_redactor_masks_secret_variables_of_eight_characters_or_more() -> None:
    redact = secrets.environment_redactor(
        {"HF_TOKEN": "12345678", "API_KEY": "1234567", "HOME": "abcdefghij"}
    )
    assert redact("12345678 1234567 abcdefghij") == "*** 1234567 abcdefghij"
    assert secrets.MIN_SECRET_VALUE == 8
