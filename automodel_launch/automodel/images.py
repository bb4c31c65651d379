"""The AutoModel release inside an AutoModel container image, from the image's tag.

NVIDIA publishes AutoModel as ``nvcr.io/nvidia/nemo-automodel:YY.MM[.PP]``; its release
notes name the release each tag holds (``images.json``: 26.04 is 0.4.0). A tag this
table does not have (a newer image) says nothing here: the caller goes on to the next
way of knowing. Written forms: a registry path (``nvcr.io/nvidia/nemo-automodel:26.04``),
pyxis's (``nvcr.io#nvidia/nemo-automodel:26.04.00``), SkyPilot's (``docker:...``), and
an enroot squashfs file named after the image (``nvidia+nemo-automodel+26.04.sqsh``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).parent / "images.json"
_TAG = re.compile(r"(\d\d)\.(\d\d)(?:\.\d+)?")
_SQUASHFS = re.compile(r"nemo-automodel[+:_-](\d\d\.\d\d)(?:\.\d+)?(?:[+._-].*)?\.sqsh$")


@dataclass(frozen=True)
class Image:
    tag: str
    """``YY.MM`` as the release notes name it."""
    version: str | None
    """The release the image holds, None when the table does not have the tag."""


@cache
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


def known_tags() -> dict[str, str]:
    return dict(_table()["tags"])


def automodel_image(image: str) -> Image | None:
    """The AutoModel image ``image`` names, None when it names another image (or none)."""
    text = image.strip().removeprefix("docker:")
    if text.endswith(".sqsh"):
        found = _SQUASHFS.search(text.rsplit("/", 1)[-1])
        return _image(found.group(1)) if found else None
    name, _, tag = text.rpartition(":")
    if not name or "@" in tag:
        return None
    name = name.split("@", 1)[-1].replace("#", "/")  # [USER@]REGISTRY#IMAGE
    if name not in _table()["repositories"]:
        return None
    matched = _TAG.fullmatch(tag)
    return _image(f"{matched.group(1)}.{matched.group(2)}") if matched else None


def _image(tag: str) -> Image:
    return Image(tag, known_tags().get(tag))
