"""What is a credential, and how any text the tool writes is cleaned of one.

The one place that decides it: which variable names and recipe keys name a secret,
which values are shaped like a token, and redaction (this file's known secret values,
longest first, then every token shape). Every writer goes through it: diagnostics
(:class:`automodel_launch.diagnostics.Diagnostic`), reports, rendered files and
command-line messages. Standard library only: it runs on every ``validate``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache

MASK = "***"

# ------------------------------------------------------------------ names
_ENV_SECRET_WORDS = frozenset(
    {"TOKEN", "KEY", "APIKEY", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
     "CREDENTIAL", "CREDENTIALS", "AUTH", "PAT", "WEBHOOK"}
)  # fmt: skip
_ENV_SECRET_ENDINGS = ("TOKEN", "APIKEY", "PASSWORD")

_KEY_SECRET_WORDS = frozenset(
    {"secret", "secrets", "password", "passwd", "passphrase", "credential", "credentials",
     "apikey", "accesskey", "privatekey"}
)  # fmt: skip
_KEY_QUALIFIERS = frozenset(
    {"api", "access", "secret", "private", "auth", "wandb", "signing", "encryption", "client",
     "license", "openai", "anthropic", "hf", "huggingface", "ngc", "google", "aws", "github",
     "gh", "gitlab", "slack", "bearer", "refresh", "session", "oauth", "bot", "personal",
     "hub", "security", "service"}
)  # fmt: skip
"""Words that make a trailing ``key``/``token``/``pat`` a credential (``api_key``,
``hf_token``); alone, ``key`` is a mapping key and ``pad_token`` a tokenizer word."""
_WORD_BREAK = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def is_secret_name(name: str) -> bool:
    """An environment variable name that holds a credential (``HF_TOKEN``, ``DB_PASSWORD``)."""
    upper = name.upper()
    return bool(set(upper.split("_")) & _ENV_SECRET_WORDS) or upper.endswith(_ENV_SECRET_ENDINGS)


@lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """A recipe key that names a credential (``api_key``, ``password``, ``hf_token``, ``token``).

    Stricter than :func:`is_secret_name`: recipes are full of ``tokenizer``,
    ``pad_token``, ``max_tokens``, ``num_key_value_heads`` and ``keys`` that are not.
    """
    words = [w.lower() for w in _WORD_BREAK.split(key) if w]
    if not words:
        return False
    if _KEY_SECRET_WORDS & set(words):
        return True
    last, before = words[-1], words[:-1]
    if last == "token" and not before:
        return True
    if last in ("key", "token", "pat"):
        return bool(before) and before[-1] in _KEY_QUALIFIERS
    return False


# ------------------------------------------------------------------ values
_SLACK = "xox"
_SHAPES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("hf_",), r"hf_[A-Za-z0-9]{30,}"),  # Hugging Face
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9_]{30,}"),  # GitHub
    (("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,}"),  # GitHub fine-grained
    (("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-",
      "gloas-"),
     r"(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas)-[A-Za-z0-9_-]{20,}"),
    (("GR1348941",), r"GR1348941[A-Za-z0-9_-]{20,}"),  # GitLab runner registration
    (("A3T", "ABIA", "ACCA", "AKIA", "ASIA"),
     r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}"),  # AWS access key id
    (("AIza",), r"AIza[0-9A-Za-z_-]{35}"),  # Google API key
    ((_SLACK,), r"(?i:xox[abposr]-(?:\d+-)+[a-z0-9]+)|xox[abposr]-[A-Za-z0-9-]{10,}"),
    (("hooks.slack.com",),
     r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"),
    (("sk-",), r"sk-[A-Za-z0-9_-]{20,}"),  # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-)
    (("nvapi-",), r"nvapi-[A-Za-z0-9_-]{20,}"),  # NVIDIA NGC
    (("eyJ",), r"eyJ[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]+\.?[A-Za-z0-9_.+/=-]*"),  # JWT
    # PEM: the whole block when it ends within reach, else the rest of the line
    (("PRIVATE KEY",),
     r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END[A-Z0-9 ]*"
     r"PRIVATE KEY(?: BLOCK)?-----|[^\n]*)"),
    (("PRIVATE KEY", "PuTTY-User-Key-File-"),
     r"BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?|PuTTY-User-Key-File-\d"),
)  # fmt: skip
"""Each token shape, and the literals one of which it always holds (Slack's ``xox`` in
any letter case): a text holding none of a shape's literals skips its regular
expression, which is most of a recipe."""
_LITERALS = tuple(dict.fromkeys(literal for literals, _ in _SHAPES for literal in literals))


@cache
def _shape(index: int) -> re.Pattern[str]:
    """One shape, compiled the first time a text holds one of its literals."""
    return re.compile(_SHAPES[index][1])


@lru_cache(maxsize=1)
def _token() -> re.Pattern[str]:
    """Every shape as one pattern, compiled when a text holds a token (to mask it)."""
    return re.compile("|".join(pattern for _, pattern in _SHAPES))


_ASSIGNED = re.compile(
    r"(?i)(?:key|token|secret|passw(?:or)?d)[\w.-]*[\"']?\s*[:=]\s*[\"']?"
    r"(?P<secret>[0-9a-f]{40})(?![0-9a-f])"
)
"""A 40-hex value (a W&B key) given to a key-like name; alone it is a commit hash."""
_URL_PASSWORD = re.compile(r"://[^:/?#\[\]@\s]+:(?P<secret>(?!\$\{)[^:/?#\[\]@\s]+)@")
"""``scheme://user:password@host``."""


def looks_like_token(text: str) -> bool:
    """The text holds something shaped like a token, key or password in a URL."""
    return _short_looks_like_token(text) if len(text) <= 200 else _looks_like_token(text)


@lru_cache(maxsize=16384)
def _short_looks_like_token(text: str) -> bool:
    """Recipes repeat their keys and short values from file to file: asked once each."""
    return _looks_like_token(text)


def _looks_like_token(text: str) -> bool:
    if any(literal in text for literal in _LITERALS) or _SLACK in text.lower():
        for index, (literals, _) in enumerate(_SHAPES):
            if literals[0] == _SLACK:
                hinted = _SLACK in text.lower()
            else:
                hinted = any(literal in text for literal in literals)
            if hinted and _shape(index).search(text):
                return True
    if len(text) >= 40 and _ASSIGNED.search(text):
        return True
    return "://" in text and "@" in text and _URL_PASSWORD.search(text) is not None


def redact_tokens(text: str) -> str:
    """Every token-shaped part of ``text`` replaced with ``***``."""
    if not looks_like_token(text):
        return text
    text = _token().sub(MASK, text)
    for pattern in (_ASSIGNED, _URL_PASSWORD):
        text = pattern.sub(_mask_group, text)
    return text


def _mask_group(match: re.Match[str]) -> str:
    start, end = match.span("secret")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + MASK + whole[end - offset :]


class Redactor:
    """Removes known secret values (longest first, so a value that contains another
    goes whole), then every token shape. ``values`` may be a function giving them,
    called on first use."""

    def __init__(self, values: Iterable[str] | Callable[[], Iterable[str]] = ()) -> None:
        self._source = values
        self._values: tuple[str, ...] | None = None

    @property
    def values(self) -> tuple[str, ...]:
        if self._values is None:
            source = self._source() if callable(self._source) else self._source
            known = {v for v in source if len(v) >= 3}
            self._values = tuple(sorted(known, key=len, reverse=True))
        return self._values

    def __call__(self, text: str) -> str:
        for value in self.values:
            text = text.replace(value, MASK)
        return redact_tokens(text)


MIN_SECRET_VALUE = 8
"""Values of secret variables shorter than this are not masked in output: they would mask
ordinary words (``KEY=abc``)."""


def environment_redactor(environ: Mapping[str, str]) -> Redactor:
    """Token shapes and the values of ``environ``'s secret variables (``HF_TOKEN=...``):
    what every output stream of the tool masks."""
    return Redactor(
        lambda: [v for k, v in environ.items() if is_secret_name(k) and len(v) >= MIN_SECRET_VALUE]
    )


# ------------------------------------------------------------------ display
LONG_WORD = 120
WORD_HEAD, WORD_TAIL = 80, 40
LONG_TEXT = 600
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_WORD = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def control_character(text: str, allowed: str = "") -> str | None:
    """The first control character in ``text`` that is not in ``allowed``, else None."""
    for found in _CONTROL.finditer(text):
        if found.group() not in allowed:
            return found.group()
    return None


def escape_controls(text: str) -> str:
    """Control characters (ANSI/OSC escapes, newlines, bidi overrides) as visible escapes."""
    return _CONTROL.sub(lambda m: repr(m.group(0))[1:-1], text)


def shorten(text: str) -> str:
    """Words longer than ``LONG_WORD`` and texts longer than ``LONG_TEXT`` cut with '...'.

    A long word loses its middle: a long path keeps where it starts and its file's name."""
    text = _WORD.sub(lambda m: m.group(0)[:WORD_HEAD] + "..." + m.group(0)[-WORD_TAIL:], text)
    return text if len(text) <= LONG_TEXT else text[:LONG_TEXT] + "..."


def display(text: str) -> str:
    """Config-derived text made safe to print: no token, no control character, not huge."""
    return shorten(escape_controls(redact_tokens(text)))
