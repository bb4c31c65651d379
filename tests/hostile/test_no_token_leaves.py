"""No byte of a credential leaves the tool, wherever the config or command line puts it.

Generated, not listed: every leaf value and every key of a base config for each
launcher, comments in three places, each command-line value that reaches a job
(``--entry``, ``--command``, ``--domain``, ``--job-dir``, the config's file name), and
the submitting environment behind a ``${VAR}``, each paired with token formats in
rotation (three per slot) and all formats for one slot of each kind. Every case runs ``validate``
in the three formats, ``render``, ``render --job-dir`` and ``submit --dry-run``
(interactive and SkyPilot; SkyPilot's own parser runs), and searches every output
stream, exception and written file for the token and for its distinctive middle.
"""

from __future__ import annotations

import copy
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from automodel_launch.errors import LaunchError
from tests.hostile.tokens import KINDS, Token, make

Loc = tuple[Any, ...]
RECIPE: dict[str, Any] = {
    "step_scheduler": {"ckpt_every_steps": 100, "max_steps": 10},
    "model": {
        "pretrained_model_name_or_path": "meta-llama/Llama-3.2-1B",
        "layers": ["a", {"name": "b"}],
    },
}
BASES: dict[str, dict[str, Any]] = {
    "slurm": {
        **RECIPE,
        "slurm": {
            "job_name": "job",
            "nodes": 1,
            "time": "01:00:00",
            "account": "acct",
            "partition": "batch",
            "container_image": "nvcr.io/nvidia/nemo:dev",
            "hf_home": "/data/hf",
            "extra_mounts": ["/data:/data"],
            "env_vars": {"PLAIN": "value"},
        },
    },
    "skypilot": {
        **RECIPE,
        "skypilot": {
            "cloud": "aws",
            "accelerators": "A100:8",
            "num_nodes": 1,
            "job_name": "sky-job",
            "setup": "echo ready",
            "hf_home": "/data/hf",
            "env_vars": {"PLAIN": "value"},
        },
    },
    "interactive": dict(RECIPE),
}
SECRET_VARIABLE = "LEAK_SOURCE"


@dataclass
class Case:
    launcher: str
    slot: str
    token: Token
    data: dict[str, Any]
    comment: str | None = None
    """Where a comment holding the token goes: 'top', 'launcher' or 'trailing'."""
    options: list[str] = field(default_factory=list)
    job_dir: str | None = None
    config_name: str = "config.yaml"
    environ: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.launcher}-{self.slot}-{self.token.kind}"


def _leaves(value: Any, loc: Loc = ()) -> Iterator[Loc]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*loc, index))
    else:
        yield loc


def _keys(value: Any, loc: Loc = ()) -> Iterator[Loc]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*loc, key)
            yield from _keys(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _keys(item, (*loc, index))


def _parent(data: dict[str, Any], loc: Loc) -> Any:
    for part in loc[:-1]:
        data = data[part]
    return data


def _set_value(data: dict[str, Any], loc: Loc, token: str) -> dict[str, Any]:
    data = copy.deepcopy(data)
    _parent(data, loc)[loc[-1]] = token
    return data


def _rename_key(data: dict[str, Any], loc: Loc, token: str) -> dict[str, Any]:
    data = copy.deepcopy(data)
    parent = _parent(data, loc)
    items = [(token if k == loc[-1] else k, v) for k, v in parent.items()]
    parent.clear()
    parent.update(items)
    return data


def _dotted(loc: Loc) -> str:
    return ".".join(str(p) for p in loc)


def _slots(launcher: str) -> Iterator[tuple[str, Any]]:
    """(slot name, how to place a token) for every place a token can be put."""
    base = BASES[launcher]
    for loc in _leaves(base):
        yield f"value:{_dotted(loc)}", ("value", loc)
    for loc in _keys(base):
        yield f"key:{_dotted(loc)}", ("key", loc)
    for where in ("top", "trailing", "launcher"):
        if where != "launcher" or launcher != "interactive":
            yield f"comment:{where}", ("comment", where)
    for option in ("--entry", "--command", "--domain", "--job-dir", "config-name"):
        yield f"cli:{option}", ("cli", option)
    if launcher != "interactive":
        yield "environ:env_vars", ("environ", "env_vars")
        yield "environ:hf_token", ("environ", "hf_token")


def _place(launcher: str, slot: str, how: Any, token: Token) -> Case | None:
    base = BASES[launcher]
    kind, where = how
    case = Case(launcher, slot, token, base)
    if kind == "value":
        case.data = _set_value(base, where, token.value)
    elif kind == "key":
        case.data = _rename_key(base, where, token.value)
    elif kind == "comment":
        case.comment = where
    elif kind == "cli":
        if token.kind == "pem" and where in ("--job-dir", "config-name"):
            return None  # '/' cannot be part of one file name
        if where == "--entry":
            case.options = ["--entry", f"-m train --token {token.value} {{config}}"]
        elif where in ("--command", "--domain"):
            case.options = [where, token.value]
        elif where == "--job-dir":
            case.job_dir = token.value
        else:
            case.config_name = f"{token.value}.yaml"
    else:
        case.environ = {SECRET_VARIABLE: f"https://git.example.com/x?t={token.value}"}
        if where == "hf_token":
            case.environ = {SECRET_VARIABLE: token.value}
        section = dict(base[launcher])
        if where == "env_vars":
            section["env_vars"] = {**section["env_vars"], "REPO": f"${{{SECRET_VARIABLE}}}"}
        else:
            section["hf_token"] = f"${{{SECRET_VARIABLE}}}"
        case.data = {**base, launcher: section}
    return case


def _named_cases(launcher: str, token: Token) -> Iterator[Case]:
    """Places where a 40-hex W&B key is a credential: under a key-like name."""
    base = BASES[launcher]
    yield Case(launcher, "named:recipe", token, {**base, "wandb": {"api_key": token.value}})
    yield Case(launcher, "named:comment", token, base, comment="wandb")
    if launcher != "interactive":
        section = dict(base[launcher])
        named = {**section, "env_vars": {"WANDB_API_KEY": token.value}}
        yield Case(launcher, "named:env_vars", token, {**base, launcher: named})
        field_case = {**section, "wandb_key": token.value}
        yield Case(launcher, "named:wandb_key", token, {**base, launcher: field_case})
        ref = {**section, "wandb_key": f"${{{SECRET_VARIABLE}}}"}
        yield Case(
            launcher,
            "named:environ",
            token,
            {**base, launcher: ref},
            environ={SECRET_VARIABLE: token.value},
        )


FULL_PRODUCT_SLOTS = (
    "value:model.pretrained_model_name_or_path",
    "key:model.pretrained_model_name_or_path",
    "comment:top",
    "cli:--entry",
)


def generate() -> list[Case]:
    cases: list[Case] = []
    kinds = [k for k in KINDS if k != "wandb"]
    counter = 0
    for launcher in BASES:
        for slot, how in _slots(launcher):
            chosen = {kinds[(counter * step + step) % len(kinds)] for step in (1, 5, 11)}
            if slot in FULL_PRODUCT_SLOTS or slot.startswith("environ:"):
                chosen = set(kinds)
            counter += 1
            for kind in sorted(chosen):
                case = _place(launcher, slot, how, make(kind, counter))
                if case is not None:
                    cases.append(case)
        cases += _named_cases(launcher, make("wandb", counter))
    return cases


CASES = generate()


# ------------------------------------------------------------------ running
def _text(case: Case) -> str:
    yaml = YAML()
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(case.data, out)
    text = out.getvalue()
    token = case.token.value
    if case.comment == "top":
        text = f"# old credential: {token}\n{text}"
    elif case.comment == "trailing":
        text = text.replace("model:\n", f"model:  # {token}\n", 1)
    elif case.comment == "launcher":
        text = text.replace(f"{case.launcher}:\n", f"{case.launcher}:\n  # {token}\n", 1)
    elif case.comment == "wandb":
        text = f"# WANDB_API_KEY={token}\n{text}"
    return text


def _commands(case: Case, config: str, out: Path) -> list[list[str]]:
    common = ["--no-check-paths"]
    job_dir = str(out / (case.job_dir or "job"))
    runs = [["validate", "-f", fmt, *common, config] for fmt in ("text", "json", "github")]
    runs.append(["render", *common, *case.options, config])
    runs.append(
        ["render", *common, "--nproc-per-node", "2", *case.options, "--job-dir", job_dir, config]
    )
    if case.launcher != "slurm":
        runs.append(
            [
                "submit",
                "--dry-run",
                *common,
                *case.options,
                "--job-dir",
                job_dir + "-submit",
                config,
            ]
        )
    return runs


def _written(root: Path, config: Path) -> str:
    texts = []
    for path in sorted(root.rglob("*")):
        if path == config:
            continue  # the user's own file
        texts.append(str(path))
        if path.is_file() and not path.is_symlink():
            texts.append(path.read_text(errors="replace"))
    return "\n".join(texts)


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_no_token_byte_leaves(
    case: Case, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
    config = tmp_path / "in" / case.config_name
    config.parent.mkdir()
    config.write_text(_text(case))
    out = tmp_path / "out"
    seen: list[str] = []
    for args in _commands(case, str(config), out):
        result = runner.invoke(app, args, env=case.environ)
        # a LaunchError is what cli/errors.run prints (cleaned) and maps to its exit code:
        # its raw text must hold no token either
        raised = result.exception
        assert isinstance(raised, (SystemExit, LaunchError, type(None))), (args, raised)
        code = raised.exit_code if isinstance(raised, LaunchError) else result.exit_code
        assert code in (0, 1, 2), (args, result.output)
        said = f"{raised}\n{raised.hint}" if isinstance(raised, LaunchError) else ""
        seen.append(f"$ {args[0]}\n{result.output}{said}")
    seen.append(_written(tmp_path, config))
    blob = "\n".join(seen)
    token = case.token
    assert token.value not in blob, blob
    assert token.middle not in blob, blob


def test_the_generated_set_covers_every_format_launcher_and_slot_kind() -> None:
    assert {c.token.kind for c in CASES} == set(KINDS)
    assert {c.launcher for c in CASES} == set(BASES)
    kinds_of_slot = {c.slot.split(":")[0] for c in CASES}
    assert kinds_of_slot == {"value", "key", "comment", "cli", "environ", "named"}
    assert os.environ.get(SECRET_VARIABLE) is None


SUBPROCESS_CASES = [
    c
    for c in CASES
    if c.slot in ("value:slurm.account", "comment:trailing", "key:skypilot.env_vars.PLAIN")
][:4]


@pytest.mark.parametrize("case", SUBPROCESS_CASES, ids=[c.id for c in SUBPROCESS_CASES])
def test_no_token_byte_leaves_a_real_process(case: Case, tmp_path: Path) -> None:
    """The console entry point (validate's fast path, real streams), a few cases."""
    import subprocess
    import sys

    config = tmp_path / "in" / case.config_name
    config.parent.mkdir()
    config.write_text(_text(case))
    root = Path(__file__).resolve().parents[2]
    environ = {**os.environ, **case.environ, "PYTHONPATH": str(root), "HOME": str(tmp_path)}
    seen = []
    for args in _commands(case, str(config), tmp_path / "out")[:5]:
        done = subprocess.run(
            [sys.executable, "-m", "automodel_launch", *args],
            capture_output=True,
            text=True,
            env=environ,
            timeout=60,
            check=False,
        )
        assert done.returncode in (0, 1, 2), done.stderr
        assert "Traceback" not in done.stderr
        seen += [done.stdout, done.stderr]
    blob = "\n".join(seen) + _written(tmp_path, config)
    assert case.token.value not in blob and case.token.middle not in blob, blob
