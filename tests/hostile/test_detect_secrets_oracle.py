"""detect-secrets as the oracle: whatever its plugins flag in a line, we flag too.

detect-secrets is too slow to import on the validate path, so the package has its own
detector (:mod:`automodel_launch.secrets`); here the two are compared over generated
lines. Hypothesis draws token-like strings around every family's boundaries (prefix,
alphabet, length) and puts them in the places a config or comment holds them. The
entropy and keyword plugins are left out: they judge any quoted string or any
``password = ...`` by its text, where the tool judges by the structure (a secret-named
key or variable; see ``tests/config/test_environment.py``).
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from automodel_launch.secrets import looks_like_token, redact_tokens
from tests.hostile.tokens import KINDS, make

ds_scan = pytest.importorskip("detect_secrets.core.scan")
ds_settings = pytest.importorskip("detect_secrets.settings")

NOT_ORACLES = {"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector"}

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
FAMILIES: dict[str, tuple[str, int]] = {
    # prefix -> (alphabet of the body, its usual length); lengths are drawn around it
    "ghp_": (ALNUM + "_", 36),
    "gho_": (ALNUM + "_", 36),
    "ghu_": (ALNUM + "_", 36),
    "ghs_": (ALNUM + "_", 36),
    "ghr_": (ALNUM + "_", 36),
    "github_pat_": (ALNUM + "_", 82),
    "glpat-": (ALNUM + "_-", 20),
    "gldt-": (ALNUM + "_-", 20),
    "glrt-": (ALNUM + "_-", 20),
    "glsoat-": (ALNUM + "_-", 20),
    "glcbt-": (ALNUM + "_-", 20),
    "glimt-": (ALNUM + "_-", 25),
    "glptt-": (ALNUM + "_-", 40),
    "GR1348941": (ALNUM + "_-", 20),
    "AKIA": (UPPER, 16),
    "ASIA": (UPPER, 16),
    "ABIA": (UPPER, 16),
    "ACCA": (UPPER, 16),
    "A3TX": (UPPER, 16),
    "AIza": (ALNUM + "_-", 35),
    "nvapi-": (ALNUM + "_-", 64),
    "hf_": (ALNUM, 34),
}


@st.composite
def _family(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(sorted(FAMILIES)))
    alphabet, size = FAMILIES[prefix]
    length = max(1, size + draw(st.integers(-4, 4)))
    return prefix + draw(st.text(alphabet=alphabet, min_size=length, max_size=length))


@st.composite
def _slack(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from("abposrABP"))
    numbers = draw(
        st.lists(st.text(string.digits, min_size=1, max_size=13), min_size=1, max_size=3)
    )
    tail = draw(st.text(string.ascii_letters + string.digits, min_size=1, max_size=32))
    return f"xox{kind}-" + "".join(n + "-" for n in numbers) + tail


@st.composite
def _openai(draw: st.DrawFn) -> str:
    def part(size: int) -> str:
        return draw(st.text(ALNUM, min_size=size, max_size=size))

    project = draw(st.sampled_from(["", "proj-", "svcacct-", "None-"]))
    return f"sk-{project}{part(20)}T3BlbkFJ{part(20)}"


@st.composite
def _jwt(draw: st.DrawFn) -> str:
    import base64
    import json

    def part(data: object) -> str:
        encoded = base64.urlsafe_b64encode(json.dumps(data).encode()).decode()
        return encoded.rstrip("=") if draw(st.booleans()) else encoded

    claims = draw(st.dictionaries(st.text(ALNUM, max_size=5), st.text(ALNUM, max_size=12)))
    signature = draw(st.text(ALNUM + "_-", max_size=43))
    return part({"alg": "HS256"}) + "." + part(claims) + "." + signature


@st.composite
def _private_key(draw: st.DrawFn) -> str:
    label = draw(st.sampled_from(["", "RSA ", "EC ", "DSA ", "OPENSSH ", "SSH2 ENCRYPTED "]))
    dashes = draw(st.sampled_from(["", "-----"]))
    return f"{dashes}BEGIN {label}PRIVATE KEY{dashes}"


def token_like() -> st.SearchStrategy[str]:
    return st.one_of(_family(), _family(), _family(), _slack(), _openai(), _jwt(), _private_key())


CONTEXTS = [
    "{t}",
    "key: {t}",
    "  hf_token: '{t}'",
    '    NAME: "{t}"',
    "# old: {t}",
    "export TOKEN={t}",
    "url: https://example.com/x?token={t}&y=1",
    "- /data/{t}:/data",
    "{t}: value",
    "run: echo {t} | login",
]


@contextmanager
def _plugins() -> Iterator[None]:
    with ds_settings.default_settings() as configured:
        for name in NOT_ORACLES:
            configured.disable_plugins(name)
        yield


def flagged_by_detect_secrets(line: str) -> list[str]:
    with _plugins():
        return [found.type for found in ds_scan.scan_line(line)]


@settings(max_examples=400, deadline=None)
@given(token=token_like(), context=st.sampled_from(CONTEXTS))
@example(token="ghp_" + "_" * 36, context="{t}")
@example(token="xoxb-" + "1-a", context="{t}")
@example(token="glpat-" + "a" * 20, context="{t}")
@example(token="ABIA" + "A" * 16, context="{t}")
def test_whatever_detect_secrets_flags_we_flag(token: str, context: str) -> None:
    line = context.format(t=token)
    found = flagged_by_detect_secrets(line)
    if found:
        assert looks_like_token(line), (line, found)
        assert redact_tokens(line) != line


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("context", CONTEXTS)
def test_every_generated_format_is_flagged_in_every_context(kind: str, context: str) -> None:
    token = make(kind, 1)
    value = f"WANDB_API_KEY={token.value}" if token.needs_key_name else token.value
    line = context.format(t=value)
    assert looks_like_token(line)
    assert token.middle not in redact_tokens(line)


def test_the_oracle_is_awake() -> None:
    """The plugins we compare with do flag the formats they know."""
    assert flagged_by_detect_secrets("x = " + make("github-ghp", 2).value)
    assert flagged_by_detect_secrets("x = " + make("aws-akia", 2).value)
    assert flagged_by_detect_secrets("x = " + make("jwt", 2).value)
