"""What each rank runs, and where the job config sits.

The default is AutoModel's own entry point, the one the selected release has
(``automodel_version``, :mod:`automodel_launch.automodel.versions`): from 0.4.0 the CLI
that reads the recipe from the config's ``recipe:`` key (``-m nemo_automodel.cli.app
CONFIG``); before, the one the seed describes, which names it on the command line
(``-m nemo_automodel._cli.app finetune llm -c CONFIG``). ``--entry`` replaces it with any
module or script.

Command-line values written into a job (``--entry``, ``--command``, ``--domain``, the
job directory, the config path) are refused when they hold a credential: a script is
no place for one, and the error tells where it goes instead.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from automodel_launch.automodel.versions import entry_form, entry_module
from automodel_launch.errors import UsageError
from automodel_launch.render.shell import quote
from automodel_launch.secrets import looks_like_token

CONFIG_TOKEN = "{config}"


@dataclass(frozen=True)
class Entry:
    """torchrun's program and arguments (``-m MODULE ...`` or ``SCRIPT ...``)."""

    argv: tuple[str, ...]
    single: tuple[str, ...]
    """The same program for one process without torchrun."""

    def words(self, config_word: str, *, single: bool = False) -> list[str]:
        """Shell words, each ``{config}`` replaced by ``config_word`` (already a shell word)."""
        return [_substitute(part, config_word) for part in (self.single if single else self.argv)]


def _substitute(part: str, config_word: str) -> str:
    pieces = part.split(CONFIG_TOKEN)
    return config_word.join(quote(p) if p else "" for p in pieces) or "''"


class EntryError(UsageError, ValueError):
    """A command-line value that cannot go into a job: an ``--entry`` that is no command
    line (empty, an unclosed quote), or any value holding a credential."""


def refuse_credential(what: str, text: str) -> None:
    """:class:`EntryError` (never quoting ``text``) when ``text`` holds a token."""
    if looks_like_token(text):
        raise EntryError(
            f"{what} holds a credential, which would be written into the job; pass it "
            "through the environment instead (env_vars: NAME: ${NAME}, set where you submit)"
        )


def default_entry(version: str, command: str = "finetune", domain: str = "llm") -> Entry:
    refuse_credential("--command", command)
    refuse_credential("--domain", domain)
    module = entry_module(version)
    if entry_form(version) == "config":
        return Entry(("-m", module, CONFIG_TOKEN), ("automodel", CONFIG_TOKEN))
    return Entry(
        ("-m", module, command, domain, "-c", CONFIG_TOKEN),
        ("automodel", command, domain, "-c", CONFIG_TOKEN),
    )


def custom_entry(text: str) -> Entry:
    """``"-m pkg.train --config {config}"`` or ``"train.py {config}"``."""
    refuse_credential("--entry", text)
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise EntryError(f"the entry point is not a command line ({str(exc).lower()})") from None
    if not argv:
        raise EntryError("the entry point is empty")
    return Entry(argv, ("python3", *argv))


@dataclass(frozen=True)
class JobSpec:
    """Inputs a renderer needs besides the models."""

    entry: Entry
    job_dir: str = "."
    """Absolute job directory on the cluster (Slurm); a name is enough for SkyPilot."""
    source: str = "config.yaml"
    """The config file rendered, named in the artifact's header."""
    job_name: str = "llm_finetune"
    environ: dict[str, str] = field(default_factory=dict)
    """SkyPilot only: the submitting environment, for references resolved at submit time."""
    config_path: str | None = None
    """Interactive only: the config the ranks read, when no job directory is written."""
    array_tasks: int = 0
    """Slurm only: a job array of this many tasks (a sweep), each task reading the job
    config of its point (``points/$SLURM_ARRAY_TASK_ID`` under ``job_dir``)."""
    array_indexes: tuple[int, ...] = ()
    """Slurm arrays: the indexes of the array's tasks, its points' (empty: 0 to
    ``array_tasks - 1``); a sweep split into several arrays gives each its own points."""
    max_parallel: int | None = None
    """Slurm arrays: at most this many tasks run at once."""
    after: str | None = None
    """Slurm only: a ``--dependency`` on other jobs (``afterok:ID:ID``), from ``--after``."""
    code: str | None = None
    """Slurm only: the code snapshot the job runs instead of ``repo_root`` (absolute; a
    sweep's is at its top, beside ``points/``), :mod:`automodel_launch.snapshot`."""

    def __post_init__(self) -> None:
        refuse_credential("the job directory", self.job_dir)
        refuse_credential("the config path", self.source)
        refuse_credential("the job name", self.job_name)
        refuse_credential("the config path", self.config_path or "")
