"""Regenerate ``automodel_launch/automodel/releases/*.json``: what an AutoModel recipe builds.

    python tools/automodel_signatures.py [--wheels DIR] [--main GITDIR [--commit REV]]
                                          [--only VERSION ...] [--out DIR]

Every release's wheel is read from ``--wheels`` (downloaded there with ``pip download
--no-deps`` when missing); ``--main`` reads AutoModel's main branch from a git directory;
``thirdparty.json`` comes from the installed torch and pinned transformers/torchdata wheels.
Sources are read with ``ast`` by :mod:`automodel_launch.automodel.extract`, the code that
also reads a checkout or an installed release at run time; nothing is imported.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from automodel_launch.automodel.extract import FORMAT, PACKAGE, automodel_table  # noqa: E402
from automodel_launch.automodel.extract.signatures import Index  # noqa: E402

OUT = ROOT / "automodel_launch" / "automodel" / "releases"
EXTRACTOR = ROOT / "automodel_launch" / "automodel" / "extract"
RELEASES = ("0.1.0", "0.1.2", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0")
TRANSFORMERS = "5.18.0"  # what nemo-automodel 0.7.0 pins
TORCHDATA = "0.11.0"

# ---- reading sources -------------------------------------------------------------------


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def wheel_sources(wheel: Path, packages: tuple[str, ...]) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as archive:
        return {
            name: archive.read(name).decode("utf-8", "replace")
            for name in archive.namelist()
            if name.endswith(".py") and name.split("/")[0] in packages
        }


def wheel_source_line(wheel: Path) -> str:
    return f"{wheel.name} sha256:{sha256(wheel.read_bytes())}"


def download(requirement: str, directory: Path, filename: str) -> Path:
    wheel = directory / filename
    if not wheel.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", requirement,
             "-d", str(directory)],
            check=True,
        )  # fmt: skip
    return wheel


def release_wheel(version: str, directory: Path) -> Path:
    return download(
        f"nemo-automodel=={version}", directory, f"nemo_automodel-{version}-py3-none-any.whl"
    )


def git_sources(gitdir: Path, commit: str) -> tuple[dict[str, str], str, str]:
    """(sources, commit id, tree id) of ``nemo_automodel/`` at ``commit``."""

    def git(*args: str, data: bytes | None = None) -> bytes:
        return subprocess.run(
            ["git", "--git-dir", str(gitdir), *args], input=data, capture_output=True, check=True
        ).stdout

    full = git("rev-parse", f"{commit}^{{commit}}").decode().strip()
    tree = git("rev-parse", f"{full}:{PACKAGE}").decode().strip()
    listing = git("ls-tree", "-r", full, "--", PACKAGE).decode().splitlines()
    blobs = [(line.split()[2], line.split("\t", 1)[1]) for line in listing]
    blobs = [(sha, path) for sha, path in blobs if path.endswith(".py")]
    raw = git("cat-file", "--batch", data="".join(f"{sha}\n" for sha, _ in blobs).encode())
    sources: dict[str, str] = {}
    at = 0
    for _, path in blobs:
        header_end = raw.index(b"\n", at)
        size = int(raw[at:header_end].split()[2])
        sources[path] = raw[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace")
        at = header_end + 1 + size + 1
    return sources, full, tree


def directory_sources(root: Path, subdirs: tuple[str, ...]) -> dict[str, str]:
    """``.py`` files under ``root/SUBDIR`` (``root`` holds the top-level package)."""
    sources: dict[str, str] = {}
    for sub in subdirs:
        base = root / sub
        files = [base] if base.suffix == ".py" else sorted(base.rglob("*.py"))
        for path in files:
            if path.is_file():
                sources[path.relative_to(root).as_posix()] = path.read_text("utf-8", "replace")
    return sources


# ---- third-party libraries ----------------------------------------------------------------

TORCH_PARTS = ("torch.optim", "torch.utils.data", "torch.distributed.fsdp")
TORCH_COVERS = ("torch.optim", "torch.utils.data")
TRANSFORMERS_FILES = (
    "transformers/models/auto",
    "transformers/configuration_utils.py",
    "transformers/video_processing_utils.py",
    "transformers/image_processing_base.py",
    "transformers/models/qwen3_moe/configuration_qwen3_moe.py",
    "transformers/models/glm4_moe_lite/configuration_glm4_moe_lite.py",
    "transformers/models/qwen3_vl/video_processing_qwen3_vl.py",
    "transformers/models/gpt2/configuration_gpt2.py",
)


def installed_root(package: str) -> Path:
    spec = importlib.util.find_spec(package)  # locates, does not import
    if spec is None or spec.origin is None:
        raise SystemExit(f"{package} is not installed in {sys.executable}")
    return Path(spec.origin).parent.parent


def installed_version(root: Path, package: str) -> str:
    tree = ast.parse((root / package / "version.py").read_text("utf-8"))
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in stmt.targets
        ):
            assert isinstance(stmt.value, ast.Constant)
            return str(stmt.value.value).split("+")[0]
    raise SystemExit(f"no __version__ in {root / package / 'version.py'}")


def thirdparty_table(wheels: Path, torch_root: Path) -> dict[str, object]:
    callables: dict[str, str] = {}
    aliases: dict[str, str] = {}
    opened: list[str] = []

    def add(index: Index, only: tuple[str, ...]) -> None:
        found, alias, open_ = index.table(only=only)
        callables.update(found)
        aliases.update(alias)
        opened.extend(open_)

    dirs = tuple(p.replace(".", "/") for p in TORCH_PARTS)
    add(Index(directory_sources(torch_root, dirs), "torch"), TORCH_PARTS)

    torchdata = download(
        f"torchdata=={TORCHDATA}", wheels, f"torchdata-{TORCHDATA}-py3-none-any.whl"
    )
    add(Index(wheel_sources(torchdata, ("torchdata",)), "torchdata"), ("torchdata",))

    name = f"transformers-{TRANSFORMERS}-py3-none-any.whl"
    transformers = download(f"transformers=={TRANSFORMERS}", wheels, name)
    sources = wheel_sources(transformers, ("transformers",))
    kept = {p: t for p, t in sources.items() if any(p.startswith(f) for f in TRANSFORMERS_FILES)}
    index = Index(kept, "transformers")
    modules = tuple(
        f[: -len(".py")].replace("/", ".") if f.endswith(".py") else f.replace("/", ".")
        for f in TRANSFORMERS_FILES
    )
    add(index, modules)
    auto = "transformers.models.auto."
    for path in [p for p in callables if p.startswith(auto) and p.count(".") == 4]:
        top = path.rsplit(".", 1)[-1]
        if top.startswith("Auto"):
            aliases[f"transformers.{top}"] = path
    return {
        "format": FORMAT,
        "version": "thirdparty",
        "source": " ".join(
            [
                f"torch {installed_version(torch_root, 'torch')} (installed)",
                wheel_source_line(torchdata),
                wheel_source_line(transformers),
            ]
        ),
        "covers": [*TORCH_COVERS, "torchdata.stateful_dataloader"],
        "open": sorted(set(opened)),
        "callables": callables,
        "aliases": aliases,
    }


# ---- writing ------------------------------------------------------------------------------


def render(table: dict[str, object]) -> str:
    """Sorted keys; a mapping's entries one a line, so a diff shows what changed."""
    lines = ["{"]
    keys = sorted(table)
    for n, key in enumerate(keys):
        value = table[key]
        comma = "," if n < len(keys) - 1 else ""
        if isinstance(value, dict) and value and key != "sections":
            items = sorted(value.items())
            lines.append(f"{json.dumps(key)}: {{")
            for m, (name, text) in enumerate(items):
                end = "," if m < len(items) - 1 else ""
                lines.append(f"{json.dumps(name)}: {json.dumps(text, sort_keys=True)}{end}")
            lines.append("}" + comma)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, sort_keys=True)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def extractor_digest() -> str:
    """The extractor's own source: ``main.json`` records it, so a changed extractor is
    seen to leave it behind even where AutoModel's main branch cannot be fetched."""
    files = [Path(__file__).resolve(), *sorted(EXTRACTOR.glob("*.py"))]
    return sha256(b"".join(path.read_bytes() for path in files))


def main_table(gitdir: Path, commit: str) -> dict[str, object]:
    sources, full, tree = git_sources(gitdir, commit)
    table = automodel_table(sources, "main", f"git {full} tree {tree}")
    table["extractor"] = extractor_digest()
    return table


def body_digest(table: dict[str, object]) -> str:
    """A digest of the table without its ``digest`` key: hand edits do not keep it."""
    rest = {k: v for k, v in table.items() if k != "digest"}
    return sha256(json.dumps(rest, sort_keys=True).encode())


def write(out: Path, name: str, table: dict[str, object]) -> None:
    table["digest"] = body_digest(table)
    (out / f"{name}.json").write_text(render(table), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, default=Path("build/wheels"))
    parser.add_argument("--main", type=Path, help="AutoModel git directory (main branch)")
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--only", action="append", help="VERSION, main or thirdparty")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--torch-root", type=Path, help="site-packages holding torch/")
    args = parser.parse_args(argv)
    wanted = set(args.only or [*RELEASES, "thirdparty", *(["main"] if args.main else [])])
    for version in RELEASES:
        if version in wanted:
            wheel = release_wheel(version, args.wheels)
            sources = wheel_sources(wheel, (PACKAGE,))
            write(args.out, version, automodel_table(sources, version, wheel_source_line(wheel)))
    if "thirdparty" in wanted:
        write(
            args.out,
            "thirdparty",
            thirdparty_table(args.wheels, args.torch_root or installed_root("torch")),
        )
    if "main" in wanted:
        if args.main is None:
            parser.error("main needs --main GITDIR")
        write(args.out, "main", main_table(args.main, args.commit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
