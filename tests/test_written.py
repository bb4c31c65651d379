"""automodel_launch/written.py: the funnel of what is written and returned.

Per kind of write, a credential planted in the environment or the config reaches neither
the file, nor the record, nor the value returned (the detect-secrets oracle flags none of
their lines), and what is written besides is whole: the script names ``$HF_TOKEN``, a
path shaped like a key is kept. Then a guard: only the funnels and :data:`ALLOWED` call
the redaction of :mod:`automodel_launch.secrets` themselves.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from automodel_launch import api, written
from automodel_launch.errors import LaunchError
from automodel_launch.jobdir import write_job_dir
from automodel_launch.jobs.files import write_job_file
from automodel_launch.jobs.manifest import Manifest, new_manifest
from automodel_launch.jobs.registry import open_registry
from automodel_launch.layout import JOB_CONFIG, LAUNCH_CONFIG, MANIFEST, SLURM_SCRIPT
from automodel_launch.secrets import MASK
from automodel_launch.snapshot.record import CodeRecord
from tests.hostile.job_records import assert_no_credential
from tests.hostile.tokens import make
from tests.plan.test_plan_cli import RECIPE, SLURM
from tests.support.fake_slurm import FakeSlurm

PACKAGE = Path(__file__).resolve().parent.parent / "automodel_launch"
TOKEN = make("hugging-face", 31)
"""What ``HF_TOKEN`` holds: shaped like a token."""
OTHER = make("openai", 31)
"""A token the config holds (in a comment, a ``--set`` value, a name)."""
SECRET = "hunter2-battery"
"""What ``MY_SERVICE_PASSWORD`` holds: no token shape, a secret by its variable only."""
SHORT = "Zq7"
"""What ``TINY_TOKEN`` holds: records mask a secret value from three characters."""
KEY_SHAPED = "disk-experiments_llama3_finetune"
"""A directory name that holds ``sk-`` and twenty more characters: shaped like an OpenAI key
(validation refuses it in a recipe's paths; a manifest's ``job_dir`` keeps it whole)."""
LEAKS = (TOKEN.value, TOKEN.middle, OTHER.value, OTHER.middle, SECRET)
ENVIRON = {"HF_TOKEN": TOKEN.value, "MY_SERVICE_PASSWORD": SECRET, "TINY_TOKEN": SHORT}


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENVIRON.items():
        monkeypatch.setenv(name, value)


# ------------------------------------------------------------------ job directory files
def test_a_config_file_has_every_token_masked_wherever_it_is() -> None:
    text = f"model:\n  name: x\n# hf: {TOKEN.value}\n"
    masked = f"model:\n  name: x\n# hf: {MASK}\n"
    assert written.job_file(JOB_CONFIG, text) == masked
    assert written.job_file(LAUNCH_CONFIG, text) == masked
    assert written.job_file(f"points/3/{JOB_CONFIG}", text) == masked
    assert written.job_file(f"points/3/{LAUNCH_CONFIG}", text) == masked


@pytest.mark.parametrize("name", [SLURM_SCRIPT, "run.sh", "task.yaml", MANIFEST, f"x{JOB_CONFIG}"])
def test_a_script_task_or_manifest_is_written_as_rendered(name: str) -> None:
    """Names, never values, and paths that must stay whole: only the config files are
    masked (a file merely ending like one is not)."""
    text = f'cd /scratch/{KEY_SHAPED}\nexport HF_TOKEN="$HF_TOKEN"  # {TOKEN.value}\n'
    assert written.job_file(name, text) == text


def test_the_job_directory_writer_masks_each_config_file(tmp_path: Path) -> None:
    script = f"#!/bin/bash\ncd /scratch/{KEY_SHAPED}\n"
    config = f"a: 1  # {OTHER.value}\n"
    write_job_dir(
        tmp_path / "job",
        {SLURM_SCRIPT: script, JOB_CONFIG: config, f"points/0/{LAUNCH_CONFIG}": config},
    )
    assert (tmp_path / "job" / SLURM_SCRIPT).read_text() == script
    assert (tmp_path / "job" / JOB_CONFIG).read_text() == f"a: 1  # {MASK}\n"
    assert (tmp_path / "job" / "points/0" / LAUNCH_CONFIG).read_text() == f"a: 1  # {MASK}\n"


def test_the_single_file_writer_masks_a_config_file(tmp_path: Path) -> None:
    write_job_file(tmp_path, JOB_CONFIG, f"a: 1  # {OTHER.value}\n")
    write_job_file(tmp_path, "driver.json", f'{{"dir": "/scratch/{KEY_SHAPED}"}}\n')
    assert (tmp_path / JOB_CONFIG).read_text() == f"a: 1  # {MASK}\n"
    assert (tmp_path / "driver.json").read_text() == f'{{"dir": "/scratch/{KEY_SHAPED}"}}\n'


@pytest.fixture
def recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: None) -> Path:
    """A Slurm recipe that takes ``HF_TOKEN`` and the password by name, with a token in a
    comment; ``sbatch`` a stand-in that answers job 4242."""
    slurm = FakeSlurm(tmp_path / "slurm", monkeypatch)
    slurm.answer("sbatch", "4242\n")
    slurm.in_front()
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    path = tmp_path / "r.yaml"
    env = "  env_vars:\n    HF_TOKEN: ${HF_TOKEN}\n    MY_SERVICE_PASSWORD: ${MY_SERVICE_PASSWORD}"
    path.write_text(
        f"# pasted by mistake: {OTHER.value}\n"
        + SLURM + env + f"\n  job_dir: {tmp_path / 'jobs'}\n" + RECIPE
    )  # fmt: skip
    return path


def files_under(root: Path) -> Iterator[tuple[Path, str]]:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            yield path, path.read_text(encoding="utf-8", errors="replace")


def test_a_submitted_job_directory_holds_no_credential_and_names_the_variables(
    recipe: Path,
) -> None:
    done = api.submit(recipe, config=api.settings(check_paths=False), snapshot=False)
    job_dir = Path(done.manifests[0].job_dir)
    found = dict(files_under(job_dir))
    assert sorted(p.name for p in found) == sorted([JOB_CONFIG, SLURM_SCRIPT, LAUNCH_CONFIG,
                                                    MANIFEST])  # fmt: skip
    assert_no_credential(found.values(), LEAKS)
    script = found[job_dir / SLURM_SCRIPT]
    assert (
        "# Credentials come by name from the submitting environment, never written here: "
        "HF_TOKEN, MY_SERVICE_PASSWORD.\n"
    ) in script
    assert f"JOB_DIR={job_dir}\n" in script
    assert found[job_dir / JOB_CONFIG].startswith(f"# pasted by mistake: {MASK}\n")
    assert '"HF_TOKEN": "${HF_TOKEN}"\n' in found[job_dir / LAUNCH_CONFIG]


def test_what_render_returns_is_what_is_written(recipe: Path) -> None:
    plan = api.plan(recipe, config=api.settings(check_paths=False), submitting=True)
    assert_no_credential(plan.files.values(), LEAKS)
    assert plan.root is not None
    write_job_dir(plan.root, plan.files, plan.claimed)
    assert {name: (plan.root / name).read_text() for name in plan.files} == plan.files


# ------------------------------------------------------------------ manifests
def made(tmp_path: Path, **given: Any) -> Manifest:
    (tmp_path / "r.yaml").write_text("a: 1\n")
    arguments: dict[str, Any] = {
        "name": "n", "launcher": "slurm", "job_dir": tmp_path / KEY_SHAPED,
        "config": tmp_path / "r.yaml", "argv": ["submit"], "artifacts": [], "environ": ENVIRON,
    }  # fmt: skip
    return new_manifest(**{**arguments, **given})


def test_a_new_manifest_masks_each_of_its_texts(tmp_path: Path) -> None:
    code = {
        "root": f"/src/{TOKEN.value}", "snapshot": f"/j/{SECRET}/code",
        "branch": f"fix-{OTHER.value}", "diff": f"/j/{SECRET}/code.diff",
        "untracked": (f"{OTHER.value}.py", "a.py"), "skipped": (f"{SHORT}.bin",),
    }  # fmt: skip
    settings = {
        "image": f"registry/{SECRET}:1",
        "profile": {"name": f"p-{SECRET}", "file": f"/etc/{TOKEN.value}/profiles.yaml"},
        "overrides": ({"option": "--set", "argument": f"model.revision={SECRET}"},),
        "origins": {"slurm.account": f"profile p ({TOKEN.value})"},
        "entry": {"text": f"python train.py --key {OTHER.value}"},
    }
    manifest = made(
        tmp_path, argv=["submit", f"--set=a={TOKEN.value}", f"--tag={SHORT}"], sweep="a" * 12,
        point=0, values={f"k.{SECRET}": f"v-{SECRET}", "lr": 0.5}, settings=settings,
        code=CodeRecord(**code),
    )  # fmt: skip
    assert manifest.command_line == ("submit", "--set=a=***", "--tag=***")
    assert manifest.values == {"k.***": "v-***", "lr": 0.5}
    assert manifest.image == "registry/***:1"
    assert manifest.profile is not None
    assert (manifest.profile.name, manifest.profile.file) == ("p-***", "/etc/***/profiles.yaml")
    assert [o.argument for o in manifest.overrides] == ["model.revision=***"]
    assert manifest.origins == {"slurm.account": "profile p (***)"}
    assert manifest.entry is not None and manifest.entry.text == "python train.py --key ***"
    assert manifest.code is not None
    assert (manifest.code.root, manifest.code.snapshot, manifest.code.branch) == (
        "/src/***", "/j/***/code", "fix-***",
    )  # fmt: skip
    assert manifest.code.diff == "/j/***/code.diff"
    assert (manifest.code.untracked, manifest.code.skipped) == (("***.py", "a.py"), ("***.bin",))
    assert manifest.job_dir == str(tmp_path / KEY_SHAPED)  # a path read back: whole
    assert_no_credential([manifest.to_json()], LEAKS)


def test_a_long_argument_is_masked_before_it_is_cut(tmp_path: Path) -> None:
    """The token straddles where the command line's argument is cut: masked first, no
    piece of it is kept."""
    manifest = made(tmp_path, argv=["x" * 470 + TOKEN.value + "y" * 100])
    assert manifest.command_line == ("x" * 470 + MASK + "y" * 15 + "...(+85 chars)",)
    assert TOKEN.value[:12] not in manifest.to_json()


def test_a_code_record_is_masked_before_it_is_bounded(tmp_path: Path) -> None:
    """A name over the bound with a token in it fits once the token is masked."""
    name = "d" * 990 + TOKEN.value
    record = written.code_record(ENVIRON, root="/r", snapshot="/s", untracked=(name,), skipped=())
    assert record.untracked == ("d" * 990 + MASK,)


def test_the_record_mask_takes_secret_values_from_three_characters() -> None:
    hide = written.record_mask({"TINY_TOKEN": "ab", "PIN_PASSWORD": "abc", "PLAIN": SECRET})
    assert hide(f"ab abc {SECRET} {TOKEN.value}") == f"ab *** {SECRET} ***"


# ------------------------------------------------------------------ registry rows
def test_a_registry_row_holds_no_credential_of_a_reindexed_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: None
) -> None:
    """A manifest written by hand (or by an older version) is masked on its way in."""
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    job_dir = tmp_path / "jobs" / "j"
    job_dir.mkdir(parents=True)
    clean = made(tmp_path, job_dir=job_dir)
    data = json.loads(clean.to_json())
    data["command_line"] = ["submit", f"--set=a={TOKEN.value}"]
    data["overrides"] = [{"option": "--set", "argument": f"slurm.account={SECRET}"}]
    (job_dir / MANIFEST).write_text(json.dumps(data))
    with open_registry() as registry:
        assert registry.reindex(tmp_path / "jobs") == (1, [])
        rows = [m.model_dump_json() for m in registry.jobs()]
        (row,) = registry.jobs()
    assert row.command_line == ("submit", "--set=a=***")
    assert [o.argument for o in row.overrides] == ["slurm.account=***"]
    assert_no_credential(rows, LEAKS)


def test_a_manifest_the_tool_made_is_the_row_as_it_is(tmp_path: Path, planted: None) -> None:
    manifest = made(tmp_path, argv=["submit", f"--set=a={TOKEN.value}"])
    assert written.registry_fields(manifest) is None
    with open_registry(tmp_path / "jobs.sqlite") as registry:
        registry.add(manifest)
        assert registry.jobs() == [manifest]


def test_a_reindexed_manifest_that_no_longer_fits_once_masked_is_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``://u:p@`` becomes ``://u:***@``: an argument at its bound then exceeds it. The
    job is left out with the reason; the others are recorded."""
    monkeypatch.setenv("AUTOMODEL_LAUNCH_STATE_DIR", str(tmp_path / "state"))
    for name in ("a", "b", "c"):
        (tmp_path / "jobs" / name).mkdir(parents=True)
        manifest = made(tmp_path, job_dir=tmp_path / "jobs" / name, environ={})
        (tmp_path / "jobs" / name / MANIFEST).write_text(manifest.to_json())
    data = json.loads((tmp_path / "jobs" / "b" / MANIFEST).read_text())
    argument = "x=https://u:p@host/" + "z" * 141
    data["overrides"] = [{"option": "--set", "argument": argument}]
    (tmp_path / "jobs" / "b" / MANIFEST).write_text(json.dumps(data))
    with open_registry() as registry:
        recorded, problems = registry.reindex(tmp_path / "jobs")
        assert sorted(Path(m.job_dir).name for m in registry.jobs()) == ["a", "c"]
    assert (recorded, problems) == (2, [
        f"cannot record the manifest of {tmp_path / 'jobs' / 'b'}: overrides.0.argument: "
        "String should have at most 160 characters"
    ])  # fmt: skip


# ------------------------------------------------------------------ what the API returns
def test_an_error_leaves_the_api_masked_and_escaped(planted: None) -> None:
    exc = LaunchError(f"no job {TOKEN.value} in \x1b[31m{SECRET}", hint=f"try {OTHER.value}")
    assert written.returned_error(exc) is exc
    assert exc.args == ("no job *** in \\x1b[31m***",)
    assert exc.hint == "try ***"


def test_an_error_without_a_hint_keeps_none_and_its_other_arguments(planted: None) -> None:
    exc = LaunchError(TOKEN.value)
    exc.args = (TOKEN.value, 3)
    written.returned_error(exc)
    assert (exc.args, exc.hint) == (("***", 3), None)


def test_the_api_returns_no_credential_of_a_submitted_job(recipe: Path) -> None:
    """A value given to ``--set`` is the job's (the job config holds it), so only the
    records are asked about one that holds the password."""
    config = api.settings(check_paths=False)
    done = api.submit(recipe, config=config, snapshot=False, sets={"optimizer.lr": 1e-5})
    (manifest,) = done.manifests
    with pytest.raises(LaunchError) as caught:
        api.find(TOKEN.value)
    returned = [
        manifest.to_json(), json.dumps(api.jobs()), json.dumps(api.status(manifest.id).to_json()),
        *done.plan.files.values(), str(caught.value),
    ]  # fmt: skip
    assert_no_credential(returned, LEAKS)
    done = api.submit(recipe, config=config, snapshot=False, sets={"slurm.account": SECRET})
    (manifest,) = done.manifests
    assert [o.argument for o in manifest.overrides] == ['slurm.account="***"']
    assert manifest.origins == {"slurm.account": '--set slurm.account="***"'}
    assert_no_credential([manifest.to_json(), json.dumps(api.jobs())], LEAKS)


# ------------------------------------------------------------------ the guard
PRIMITIVES = frozenset({"Redactor", "redact_tokens", "environment_redactor"})
"""What masks a text in :mod:`automodel_launch.secrets` (``display`` is the terminal's
shortening of a message, which the output funnel masks again)."""
FUNNELS = frozenset({"secrets.py", "written.py", "cli/output.py", "lsp/outgoing.py"})
ALLOWED = {
    "diagnostics.py": "every diagnostic is masked as it is made: the terminal, the editor "
    "and the API all show it",
    "config/environment.py": "the mask of one file's own credential values, which its "
    "diagnostics use (Collector.hide)",
    "remote/job_shell.py": "asks whether a value holds a credential, to keep it off the "
    "cluster's command line: it masks nothing",
    "launchers/skypilot/submit.py": "the values it just handed SkyPilot's SDK, masked in "
    "the SDK's refusal",
}
"""Modules that call a primitive themselves, and why."""


def primitive_uses(source: str) -> list[tuple[int, str]]:
    """Each use of a primitive in ``source``: imported from :mod:`automodel_launch.secrets`
    (under any name), or taken from the module (``secrets.Redactor``)."""
    tree = ast.parse(source)
    names: dict[str, str] = {}
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "automodel_launch.secrets":
            names.update({a.asname or a.name: a.name for a in node.names if a.name in PRIMITIVES})
        elif isinstance(node, ast.ImportFrom) and node.module == "automodel_launch":
            modules.update(a.asname or a.name for a in node.names if a.name == "secrets")
        elif isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names
                           if a.name == "automodel_launch.secrets" and a.asname)  # fmt: skip
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            found.append((node.lineno, names[node.id]))
        elif isinstance(node, ast.Attribute) and node.attr in PRIMITIVES:
            base = node.value
            named = isinstance(base, ast.Name) and base.id in modules
            if named or ast.unparse(base) == "automodel_launch.secrets":
                found.append((node.lineno, node.attr))
    return sorted(found)


def users() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        uses = primitive_uses(path.read_text(encoding="utf-8"))
        if uses:
            found[path.relative_to(PACKAGE).as_posix()] = uses
    return found


def test_only_the_funnels_and_the_allowed_mask_by_hand() -> None:
    """A new writer masks through :mod:`automodel_launch.written` (or a funnel); one that
    calls a primitive itself fails here, naming the line."""
    outside = {path: uses for path, uses in users().items() if path not in FUNNELS | set(ALLOWED)}
    assert outside == {}


def test_each_allowed_module_still_masks_by_hand() -> None:
    """The list shrinks when a module stops: an entry that excuses nothing is removed."""
    assert set(ALLOWED) <= set(users())
    assert set(users()) >= FUNNELS - {"secrets.py"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from automodel_launch.secrets import Redactor\nRedactor(['x'])('t')\n",
         [(2, "Redactor")]),
        ("from automodel_launch.secrets import redact_tokens as r\nmask = r\n",
         [(2, "redact_tokens")]),
        ("from automodel_launch import secrets\nsecrets.environment_redactor({})\n",
         [(2, "environment_redactor")]),
        ("from automodel_launch import secrets as s\ns.redact_tokens('t')\n",
         [(2, "redact_tokens")]),
        ("import automodel_launch.secrets\nautomodel_launch.secrets.Redactor()\n",
         [(2, "Redactor")]),
        ("import automodel_launch.secrets as s\ns.Redactor()\n", [(2, "Redactor")]),
        ("def f():\n    from automodel_launch.secrets import Redactor\n    return Redactor()\n",
         [(3, "Redactor")]),
        ("from automodel_launch.secrets import display, is_secret_name\ndisplay('t')\n", []),
        ("from automodel_launch.written import record_mask\nrecord_mask({})('t')\n", []),
        ("from other import Redactor\nRedactor()\n", []),
        ("import secrets\nsecrets.Redactor()\n", []),
    ],
)  # fmt: skip
def test_the_guard_sees_every_way_of_reaching_a_primitive(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert primitive_uses(source) == expected
