"""Named clusters: the profile file's ``clusters:`` mapping, each entry checked.

::

    clusters:
      lab:
        host: me@login.example.org      # or a Host alias of ~/.ssh/config
        port: 22                        # optional
        ssh_options: ["-i", "~/.ssh/id_ed25519"]   # optional, given to ssh as written
        remote_dir: /lustre/me/automodel-launch     # where job directories live there
    lab-big:
      remote: lab                       # a profile may name its default cluster
      slurm: {partition: big}

A cluster in the user's file replaces the site's of the same name. The host, the port
and the options reach ssh's command line, so each is bounded and none may read as
something else: a host that starts with ``-`` would be an option, an option that weakens
host-key checking or takes over the connection is refused (this tool checks host keys
always, and runs the connection itself), the options read as ssh reads them
(:mod:`automodel_launch.remote.ssh_options`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from automodel_launch.errors import UsageError
from automodel_launch.remote.fields import NAME, ClusterName, Host, Port, RemoteDir
from automodel_launch.remote.ssh_options import refusal

MAX_OPTIONS = 32


class ClusterError(UsageError):
    """A cluster that is not defined, or whose definition cannot be used (exit 2)."""


class Remote(BaseModel):
    """One named cluster as the profile file defines it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: ClusterName = "cluster"
    host: Host
    port: Port | None = None
    ssh_options: Annotated[list[str], Field(max_length=MAX_OPTIONS)] = []
    remote_dir: RemoteDir

    @field_validator("ssh_options")
    @classmethod
    def _options(cls, value: list[str]) -> list[str]:
        for option in value:
            if not option or len(option) > 1024 or any(c in option for c in "\x00\n\r"):
                raise ValueError("each option is one line of at most 1024 characters")
            if "'" in option and '"' in option:
                raise ValueError("an option may hold ' or \", not both")
        why = refusal(value)
        if why is not None:
            raise ValueError(why)
        return value

    @property
    def shown(self) -> str:
        """How messages name it: ``lab (me@login)``."""
        return f"{self.name} ({self.host}{'' if self.port is None else f':{self.port}'})"


def read_remote(name: str, raw: Any) -> Remote:
    """One entry of ``clusters:``; :class:`ClusterError` naming the field and the fix."""
    if not isinstance(raw, dict):
        raise ClusterError(
            f"cluster '{name}' is not a mapping", hint="write host: and remote_dir: under it"
        )
    try:
        return Remote.model_validate({**raw, "name": name})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or name
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ClusterError(
            f"clusters.{name}.{field}: {message}",
            hint="see docs/remote.md for the fields of a cluster",
        ) from None


def defined_clusters() -> dict[str, tuple[str, Any]]:
    """Every ``clusters:`` entry of the profile files: name -> (file, raw); the user's
    file's entry replaces the site's."""
    from automodel_launch.profiles.files import CLUSTERS_KEY, profile_files

    found: dict[str, tuple[str, Any]] = {}
    for file in profile_files():
        data = file.loaded.data if file.loaded is not None else None
        section = data.get(CLUSTERS_KEY) if isinstance(data, dict) else None
        if section is None:
            continue
        if not isinstance(section, dict):
            raise ClusterError(
                f"{file.path}: clusters: is not a mapping of named clusters",
                hint="write clusters: then each cluster's name, indented",
            )
        for key, raw in section.items():
            found[str(key)] = (file.path, raw)
    return found


def find_remote(name: str) -> Remote:
    """The cluster ``name``; :class:`ClusterError` when no profile file defines it."""
    from automodel_launch.settings import did_you_mean

    if not re.fullmatch(NAME, name):
        raise ClusterError(f"--remote: {name!r} is not a cluster name")
    defined = defined_clusters()
    if name not in defined:
        known = set(defined)
        more = did_you_mean(name, known) if known else ": no profile file defines clusters:"
        raise ClusterError(
            f"no cluster '{name}'{more}", hint="define it under clusters: in profiles.yaml"
        )
    path, raw = defined[name]
    try:
        return read_remote(name, raw)
    except ClusterError as exc:
        raise ClusterError(f"{path}: {exc}", hint=exc.hint) from None


def chosen_remote(option: str | None, profile: str | None) -> Remote | None:
    """``--remote NAME``, else the ``remote:`` of the profile in play, else None (here)."""
    if option:
        return find_remote(option)
    if not profile:
        return None
    from automodel_launch.profiles.files import find, profile_files

    found = find(profile, profile_files())
    raw = found.remote if found is not None else None
    return find_remote(raw) if raw else None
