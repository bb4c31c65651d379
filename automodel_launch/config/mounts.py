"""Container mounts in the three spellings users write.

``{source: /data, dest: /data}`` (a volume mapping), ``"/src:/dst[:flags]"``
and ``"/path"`` (AutoModel's real launcher). pyxis joins mounts with ``,`` and
splits each on ``:``, so neither may appear inside a path, and ``~`` is not
expanded there.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator

from automodel_launch.config.types import StrictSection, fail

PYXIS_FLAGS = frozenset(
    {"ro", "rw", "rbind", "bind", "private", "rprivate", "slave", "rslave", "shared",
     "rshared", "nosuid", "nodev", "noexec", "nofail", "x-create=dir", "x-create=file",
     "x-create=auto"}
)  # fmt: skip
_PATH_SCHEMA: dict[str, Any] = {
    "pattern": r"^(/|\$\{)[^,:\s]*$",
    "patternErrorMessage": "an absolute path without ',', ':' or spaces",
}
_MOUNT_HINT = "write /source:/dest[:ro], '/path', or {source: /source, dest: /dest}"


def mountable(path: str) -> str:
    """Refuse what pyxis' ``--container-mounts`` cannot carry."""
    for bad in (",", ":"):
        if bad in path:
            fail(
                "invalid-mount",
                f"mount path '{path}' contains '{bad}', which pyxis cannot express",
                "rename or symlink the directory",
            )
    if any(ch.isspace() for ch in path):
        fail("invalid-mount", f"mount path '{path}' contains whitespace", _MOUNT_HINT)
    return path


def same_path(path: str | None) -> str | None:
    """The path a directory is mounted at, unchanged inside the container: absolute or
    ``${VAR}...`` as written, ``~/...`` as ``${HOME}/...`` (the job's shell resolves the
    references); None for a relative path."""
    if path is None:
        return None
    if path.startswith(("/", "${")):
        return path
    if path == "~" or path.startswith("~/"):
        return "${HOME}" + path[1:]
    return None


class Mount(StrictSection):
    """A bind mount into the container (pyxis ``--container-mounts``)."""

    model_config = StrictSection.model_config | {
        "json_schema_extra": {
            "examples": [{"source": "/lustre/data", "dest": "/data"}, "/lustre:/lustre:ro"],
        }
    }

    source: str = Field(
        description="Absolute path on the cluster nodes.", json_schema_extra=_PATH_SCHEMA
    )
    dest: str = Field(
        description="Absolute path inside the container.", json_schema_extra=_PATH_SCHEMA
    )
    flags: str | None = Field(
        default=None,
        description="pyxis mount flags joined with '+', e.g. `ro` or `ro+rprivate`.",
    )

    @field_validator("source", "dest")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith(("/", "${")):
            fix = "expand it (pyxis does not)" if value.startswith("~") else "use an absolute path"
            fail("invalid-mount", f"mount path '{value}' is not absolute", fix)
        return mountable(value)

    @field_validator("flags")
    @classmethod
    def _known_flags(cls, value: str | None) -> str | None:
        if value is None:
            return None
        unknown = [f for f in value.split("+") if f not in PYXIS_FLAGS]
        if unknown:
            fail(
                "invalid-mount",
                f"unknown mount flag(s) {', '.join(unknown)}",
                f"flags are joined with '+' from: {', '.join(sorted(PYXIS_FLAGS))}",
            )
        return value

    @property
    def spec(self) -> str:
        """The pyxis spelling: ``src:dst[:flags]``."""
        return ":".join(p for p in (self.source, self.dest, self.flags) if p)


def _from_text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    parts = value.split(":")
    if len(parts) > 3 or not parts[0]:
        fail("invalid-mount", f"'{value}' is not a mount", _MOUNT_HINT)
    source = parts[0]
    dest = parts[1] if len(parts) > 1 and parts[1] else source
    flags = parts[2] if len(parts) > 2 else None
    return {"source": source, "dest": dest, "flags": flags}


MountText = Annotated[
    str,
    Field(
        pattern=r"^(/|\$\{)[^,:\s]*(:((/|\$\{)[^,:\s]*)?(:[a-z=+-]+)?)?$",
        json_schema_extra={
            "patternErrorMessage": "/source[:/dest[:flags]] with absolute paths, no ',' or ':' "
            "inside a path"
        },
    ),
]
MountField = Annotated[Mount, BeforeValidator(_from_text, json_schema_input_type=Mount | MountText)]
"""A mount in any of the three spellings, normalised to :class:`Mount`."""
