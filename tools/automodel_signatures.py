"""Regenerate ``automodel_launch/automodel/releases/*.json``: what an AutoModel recipe builds.

    python tools/automodel_signatures.py [--wheels DIR] [--main GITDIR [--commit REV]]
                                          [--only VERSION ...] [--out DIR]

Every release's wheel is read from ``--wheels`` (downloaded there with ``pip download
--no-deps`` when missing); ``--main`` reads AutoModel's main branch from a git directory;
``thirdparty.json`` comes from the installed torch and pinned transformers/torchdata wheels.
Sources are read with ``ast`` (``tools/signature_extract.py``); nothing is imported.

What the AutoModel tables hold beyond the callables (see table.py's docstring):

- ``recipes``: what AutoModel's CLI (0.4.0 on, ``cli/utils.py``) finds: classes named
  ``*Recipe*`` at the top of a ``recipes/`` file whose name does not start with ``_``,
  ``BaseRecipe`` excepted. The same rule lists the recipe classes of 0.1 to 0.3.
- ``sections``: ``SECTION_TARGETS`` below, kept by hand (the recipes build them in ways
  ast does not follow: a dict merged into ``**kwargs``, a typed config view); the
  keywords the recipe supplies are found by ast around each call of the target: its
  keywords, the string keys of the ``**`` dict it receives, keys the function pops.
  ``distributed`` is found by ast (``distributed_build``); ``dist_env`` and
  ``packed_sequence`` (read key by key, the rest ignored) are left out.
- ``supplied``: ``SUPPLIED_BY_HAND``, the keywords of every ``.instantiate(...)`` and
  ``.instantiate_path(...)`` call, and of every call of a configured value (a local name
  or ``self`` attribute holding a resolved ``_target_``, called with ``**kwargs``:
  ``self.factory(tokenizer=..., **kw)``).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from signature_extract import Index, _dotted, _top_level

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "automodel_launch" / "automodel" / "releases"
RELEASES = ("0.1.0", "0.1.2", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0")
PACKAGE = "nemo_automodel"
FORMAT = 1
TRANSFORMERS = "5.18.0"  # what nemo-automodel 0.7.0 pins
TORCHDATA = "0.11.0"

# section -> where its class may be defined (the first the release has wins)
SECTION_TARGETS: dict[str, tuple[str, ...]] = {
    "step_scheduler": ("nemo_automodel.components.training.step_scheduler.StepScheduler",),
    "checkpoint": (
        "nemo_automodel.components.checkpoint.checkpointing.CheckpointingConfig",
        "nemo_automodel.components.checkpoint.config.CheckpointingConfig",
    ),
}

# supplied where ast does not see it: from 0.6.0 the typed recipes build the data loader
# with the dataset themselves, and call a collate function with the batch, positionally
SUPPLIED_BY_HAND = frozenset({"dataset", "batch"})

# names AutoModel's code gives a callable resolved from a config's ``_target_``
CONFIGURED = frozenset({"factory", "target", "func", "fn", "builder", "constructor"})

CALLS_CONFIGURED = re.compile(r"\binstantiate(_path)?\(|\b(" + "|".join(CONFIGURED) + r")\(")

RECIPE_CLASS = re.compile(r"^class\s+(\w*Recipe\w*)\s*[\(:]", re.MULTILINE)

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


# ---- what AutoModel's code supplies and builds --------------------------------------------


def _functions(tree: ast.Module) -> list[tuple[ast.ClassDef | None, ast.FunctionDef]]:
    found: list[tuple[ast.ClassDef | None, ast.FunctionDef]] = []
    for stmt in _top_level(tree.body):
        if isinstance(stmt, ast.FunctionDef):
            found.append((None, stmt))
        elif isinstance(stmt, ast.ClassDef):
            found += [(stmt, s) for s in stmt.body if isinstance(s, ast.FunctionDef)]
    return found


_FACTS: dict[int, tuple[ast.FunctionDef, list[ast.Call], set[str]]] = {}


def _facts(func: ast.FunctionDef) -> tuple[list[ast.Call], set[str]]:
    """The calls in ``func`` and the names it binds (parameters, assignments): one walk."""
    known = _FACTS.get(id(func))
    if known is None or known[0] is not func:
        calls: list[ast.Call] = []
        local = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
        for node in ast.walk(func):
            if isinstance(node, ast.Call):
                calls.append(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                local.add(node.id)
        known = _FACTS[id(func)] = (func, calls, local)
    return known[1], known[2]


def _keywords(call: ast.Call) -> set[str]:
    return {k.arg for k in call.keywords if k.arg is not None}


def supplied_keywords(index: Index) -> set[str]:
    supplied: set[str] = set()
    for module in index.modules.values():
        if not CALLS_CONFIGURED.search(module.source):
            continue
        for owner, func in _functions(module.tree):
            methods = {
                s.name for s in (owner.body if owner else []) if isinstance(s, ast.FunctionDef)
            }
            calls, local = _facts(func)
            for call in calls:
                callee = call.func
                if isinstance(callee, ast.Attribute) and callee.attr in {
                    "instantiate",
                    "instantiate_path",
                }:
                    supplied |= _supplied_around(func, call, pops=False)
                    continue
                if not any(k.arg is None for k in call.keywords):
                    continue
                name = callee.id if isinstance(callee, ast.Name) else None
                if isinstance(callee, ast.Attribute) and _dotted(callee.value) == "self":
                    name = callee.attr if callee.attr not in methods else None
                if name in CONFIGURED and (name in local or isinstance(callee, ast.Attribute)):
                    supplied |= _supplied_around(func, call, pops=False)
    return supplied


def _dict_keys(node: ast.expr | None) -> set[str]:
    if isinstance(node, ast.Dict):
        return {
            k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    if isinstance(node, ast.Call) and _dotted(node.func) == "dict":
        return _keywords(node) | (_dict_keys(node.args[0]) if node.args else set())
    return set()


def _supplied_around(func: ast.FunctionDef, call: ast.Call, *, pops: bool = True) -> set[str]:
    """Keywords the function gives ``call`` itself: its own, the string keys of the dict it
    spreads with ``**``, and (``pops``) the keys the function pops (consumed, not passed)."""
    found = _keywords(call)
    spread = {k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in spread:
                    found |= _dict_keys(node.value)
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in spread
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    found.add(target.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr in {"update", "setdefault"} and isinstance(owner, ast.Name):
                if owner.id in spread:
                    found |= _keywords(node) | {
                        a.value
                        for a in node.args[:1]
                        if isinstance(a, ast.Constant) and isinstance(a.value, str)
                    }
                    found |= _dict_keys(node.args[0]) if node.args else set()
            elif node.func.attr == "pop" and node.args and pops:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return found


def section_builds(
    index: Index, callables: dict[str, str], recipes: dict[str, str]
) -> dict[str, dict[str, dict[str, object] | None]]:
    """``{"*": {section: build}}``, and ``{recipe: {section: None}}`` for a recipe whose
    module calls the section's class only with explicit keywords (``StepScheduler(
    global_batch_size=cfg.step_scheduler.global_batch_size, ...)``): it reads the keys it
    knows and ignores the others, so its sections are not checked key by key."""
    built: dict[str, dict[str, object] | None] = {}
    explicit_only: dict[str, set[str]] = {}  # module -> sections it builds key by key
    for section, candidates in SECTION_TARGETS.items():
        target = next((c for c in candidates if c in callables), None)
        if target is None:
            continue
        name = target.rsplit(".", 1)[-1]
        supplied: set[str] = set()
        for module in index.modules.values():
            if f"{name}(" not in module.source:
                continue
            spreads: list[bool] = []
            for _, func in _functions(module.tree):
                for call in _facts(func)[0]:
                    if (_dotted(call.func) or "").rsplit(".", 1)[-1] == name:
                        supplied |= _supplied_around(func, call)
                        spreads.append(any(k.arg is None for k in call.keywords))
            if spreads and not any(spreads):
                explicit_only.setdefault(module.name, set()).add(section)
        built[section] = {"target": target, "supplied": " ".join(sorted(supplied))}
    distributed = distributed_build(index)
    if distributed is not None:
        built["distributed"] = distributed
    sections: dict[str, dict[str, dict[str, object] | None]] = {"*": built}
    for recipe in recipes:
        for section in sorted(explicit_only.get(recipe.rpartition(".")[0], ())):
            sections.setdefault(recipe, {})[section] = None
    return sections


def _module_dicts(module_tree: ast.Module) -> dict[str, ast.Dict]:
    found: dict[str, ast.Dict] = {}
    for stmt in _top_level(module_tree.body):
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        value = getattr(stmt, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            found[target.id] = value
    return found


def distributed_build(index: Index) -> dict[str, object] | None:
    """``distributed:`` (0.3.0 on): ``parse_distributed_section`` pops the mesh sizes and
    sub-sections, drops ``_target_``, and passes the rest to the class its ``strategy:``
    picks from ``STRATEGY_MAP`` (``fsdp2`` when absent)."""
    choices: dict[str, str] = {}
    parse: tuple[object, ast.FunctionDef] | None = None
    for module in index.modules.values():
        dicts = _module_dicts(module.tree)
        for name in ("STRATEGY_MAP", "_STRATEGY_MAP"):
            mapping = dicts.get(name)
            for key, value in zip(mapping.keys, mapping.values, strict=False) if mapping else ():
                found = index.lookup(index._qualify(module, _dotted(value) or "?"))
                if isinstance(key, ast.Constant) and isinstance(found, tuple):
                    choices[str(key.value)] = f"{found[0].name}.{getattr(found[1], 'name', '')}"
        for _, func in _functions(module.tree):
            if func.name == "parse_distributed_section":
                parse = (module, func)
    if parse is None or not choices:
        return None
    module, func = parse
    dicts = _module_dicts(module.tree)  # type: ignore[attr-defined]
    supplied: set[str] = set()
    default = "fsdp2"
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            if node.func.attr == "pop" and isinstance(first, ast.Constant):
                supplied.add(str(first.value))
                if first.value == "strategy" and len(node.args) > 1:
                    second = node.args[1]
                    default = str(second.value) if isinstance(second, ast.Constant) else default
        elif isinstance(node, ast.Name) and node.id in dicts:
            supplied |= _dict_keys(dicts[node.id])
        elif isinstance(node, ast.Assign) and isinstance(
            node.value, ast.Set | ast.Tuple | ast.List
        ):
            supplied |= {
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return {
        "target": choices.get(default, ""),
        "supplied": " ".join(sorted(supplied)),
        "choose": "strategy",
        "default": default,
        "choices": choices,
    }


def recipe_classes(sources: dict[str, str]) -> dict[str, str]:
    recipes: dict[str, str] = {}
    for path, text in sorted(sources.items()):
        parts = path.split("/")
        if parts[:2] != [PACKAGE, "recipes"] or parts[-1].startswith("_"):
            continue
        module = ".".join([*parts[:-1], parts[-1][: -len(".py")]])
        for name in RECIPE_CLASS.findall(text):
            if name != "BaseRecipe":
                recipes[f"{module}.{name}"] = name
    return recipes


def automodel_table(sources: dict[str, str], version: str, source: str) -> dict[str, object]:
    index = Index(sources, PACKAGE)
    callables, aliases, opened = index.table()
    recipes = recipe_classes(sources)
    return {
        "format": FORMAT,
        "version": version,
        "source": source,
        "covers": [PACKAGE],
        "open": opened,
        "callables": callables,
        "aliases": aliases,
        "recipes": recipes,
        "sections": section_builds(index, callables, recipes),
        "supplied": " ".join(sorted(supplied_keywords(index) | SUPPLIED_BY_HAND)),
    }


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
    here = Path(__file__).resolve().parent
    data = b"".join(
        (here / n).read_bytes() for n in ("automodel_signatures.py", "signature_extract.py")
    )
    return sha256(data)


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
