"""automodel_launch/config/environment.py: ${VAR} references and secrets in launcher sections.

A value is literal text except its ``${VAR}`` references; ``$VAR`` stays literal (warned),
``$(...)`` and backticks are never run (warned), a malformed ``${`` is an error, and a
credential written into the file is an error whose diagnostics never repeat the value.
"""

from __future__ import annotations

import pytest

from automodel_launch.diagnostics import Diagnostic
from tests.conftest import Validate, brief

REFERENCE_HINT = "write ${NAME}, ${NAME,default} or ${oc.env:NAME,default}"


def env_section(launcher: str, entries: str) -> str:
    head = "skypilot:\n  cloud: aws\n" if launcher == "skypilot" else "slurm:\n"
    return head + "  env_vars:\n" + "".join(f"    {line}\n" for line in entries.splitlines())


def line_of_env(launcher: str) -> int:
    """The line of the first env_vars entry in :func:`env_section`."""
    return 4 if launcher == "skypilot" else 3


LAUNCHERS = pytest.mark.parametrize("launcher", ["slurm", "skypilot"])


# ------------------------------------------------------------------ names
@LAUNCHERS
@pytest.mark.parametrize("name", ["HF_HOME", "_PRIVATE", "a", "NCCL_DEBUG", "X1", "lower_case"])
def test_valid_names(validate: Validate, launcher: str, name: str) -> None:
    assert validate(env_section(launcher, f"{name}: x")) == []


@LAUNCHERS
@pytest.mark.parametrize("name", ["1BAD", '"BAD-NAME"', '"A B"', '"A.B"', '"$A"', '""', '"É"'])
def test_invalid_names(validate: Validate, launcher: str, name: str) -> None:
    diags = validate(env_section(launcher, f"{name}: x"))
    line = line_of_env(launcher)
    shown = name.strip('"')
    assert brief(diags) == [f"{line}:5 error[invalid-env-name] {launcher}.env_vars.{shown}"]
    assert diags[0].message == f"'{shown}' is not an environment variable name"
    assert diags[0].hint == (
        "names are letters, digits and '_', not starting with a digit (e.g. HF_HOME)"
    )


def test_a_number_as_name(validate: Validate) -> None:
    diags = validate("slurm:\n  env_vars:\n    123: x\n")
    assert brief(diags) == [
        "3:5 error[key-not-text] slurm.env_vars.123",  # PyYAML reads 123, and AutoModel fails
        "3:5 error[invalid-env-name] slurm.env_vars.123",
    ]


# ------------------------------------------------------------------ values
@LAUNCHERS
@pytest.mark.parametrize(
    "value",
    [
        "plain text",
        '"${HF_HOME}"',
        '"${HF_HOME}/hub"',
        '"${X,default}"',
        '"${X,}"',
        '"${oc.env:Y,fallback}"',
        '"${oc.env:Y}"',
        '"run-${SLURM_JOB_ID}"',
        '"${A}${B}"',
        "1",
        "0.5",
        "true",
        '"$$"',
        '"100$"',
        '"a $ b"',
        r"'\$HOME'",
    ],
)
def test_accepted_values(validate: Validate, launcher: str, value: str) -> None:
    assert validate(env_section(launcher, f"A: {value}")) == []


@LAUNCHERS
@pytest.mark.parametrize(
    ("value", "name"),
    [("$HOME/x", "HOME"), ('"${A}:$B"', "B"), ('"x$PATH"', "PATH")],
)
def test_a_bare_dollar_reference_is_not_expanded(
    validate: Validate, launcher: str, value: str, name: str
) -> None:
    diags = validate(env_section(launcher, f"A: {value}"))
    line = line_of_env(launcher)
    assert brief(diags) == [f"{line}:8 warning[bare-env-reference] {launcher}.env_vars.A"]
    assert diags[0].message == (
        f"${name} is not expanded: the value keeps the literal text '${name}'"
    )
    assert diags[0].hint == f"write ${{{name}}} to use the variable"


def test_each_bare_reference_is_reported(validate: Validate) -> None:
    assert brief(validate(env_section("slurm", 'A: "$X $Y"'))) == [
        "3:8 warning[bare-env-reference] slurm.env_vars.A",
        "3:8 warning[bare-env-reference] slurm.env_vars.A",
    ]


@LAUNCHERS
@pytest.mark.parametrize("value", ['"$(hostname)"', '"`hostname`"', '"a-$(date +%s)"'])
def test_command_substitution_stays_literal(validate: Validate, launcher: str, value: str) -> None:
    diags = validate(env_section(launcher, f"A: {value}"))
    line = line_of_env(launcher)
    assert brief(diags) == [f"{line}:8 warning[command-substitution] {launcher}.env_vars.A"]
    assert diags[0].message == "$(...) and backticks are never run: they stay literal text"
    assert diags[0].hint == "compute the value before submitting and pass it as ${NAME}"


@LAUNCHERS
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ('"${"', "${"),
        ('"${X"', "${X"),
        ('"${}"', "${}"),
        ('"${1X}"', "${1X}"),
        ('"${A B}"', "${A B}"),
        ('"${X:-default}"', "${X:-default}"),
        ('"${oc.env:}"', "${oc.env:}"),
        ('"${env:X}"', "${env:X}"),
        ('"pre ${X"', "${X"),
    ],
)
def test_malformed_references(validate: Validate, launcher: str, value: str, shown: str) -> None:
    diags = validate(env_section(launcher, f"A: {value}"))
    line = line_of_env(launcher)
    assert brief(diags) == [f"{line}:8 error[invalid-env-reference] {launcher}.env_vars.A"]
    assert diags[0].message == f"'{shown}' is not a valid reference"
    assert diags[0].hint == REFERENCE_HINT


def test_references_are_checked_in_every_text_field(validate: Validate) -> None:
    text = """\
        slurm:
          repo_root: "${JOBS"
          hf_home: $HF/x
          extra_mounts:
            - "${DATA:/data"
    """
    assert brief(validate(text)) == [
        "2:14 error[invalid-env-reference] slurm.repo_root",
        "3:12 warning[bare-env-reference] slurm.hf_home",
        "5:7 error[invalid-env-reference] slurm.extra_mounts[0]",
    ]


def test_skypilot_setup_is_shell_text(validate: Validate) -> None:
    text = """\
        skypilot:
          cloud: aws
          setup: |
            pip install nemo-automodel
            echo $HOME `date` $(whoami) ${X
    """
    assert validate(text) == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("null", "an environment value must be text, not null"),
        ("[1, 2]", "an environment value must be text, not a list"),
        ("{a: 1}", "an environment value must be text, not a mapping"),
    ],
)
def test_values_must_be_scalars(validate: Validate, value: str, message: str) -> None:
    diags = validate(env_section("slurm", f"A: {value}"))
    assert brief(diags) == ["3:8 error[wrong-type] slurm.env_vars.A"]
    assert diags[0].message == message


def test_env_vars_must_be_a_mapping(validate: Validate) -> None:
    assert brief(validate("slurm:\n  env_vars: [A=1]\n")) == [
        "2:13 error[wrong-type] slurm.env_vars"
    ]


# ------------------------------------------------------------------ secrets
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
OPENAI = "sk-" + "abcdefghijklmnopqrstuvwxyz012345"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS = "AKIA" + "ABCDEFGHIJKLMNOP"
SLACK = "xoxb-" + "1234567890-abcdef"
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----"


@LAUNCHERS
@pytest.mark.parametrize("field", ["hf_token", "wandb_key"])
@pytest.mark.parametrize("value", [HF, "0123456789abcdef0123456789abcdef", "x", '"${X,default}"'])
def test_token_fields_must_be_references(
    validate: Validate, launcher: str, field: str, value: str
) -> None:
    diags = validate(
        ("skypilot:\n  cloud: aws\n" if launcher == "skypilot" else "slurm:\n")
        + f"  {field}: {value}\n"
    )
    line = 3 if launcher == "skypilot" else 2
    assert brief(diags) == [
        f"{line}:{len(field) + 5} error[secret-in-plain-text] {launcher}.{field}"
    ]
    assert diags[0].message == "a credential is written into the config file"
    assert diags[0].hint == (
        "write a reference such as ${HF_TOKEN} and set the variable where you submit"
    )


@LAUNCHERS
def test_token_fields_as_references_are_fine(validate: Validate, launcher: str) -> None:
    head = "skypilot:\n  cloud: aws\n" if launcher == "skypilot" else "slurm:\n"
    assert validate(head + "  hf_token: ${HF_TOKEN}\n  wandb_key: ${WANDB_API_KEY}\n") == []
    assert validate(head + "  hf_token: null\n") == []


@LAUNCHERS
@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "WANDB_API_KEY",
        "DB_PASSWORD",
        "MY_SECRET",
        "GITHUB_PAT",
        "AUTH",
        "APIKEY",
        "OPENAI_APIKEY",
        "HUGGINGFACEHUBTOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "SSH_PASSPHRASE",
        "GCP_CREDENTIALS",
    ],
)
def test_secret_named_variables_with_literal_values(
    validate: Validate, launcher: str, name: str
) -> None:
    diags = validate(env_section(launcher, f"{name}: s3cr3t-value"))
    line = line_of_env(launcher)
    col = len(name) + 7
    assert brief(diags) == [f"{line}:{col} error[secret-in-plain-text] {launcher}.env_vars.{name}"]
    assert diags[0].message == f"{name} holds a credential written into the config file"
    assert diags[0].hint == f"write {name}: ${{{name}}} and set {name} where you submit"


@LAUNCHERS
@pytest.mark.parametrize("value", ['"${HF_TOKEN}"', '"${OTHER}"', '""', "$HF_TOKEN"])
def test_secret_named_variables_that_only_reference(
    validate: Validate, launcher: str, value: str
) -> None:
    diags = validate(env_section(launcher, f"HF_TOKEN: {value}"))
    assert [d.code for d in diags if d.code == "secret-in-plain-text"] == []


@pytest.mark.parametrize(
    "name", ["TOKENIZERS_PARALLELISM", "KEYBOARD", "MONKEY", "HF_HOME", "NCCL_DEBUG", "PATH"]
)
def test_names_that_only_look_like_secrets(validate: Validate, name: str) -> None:
    assert validate(env_section("slurm", f"{name}: value")) == []


@LAUNCHERS
@pytest.mark.parametrize("token", [HF, OPENAI, GITHUB, AWS, SLACK, PEM])
def test_token_looking_values_under_any_name(validate: Validate, launcher: str, token: str) -> None:
    diags = validate(env_section(launcher, f'NOT_SENSITIVE: "{token}"'))
    line = line_of_env(launcher)
    assert brief(diags) == [
        f"{line}:20 error[secret-in-plain-text] {launcher}.env_vars.NOT_SENSITIVE"
    ]


@pytest.mark.parametrize("field", ["job_dir", "hf_home", "repo_root"])
def test_token_looking_values_in_other_fields(validate: Validate, field: str) -> None:
    diags = validate(f"slurm:\n  {field}: /data/{HF}\n")
    assert brief(diags) == [f"2:{len(field) + 5} error[secret-in-plain-text] slurm.{field}"]
    assert diags[0].message == "this value looks like a credential"
    assert diags[0].hint == "keep credentials out of the file: reference them as ${NAME}"


def test_token_looking_values_in_skypilot_setup(validate: Validate) -> None:
    text = f"skypilot:\n  cloud: aws\n  setup: huggingface-cli login --token {HF}\n"
    assert brief(validate(text)) == ["3:10 error[secret-in-plain-text] skypilot.setup"]


def test_a_token_inside_a_mount_list(validate: Validate) -> None:
    assert brief(validate(f"slurm:\n  extra_mounts:\n    - /a/{HF}:/b\n")) == [
        "3:7 error[secret-in-plain-text] slurm.extra_mounts[0]"
    ]


# ------------------------------------------------------------------ secrets are never echoed
def _echoes(diags: list[Diagnostic], secret: str) -> list[str]:
    return [
        f"{d.code}: {d.message} / {d.hint}"
        for d in diags
        if secret in d.message or (d.hint is not None and secret in d.hint)
    ]


SECRET_CASES = [
    pytest.param(f"slurm:\n  hf_token: {HF}\n", HF, id="hf_token"),
    pytest.param(f"slurm:\n  wandb_key: {HF}\n", HF, id="wandb_key"),
    pytest.param(f'slurm:\n  hf_token: "${{HF_TOKEN,{HF}}}"\n', HF, id="hf_token-default"),
    pytest.param(f"skypilot:\n  cloud: aws\n  hf_token: {HF}\n", HF, id="skypilot-hf_token"),
    pytest.param("slurm:\n  env_vars:\n    HF_TOKEN: hunter2hunter2\n", "hunter2", id="env-name"),
    pytest.param(f"slurm:\n  env_vars:\n    X: {OPENAI}\n", OPENAI, id="env-value"),
    pytest.param(f"slurm:\n  job_dir: /x/{GITHUB}\n", GITHUB, id="other-field"),
    pytest.param(f"slurm:\n  env_vars:\n    HF_TOKEN: {HF} $(cat)\n", HF, id="with-cmd"),
    pytest.param(
        f'slurm:\n  job_name: "{HF} x"\n',
        HF,
        id="bad-job-name",
    ),
    pytest.param(
        "slurm:\n  env_vars:\n    DB_PASSWORD: p$ssw0rd\n",
        "ssw0rd",
        id="password-with-dollar",
    ),
    pytest.param(
        "slurm:\n  env_vars:\n    API_KEY: abc${def9876\n",
        "def9876",
        id="key-with-brace",
    ),
    pytest.param(
        "slurm:\n  env_vars:\n    DB_PASSWORD: 0123456\n",
        "0123456",
        id="numeric-password-trap",
    ),
]


@pytest.mark.parametrize(("text", "secret"), SECRET_CASES)
def test_the_secret_value_never_appears_in_a_diagnostic(
    validate: Validate, text: str, secret: str
) -> None:
    diags = validate(text)
    assert diags, "the secret must be reported"
    assert _echoes(diags, secret) == []


def test_a_numeric_value_under_a_secret_name_is_flagged(validate: Validate) -> None:
    assert brief(validate("slurm:\n  env_vars:\n    DB_PASSWORD: 12345678\n")) == [
        "3:18 error[secret-in-plain-text] slurm.env_vars.DB_PASSWORD"
    ]


def test_a_credential_in_a_recipe_section_is_a_warning_when_validating(validate: Validate) -> None:
    text = (
        "wandb:\n  api_key: hf_"
        + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n  project: ${WANDB_PROJECT}\n"
    )
    diags = validate(text)
    assert brief(diags) == ["2:12 warning[secret-in-recipe] wandb.api_key"]
    assert all("AbCdEfGh" not in d.message for d in diags)


@LAUNCHERS
def test_a_token_shaped_variable_name_is_an_error(validate: Validate, launcher: str) -> None:
    token = "ghp_" + "N4m3N4m3" * 5
    diags = validate(env_section(launcher, f"{token}: x"))
    line = line_of_env(launcher)
    assert brief(diags) == [f"{line}:5 error[secret-in-plain-text] {launcher}.env_vars.***"]
    assert diags[0].message == "this variable name looks like a credential"


@LAUNCHERS
@pytest.mark.parametrize(("escaped", "shown"), [("\\e]0;x\\a", "\\x1b"), ("a\\u202eb", "\\u202e")])
def test_a_terminal_escape_in_a_launcher_value_is_an_error(
    validate: Validate, launcher: str, escaped: str, shown: str
) -> None:
    diags = validate(env_section(launcher, f'A: "{escaped}"'))
    assert brief(diags) == [
        f"{line_of_env(launcher)}:8 error[control-character] {launcher}.env_vars.A"
    ]
    assert diags[0].message == (
        f"this value holds the control character '{shown}', which the script (and a terminal "
        "printing it) would receive raw"
    )


def test_tabs_and_newlines_stay_allowed(validate: Validate) -> None:
    assert validate('slurm:\n  env_vars:\n    A: "a\\tb\\nc"\n') == []
