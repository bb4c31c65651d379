"""Names and paths that end up on ``#SBATCH`` lines and in job scripts: job names,
Slurm words (account, partition) and job directories, each matched in full (a
trailing newline is not a name)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from automodel_launch.config.types import fail, kind, not_text, show

# --------------------------------------------------------------------------- names
_JOB_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+@-]*$")
_SLURM_WORD = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.,+@%=-]*$")


def _job_name(value: Any) -> str:
    if not isinstance(value, str):
        not_text("job_name", value)
    if not _JOB_NAME.fullmatch(value) or len(value) > 200:
        fail(
            "invalid-job-name",
            f"job name {show(value)} has whitespace, shell metacharacters or is empty",
            "use letters, digits, '_', '-', '.' (e.g. llm_finetune)",
        )
    return value


JobName = Annotated[
    str,
    BeforeValidator(_job_name),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": _JOB_NAME.pattern,
            "maxLength": 200,
            "patternErrorMessage": "letters, digits, '_', '-', '.': no spaces or shell characters",
        }
    ),
]


def _slurm_word(value: Any) -> str:
    if not isinstance(value, str):
        not_text("a Slurm name", value, "invalid-slurm-word")
    if not _SLURM_WORD.fullmatch(value):
        fail(
            "invalid-slurm-word",
            f"{show(value)} cannot be an #SBATCH value (spaces, quotes, '#' or shell characters)",
            "use the plain name, e.g. batch",
        )
    return value


SlurmWord = Annotated[
    str,
    BeforeValidator(_slurm_word),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": _SLURM_WORD.pattern,
            "patternErrorMessage": "a plain Slurm name: no spaces, quotes or '#'",
        }
    ),
]


# --------------------------------------------------------------------------- job directory
_UNSAFE_CHARS = r"""\s\x00-\x1f\x7f#%"'\\$`;&|<>(){}*?!\[\]"""
"""A character class body read alike by Python and JSON Schema (ECMAScript) regexes."""
_UNSAFE_PATH = re.compile(f"[{_UNSAFE_CHARS}]")
SAFE_PATH_PATTERN = f"^[^{_UNSAFE_CHARS}]+$"
"""A path :func:`unsafe_path_char` accepts, for JSON Schema."""
JOB_DIR_ADVICE = "choose a path of letters, digits, '/', '_', '-', '.' ('~/' is expanded)"


def unsafe_path_char(path: str) -> str | None:
    """The first character of ``path`` a job script or an ``#SBATCH`` line cannot carry.

    The one rule for job directories: the ``job_dir`` fields use it on the text written
    in the config, :func:`automodel_launch.jobdir.check_job_dir` on the final path.
    """
    bad = _UNSAFE_PATH.search(path)
    return bad.group() if bad else None


def _job_dir(value: Any) -> str:
    if not isinstance(value, str) or not value:
        fail("invalid-job-dir", f"job_dir must be a path, not {kind(value)}", JOB_DIR_ADVICE)
    bad = unsafe_path_char(value)
    if bad is not None:
        advice = JOB_DIR_ADVICE
        if "${" in value or bad == "$":
            advice = "write the directory itself: a ${VAR} is not expanded here; " + advice
        fail(
            "invalid-job-dir",
            f"job_dir {show(value)} contains {bad!r}, which an #SBATCH line cannot carry safely",
            advice,
        )
    return value


JobDirText = Annotated[
    str,
    BeforeValidator(_job_dir),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": SAFE_PATH_PATTERN,
            "patternErrorMessage": "a plain path: no spaces, quotes, '$', '#', '%' or "
            "shell characters",
        }
    ),
]
"""Where job directories are created; the rule :func:`unsafe_path_char` states."""
