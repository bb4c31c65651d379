"""Regenerate ``automodel_launch/config/nemo_run_fields.json``: the fields of NeMo-Run's
executors in every nemo-run release AutoModel's ``nemo_run:`` launcher may run with.

AutoModel (0.4.0 on) sets every ``nemo_run:`` key that is not its own on the executor
with ``setattr``; the keys that mean something there are the executor's dataclass
fields. They are read from the released wheels (``nemo_run/core/execution/{base,local,
slurm}.py``) with ``ast``: nothing is imported or installed. Usage::

    python tools/nemo_run_fields.py            # download missing wheels, rewrite the file
    python tools/nemo_run_fields.py --check    # exit 1 if the committed file differs

Wheels are fetched with ``pip download --no-deps`` into the cache directory and reused
(``$NEMO_RUN_WHEELS``, default ``$XDG_CACHE_HOME/automodel-launch/wheels``, that is
``~/.cache/...``; not an ``AUTOMODEL_LAUNCH_*`` name: the CLI refuses unknown ones); the
digest of each wheel is recorded.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "automodel_launch" / "config" / "nemo_run_fields.json"
VERSIONS = (
    "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.1", "0.9.0", "0.10.0", "0.11.0", "0.11.1",
)  # fmt: skip
"""nemo-run releases on the package index that AutoModel's launcher can run with."""
CLASSES = {
    "Executor": "nemo_run/core/execution/base.py",
    "LocalExecutor": "nemo_run/core/execution/local.py",
    "SlurmExecutor": "nemo_run/core/execution/slurm.py",
}
FORMAT = 1


def cache_dir() -> Path:
    found = os.environ.get("NEMO_RUN_WHEELS")
    if found:
        return Path(found)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "automodel-launch" / "wheels"


def wheel(version: str, directory: Path) -> Path:
    """The nemo-run wheel of ``version`` in ``directory``, downloaded if missing."""
    path = directory / f"nemo_run-{version}-py3-none-any.whl"
    if not path.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary=:all:", "--dest", str(directory), f"nemo-run=={version}"],
            check=True,
            timeout=300,
        )  # fmt: skip
    return path


def class_fields(tree: ast.Module, name: str) -> tuple[list[str], list[str]]:
    """(base class names, dataclass fields in order) of class ``name`` in ``tree``.

    A field is an annotated name in the class body: not a ``ClassVar``, not private
    (``_launcher_setup`` is the executor's own bookkeeping). ``init=False`` fields count:
    they are attributes the executor reads (``stderr_to_stdout``).
    """
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            fields = [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and not item.target.id.startswith("_")
                and "ClassVar" not in ast.unparse(item.annotation)
            ]
            return bases, fields
    raise LookupError(f"class {name} not found")


def release_fields(path: Path) -> dict[str, str]:
    """Each executor's fields, its base class's first, space-separated."""
    found: dict[str, list[str]] = {}
    with zipfile.ZipFile(path) as archive:
        for name, member in CLASSES.items():
            tree = ast.parse(archive.read(member).decode("utf-8"))
            bases, own = class_fields(tree, name)
            inherited = [f for base in bases for f in found.get(base, [])]
            found[name] = list(dict.fromkeys(inherited + own))
    return {name: " ".join(fields) for name, fields in found.items()}


def build(directory: Path) -> dict[str, object]:
    releases: dict[str, object] = {}
    for version in VERSIONS:
        path = wheel(version, directory)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        releases[version] = {"source": f"{path.name} sha256:{digest}", **release_fields(path)}
    return {
        "format": FORMAT,
        "generated_by": "tools/nemo_run_fields.py",
        "classes": list(CLASSES),
        "releases": releases,
    }


def text(directory: Path) -> str:
    return json.dumps(build(directory), indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--wheels", type=Path, default=None, help="wheel cache directory")
    args = parser.parse_args(argv)
    produced = text(args.wheels or cache_dir())
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != produced:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run tools/nemo_run_fields.py")
            return 1
        return 0
    OUTPUT.write_text(produced, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
