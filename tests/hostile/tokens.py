"""Fake credentials of every format the tool recognises, built at run time.

Each token carries a distinctive middle part (:attr:`Token.middle`) that no
other text in a run contains: finding it anywhere means a byte of the token leaked,
even when the rest was cut or escaped.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"


@dataclass(frozen=True)
class Token:
    kind: str
    value: str
    middle: str
    needs_key_name: bool = False
    """Only a credential under a key-like name (a W&B key is 40 hex, like a commit)."""


def _body(rng: random.Random, size: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def _jwt(rng: random.Random) -> str:
    def part(data: dict[str, str]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    claims = {"sub": _body(rng, 24), "name": _body(rng, 12)}
    return part({"alg": "HS256", "typ": "JWT"}) + "." + part(claims) + "." + _body(rng, 43)


def _pem(rng: random.Random) -> str:
    label = "RSA " + "PRIVATE KEY"
    return f"-----BEGIN {label}-----" + _body(rng, 64, ALNUM + "+/") + f"-----END {label}-----"


MAKERS: dict[str, Callable[[random.Random], str]] = {
    "hugging-face": lambda r: "hf_" + _body(r, 34),
    "github-ghp": lambda r: "ghp_" + _body(r, 36),
    "github-gho": lambda r: "gho_" + _body(r, 36),
    "github-ghu": lambda r: "ghu_" + _body(r, 36),
    "github-ghs": lambda r: "ghs_" + _body(r, 36),
    "github-ghr": lambda r: "ghr_" + _body(r, 36),
    "github-fine-grained": lambda r: "github_pat_" + _body(r, 22) + "_" + _body(r, 59),
    "gitlab": lambda r: "glpat-" + _body(r, 20, URLSAFE),
    "aws-akia": lambda r: "AKIA" + _body(r, 16, UPPER),
    "aws-asia": lambda r: "ASIA" + _body(r, 16, UPPER),
    "google": lambda r: "AIza" + _body(r, 35, URLSAFE),
    "slack": lambda r: "xoxb-" + _body(r, 11, string.digits) + "-" + _body(r, 24, ALNUM.lower()),
    "openai": lambda r: "sk-" + _body(r, 48),
    "openai-project": lambda r: "sk-proj-" + _body(r, 48, URLSAFE),
    "anthropic": lambda r: "sk-ant-api03-" + _body(r, 93, URLSAFE),
    "ngc": lambda r: "nvapi-" + _body(r, 64, URLSAFE),
    "jwt": _jwt,
    "pem": _pem,
    "wandb": lambda r: _body(r, 40, "0123456789abcdef"),
}
KINDS = sorted(MAKERS)


def make(kind: str, seed: int) -> Token:
    value = MAKERS[kind](random.Random(f"{kind}-{seed}"))
    third = len(value) // 3
    middle = value[third : 2 * third] if kind != "pem" else value.split("-----")[2][16:40]
    return Token(kind, value, middle, needs_key_name=kind == "wandb")
