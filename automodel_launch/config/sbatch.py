"""Values of the sbatch options people use: each checked the way sbatch reads it.

sbatch reads an ``#SBATCH`` line as words: whitespace ends a value, quotes are removed
and ``#`` starts a comment, even inside a word (checked with ``sbatch -vv`` on Slurm
22.05). A value with any of them would reach Slurm cut short, so none is accepted.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from automodel_launch.config.names import SAFE_PATH_PATTERN, unsafe_path_char
from automodel_launch.config.types import fail, kind, not_text, show


def _text(value: Any, name: str, code: str) -> str:
    if not isinstance(value, str):
        not_text(name, value, code)
    return value


# --------------------------------------------------------------------------- constraint
_FEATURES = re.compile(r"^[A-Za-z0-9_.:+@=&|,*!\[\]()-]+$")


def _constraint(value: Any) -> str:
    text = _text(value, "constraint", "invalid-constraint")
    if not _FEATURES.fullmatch(text) or text.count("[") != text.count("]"):
        fail(
            "invalid-constraint",
            f"{show(text)} is not a Slurm feature expression",
            "join node features with '&' (and), '|' (or), e.g. a100&ib or [rack1|rack2]; "
            "no spaces or quotes",
        )
    return text


Constraint = Annotated[
    str,
    BeforeValidator(_constraint),
    WithJsonSchema({"type": "string", "pattern": _FEATURES.pattern}),
]


# --------------------------------------------------------------------------- memory
_MEMORY = re.compile(r"^[0-9]+[KMGT]?$")
_MEGABYTES = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024**2}
MAX_MEMORY_MB = 64 * 1024**2
"""64T: the largest single machines hold less memory."""


def _memory(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    text = _text(value, "mem", "invalid-memory")
    if not _MEMORY.fullmatch(text.strip()) or text != text.strip():
        fail(
            "invalid-memory",
            f"{show(text)} is not a Slurm memory size",
            "a number with an optional unit K, M, G or T (megabytes without one), e.g. 64G; "
            "0 asks for all the memory of each node",
        )
    digits = text.rstrip("KMGT")
    unit = text[-1] if text[-1] in _MEGABYTES else "M"
    if len(digits) > 12 or int(digits) * _MEGABYTES[unit] > MAX_MEMORY_MB:
        fail(
            "invalid-memory",
            f"{show(text)} per node is more than 64T: no node has that much memory",
            "a digit too many? M is megabytes, G gigabytes (64G); 0 asks for all of each node",
        )
    return text


MemorySize = Annotated[
    str,
    BeforeValidator(_memory),
    WithJsonSchema(
        {
            "type": ["string", "integer"],
            "pattern": _MEMORY.pattern,
            "minimum": 0,
            "examples": ["64G"],
        }
    ),
]


# --------------------------------------------------------------------------- mail
MAIL_TYPES = ("NONE", "BEGIN", "END", "FAIL", "REQUEUE", "ALL", "INVALID_DEPEND", "STAGE_OUT",
              "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50",
              "ARRAY_TASKS")  # fmt: skip


def _mail_types(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items:
        fail(
            "invalid-mail-type",
            "mail_type is an empty list",
            "write FAIL, or a list such as [END, FAIL]",
        )
    out: list[str] = []
    for item in items:
        text = _text(item, "mail_type", "invalid-mail-type")
        if text.upper() not in MAIL_TYPES:
            close = difflib.get_close_matches(text.upper(), MAIL_TYPES, n=1)
            fail(
                "invalid-mail-type",
                f"{show(text)} is not an sbatch --mail-type"
                + (f" (did you mean {close[0]}?)" if close else ""),
                "one of " + ", ".join(MAIL_TYPES),
            )
        if text.upper() not in out:
            out.append(text.upper())
    return out


_MAIL_TYPE_SCHEMA = {
    "type": "string",
    "pattern": "^("
    + "|".join("".join(f"[{c}{c.lower()}]" if c.isalpha() else c for c in t) for t in MAIL_TYPES)
    + ")$",
    "patternErrorMessage": "one of " + ", ".join(MAIL_TYPES) + " (any case)",
}
MailTypes = Annotated[
    list[str],
    BeforeValidator(_mail_types),
    WithJsonSchema(
        {"anyOf": [_MAIL_TYPE_SCHEMA, {"type": "array", "items": _MAIL_TYPE_SCHEMA, "minItems": 1}]}
    ),
]
"""One ``--mail-type`` value or a list; stored upper-case, rendered comma-joined."""

_ADDRESS = re.compile(r"^[A-Za-z0-9_.%+-]+(@[A-Za-z0-9_.-]+)?$")


def _mail_user(value: Any) -> str:
    text = _text(value, "mail_user", "invalid-mail-user")
    if not _ADDRESS.fullmatch(text):
        fail(
            "invalid-mail-user",
            f"{show(text)} is not a mail address or user name",
            "write an address such as jane@example.org",
        )
    return text


MailUser = Annotated[
    str,
    BeforeValidator(_mail_user),
    WithJsonSchema({"type": "string", "pattern": _ADDRESS.pattern}),
]


# --------------------------------------------------------------------------- dependency
_JOB = r"\d+(_\d+)?"
_CONDITION = re.compile(
    rf"singleton|after:{_JOB}(\+\d+)?(:{_JOB}(\+\d+)?)*"
    rf"|(afterany|afterok|afternotok|aftercorr|afterburstbuffer):{_JOB}(:{_JOB})*|{_JOB}(:{_JOB})*"
)
_ONE = f"({_CONDITION.pattern})"
DEPENDENCY_PATTERN = rf"^{_ONE}(,{_ONE})*$|^{_ONE}(\?{_ONE})*$"
"""Conditions joined by ',' (all must hold) or by '?' (any), never both."""
_DEPENDENCY = re.compile(DEPENDENCY_PATTERN)


def _dependency(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # a bare job id is afterany:ID to sbatch
    text = _text(value, "dependency", "invalid-dependency")
    if not _DEPENDENCY.fullmatch(text):
        fail(
            "invalid-dependency",
            f"{show(text)} is not an sbatch --dependency",
            "write TYPE:JOBID[:JOBID] with TYPE after, afterany, afterok, afternotok or "
            "aftercorr (e.g. afterok:123), or singleton; join several with ',' (all) or "
            "'?' (any), not both",
        )
    return text


Dependency = Annotated[
    str,
    BeforeValidator(_dependency),
    WithJsonSchema(
        {"type": ["string", "integer"], "pattern": DEPENDENCY_PATTERN, "examples": ["afterok:123"]}
    ),
]


# --------------------------------------------------------------------------- chdir
def _chdir(value: Any) -> str:
    text = _text(value, "chdir", "invalid-chdir")
    if not text:
        fail("invalid-chdir", "chdir is empty", "write the directory, or remove the key")
    if text.startswith("~"):
        fail("invalid-chdir", f"sbatch does not expand '~' in {show(text)}", "write the full path")
    if not text.startswith("/"):
        fail(
            "invalid-chdir",
            f"chdir {show(text)} is relative: sbatch would read it from the job directory, "
            "where `submit` runs it",
            "write the full path",
        )
    bad = unsafe_path_char(text)
    if bad is not None:
        fail(
            "invalid-chdir",
            f"chdir {show(text)} contains {bad!r}, which an #SBATCH line cannot carry",
            "choose a path of letters, digits, '/', '_', '-', '.'",
        )
    return text


ChdirPath = Annotated[
    str,
    BeforeValidator(_chdir),
    WithJsonSchema({"type": "string", "pattern": "^(?=/)" + SAFE_PATH_PATTERN[1:]}),
]


# --------------------------------------------------------------------------- shell text
def _shell_text(value: Any) -> str | None:
    text = _text(value, "command", "wrong-type")
    return text if text.strip() else None  # AutoModel's own default is "": no command


ShellText = Annotated[str | None, BeforeValidator(_shell_text), WithJsonSchema({"type": "string"})]
"""Shell text run as written; empty text means none (AutoModel's default ``""``)."""


def _setup(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, str):
            fail(
                "wrong-type",
                f"a setup line must be text, not {kind(item)}",
                "write shell lines such as 'module load cuda/12.4'",
            )
    # only "\n" ends a line, as in the shell (str.splitlines also splits at \x1e, \x85...)
    return [line for item in items for line in item.removesuffix("\n").split("\n")]


SetupLines = Annotated[
    list[str],
    BeforeValidator(_setup),
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
]
"""Shell text or a list of lines, stored as lines."""
