"""The edge of :mod:`automodel_launch.api`: what its functions take, and what leaves them.

A script hands the API values no option parser has read. Each function checks what it
is given before using it: an argument of a type it does not take, or a call its
signature does not fit, is an :class:`ArgumentError` (a
:class:`~automodel_launch.errors.UsageError`, and a ``TypeError``) that names the
argument and what it takes.

Every :class:`~automodel_launch.errors.LaunchError` leaves through :func:`edge` cleaned
as the command line prints one (:mod:`automodel_launch.cli.output`), through the funnel of
what leaves the tool (:func:`automodel_launch.written.returned_error`): the values of this
environment's secret variables and every token shape masked, control characters escaped. A
token pasted where a job's name belongs comes back as ``***``, in the message, the hint
and the exception's ``args``; the exceptions it was raised from are not chained to it
(their text is not cleaned). Messages are not shortened: that is for a terminal. An
``OSError`` from what an argument named (a path too long to look up) leaves as a
:class:`HostError`, so nothing but a LaunchError comes out of a bad argument.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from automodel_launch.errors import LaunchError, UsageError

if TYPE_CHECKING:
    import inspect

    from automodel_launch.commands.plan import Request
    from automodel_launch.commands.submit import Order
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.sweeps import Sweep
    from automodel_launch.profiles.overrides import Layers, Override
    from automodel_launch.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])


class ArgumentError(UsageError, TypeError):
    """An argument of a type the function does not take, or a call that does not fit its
    signature."""


class HostError(LaunchError):
    """The operating system refused what an argument asked for (a path too long to look
    up, a directory that cannot be read): what the command line reports with exit 3.
    ``errno``: the system's error number."""

    def __init__(self, exc: OSError) -> None:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        super().__init__(where + (exc.strerror or type(exc).__name__))
        self.errno = exc.errno


def edge(function: F) -> F:
    """``function`` with its call checked against its signature and its errors cleaned."""

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            signature(function).bind(*args, **kwargs)
        except TypeError as exc:
            raise cleaned(ArgumentError(f"api.{function.__name__}: {exc}")) from None
        try:
            return function(*args, **kwargs)
        except LaunchError as exc:
            raise cleaned(exc) from None
        except OSError as exc:
            raise cleaned(HostError(exc)) from None

    return cast(F, checked)


@functools.cache
def signature(function: Callable[..., Any]) -> inspect.Signature:
    """``function``'s signature, read when it is first called (importing the API reads
    nothing)."""
    import inspect

    return inspect.signature(function)


def cleaned(exc: LaunchError) -> LaunchError:
    """``exc`` with its message and hint as the command line would print them
    (:func:`automodel_launch.written.returned_error`)."""
    from automodel_launch.written import returned_error

    return returned_error(exc)


def wrong(name: str, takes: str, value: object) -> ArgumentError:
    return ArgumentError(f"{name} takes {takes}, not {type(value).__name__}")


def text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise wrong(name, "a text", value)
    return value


def optional_text(value: object, name: str) -> str | None:
    return None if value is None else text(value, name)


def script_text(value: object, name: str) -> str | None:
    """A text that reaches a script (``--entry``), as the command line checks it: no
    control character, which would end a script line."""
    from automodel_launch.secrets import control_character

    found = optional_text(value, name)
    if found is None:
        return None
    char = control_character(found)
    if char is not None:
        raise UsageError(
            f"{name}: it holds the control character {ord(char):#04x}, which no script line "
            "can carry"
        )
    return found


def path(value: object, name: str) -> Path:
    if not isinstance(value, (str, os.PathLike)):
        raise wrong(name, "a path (a text or a Path)", value)
    found = os.fspath(value)
    if not isinstance(found, str):
        raise wrong(name, "a path (a text or a Path)", found)
    return Path(found)


def optional_path(value: object, name: str) -> Path | None:
    return None if value is None else path(value, name)


def paths(value: object, name: str) -> list[Path]:
    """A list or tuple of paths (a path alone is refused: it is not a list of one)."""
    if isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Sequence):
        raise wrong(name, "a list of paths", value)
    return [path(item, f"each of {name}") for item in value]


def texts(value: object, name: str) -> list[str]:
    """A list or tuple of texts (a text alone is refused: it is not a list of one)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise wrong(name, "a list of texts", value)
    for item in value:
        text(item, f"each of {name}")
    return list(value)


def whole(value: object, name: str, *, at_least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong(name, "a whole number", value)
    if value < at_least:
        raise UsageError(f"{name} is at least {at_least}, not {value}")
    return value


def optional_whole(value: object, name: str) -> int | None:
    """A whole number, or None; its range is checked where the command line's is."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong(name, "a whole number or None", value)
    return value


def flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise wrong(name, "True or False", value)
    return value


def arguments(given: object, name: str, *, many: bool) -> list[str]:
    """``sets`` or ``sweep`` as the command line's texts: a list of them, or a mapping whose
    values (for ``sweep``: lists of values) are written as JSON, which YAML reads back."""
    import json

    if not isinstance(given, Mapping):
        return texts(given, name)
    written = []
    for key, value in given.items():
        key = text(key, f"each key of {name}")
        if many and (isinstance(value, (str, bytes)) or not isinstance(value, Sequence)):
            raise wrong(f"{name}[{key!r}]", "a list of values", value)
        try:
            written.append(f"{key}={json.dumps(list(value) if many else value)}")
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{name}[{key!r}]: {exc}; give numbers, texts, lists, "
                             "mappings, True, False or None") from None  # fmt: skip
    return written


def settings(value: object) -> Settings:
    """``config``: what :func:`automodel_launch.api.settings` returns; None: the settings
    a command would use."""
    from automodel_launch.settings import Settings, SettingsError, resolve_settings

    if value is None:
        try:
            return resolve_settings()
        except SettingsError as exc:
            raise UsageError(str(exc)) from None
    if not isinstance(value, Settings):
        raise wrong("config", "what api.settings() returns", value)
    return value


def overrides(sets: object) -> tuple[Override, ...]:
    """``sets`` as ``--set`` reads them; a malformed one is a usage error naming it."""
    from automodel_launch.profiles.overrides import OverrideError, parse_override

    try:
        return tuple(parse_override(t) for t in arguments(sets, "sets", many=False))
    except OverrideError as exc:
        raise UsageError(f"sets: {exc}") from None


def layers(profile: object, sets: object) -> Layers | None:
    """``profile`` and ``sets`` as ``--profile`` and ``--set`` read them (None: neither)."""
    from automodel_launch.profiles.overrides import Layers

    chosen, found = optional_text(profile, "profile"), overrides(sets)
    return Layers(chosen, found) if chosen or found else None


def remote(value: object) -> str | None:
    """``remote``: a named cluster of the profile file's ``clusters:`` (None: the profile's
    ``remote:``, else this host); whether it is defined is checked where it is used."""
    found = optional_text(value, "remote")
    if found == "":
        raise UsageError("remote is empty: give a cluster's name, or None for the profile's "
                         "remote: (else this host)")  # fmt: skip
    return found


def request(
    recipe: object,
    *,
    sweep: object = (),
    sets: object = (),
    profile: object = None,
    max_parallel: object = None,
    entry: object = None,
    job_dir: object = None,
    after: object = (),
    config: object = None,
    snapshot: object = True,
    nproc_per_node: object = None,
) -> Request:
    """What ``api.plan``, ``api.render`` and ``api.submit`` are asked, each argument
    checked as the command line checks its option."""
    from automodel_launch.commands.plan import Request
    from automodel_launch.plan.sweep import parse_axis
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.snapshot import CodeOptions

    axes = tuple(parse_axis(t) for t in arguments(sweep, "sweep", many=True))
    nproc = None if nproc_per_node is None else whole(nproc_per_node, "nproc_per_node", at_least=1)
    return Request(
        path(recipe, "recipe"), axes, layers(profile, sets),
        optional_whole(max_parallel, "max_parallel"), EntryChoice(script_text(entry, "entry")),
        optional_path(job_dir, "job_dir"), tuple(texts(after, "after")), settings(config),
        CodeOptions() if flag(snapshot, "snapshot") else None, nproc,
    )  # fmt: skip


def plan_options(options: dict[str, Any], plan: Callable[..., Any]) -> dict[str, Any]:
    """``api.submit``'s ``options``, each one ``plan`` takes (``submitting`` is submit's)."""
    found = signature(plan).parameters.items()
    known = {name for name, p in found if p.kind is p.KEYWORD_ONLY and name != "submitting"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ArgumentError(
            f"api.submit: {unknown[0]!r} is no option of a plan; give " + ", ".join(sorted(known))
        )
    return options


def order(preflight: object, there: object, dry_run: object) -> Order:
    """How ``api.submit`` and ``api.rerun`` submit."""
    from automodel_launch.commands.submit import Order

    checked = flag(preflight, "preflight"), remote(there), flag(dry_run, "dry_run")
    return Order(preflight=checked[0], remote=checked[1], dry_run=checked[2])


def target(ref: object) -> Manifest | Sweep:
    """What ``api.status`` and ``api.cancel`` act on: the job or sweep ``ref`` names, or
    the one it is."""
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.sweeps import Sweep

    if isinstance(ref, (Manifest, Sweep)):
        return ref
    if not isinstance(ref, str):
        raise wrong("ref", "a text, a Manifest or a Sweep", ref)
    return _find(ref)


def one_job(ref: object, name: str) -> Manifest:
    """The one job ``ref`` names (a text) or is (a manifest); a sweep is an error naming
    its points' ids."""
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobError
    from automodel_launch.jobs.sweeps import Sweep

    if isinstance(ref, Manifest):
        return ref
    if not isinstance(ref, str):
        raise wrong(name, "a text or a Manifest", ref)
    found = _find(ref)
    if isinstance(found, Sweep):
        ids = ", ".join(p.id for p in found.points[:3]) + (", ..." if len(found.points) > 3 else "")
        raise JobError(
            f"'{ref}' is sweep {found.id} of {len(found.points)} points, not one job: name a "
            f"point by its id ({ids}; `automodel-launch status {found.id}` lists them)"
        )
    return found


def _find(ref: str) -> Manifest | Sweep:
    from automodel_launch.jobs.lookup import find_job_or_sweep

    return find_job_or_sweep(ref)
