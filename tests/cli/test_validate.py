"""``automodel-launch validate``: the real command in a subprocess, as users and CI run it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RECIPE, ROOT

ANSI = re.compile(r"\x1b\[")
OFFLINE = ("--no-check-paths", "--no-check-env")

BAD_TIME = 'slurm:\n  time: "4h"\n' + RECIPE
WARNING_ONLY = "slurm:\n  mail_user: someone\n" + RECIPE
NOTE_ONLY = "slurm:\n  nsys_enabled: true\n" + RECIPE
CLEAN = 'slurm:\n  time: "04:00:00"\n' + RECIPE


def run(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "validate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        timeout=60,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ exit codes
def test_exit_0_when_clean(tmp_path: Path) -> None:
    write(tmp_path, "ok.yaml", CLEAN)
    result = run("ok.yaml", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == "1 file checked against AutoModel 0.7.0 (installed here): no problems\n"
    assert result.stderr == ""


def test_exit_0_with_warnings_only(tmp_path: Path) -> None:
    write(tmp_path, "warn.yaml", WARNING_ONLY)
    result = run("warn.yaml", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == (
        "1 file checked against AutoModel 0.7.0 (installed here): 0 errors, 1 warning; 0 failed"
    )


def test_exit_1_with_warnings_under_strict(tmp_path: Path) -> None:
    write(tmp_path, "warn.yaml", WARNING_ONLY)
    result = run("warn.yaml", "--strict", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == (
        "1 file checked against AutoModel 0.7.0 (installed here): 0 errors, 1 warning; 1 failed"
    )
    assert run("warn.yaml", "--strict", "--no-strict", *OFFLINE, cwd=tmp_path).returncode == 0


def test_a_note_fails_nothing_even_under_strict(tmp_path: Path) -> None:
    """nsys profiling is information, not a problem: --strict still passes the file."""
    write(tmp_path, "note.yaml", NOTE_ONLY)
    result = run("note.yaml", "--strict", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 0
    assert "note.yaml:2:17: note[nsys-diagnostic-only] slurm.nsys_enabled" in result.stdout


def test_exit_1_on_errors(tmp_path: Path) -> None:
    write(tmp_path, "bad.yaml", BAD_TIME)
    assert run("bad.yaml", *OFFLINE, cwd=tmp_path).returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--bogus", "x.yaml"), "No such option: --bogus"),
        ((), "Missing argument"),
        (("--format", "xml", "x.yaml"), "format"),
        (("-f", "yaml", "x.yaml"), "format"),
        (("--strict=maybe", "x.yaml"), "strict"),
    ],
)
def test_exit_2_on_usage_errors(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_no_arguments_at_all_prints_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "automodel_launch"], capture_output=True, text=True, check=False
    )
    assert result.returncode in (0, 2)
    assert "validate" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------ text output
def test_piped_text_is_plain_and_exact(tmp_path: Path) -> None:
    write(
        tmp_path,
        "bad.yaml",
        'slurm:\n  time: "4h"\n  master_port: 99999\n  env_vars:\n    A: $HOME/x\n' + RECIPE,
    )
    result = run("bad.yaml", *OFFLINE, cwd=tmp_path, env={"TERM": "xterm-256color"})
    assert ANSI.search(result.stdout) is None
    assert result.stdout == (
        "bad.yaml:2:9: error[invalid-time] slurm.time: '4h' is not a Slurm time limit\n"
        '    hint: use one of M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED (e.g. "04:00:00", '
        '"2-00:00:00")\n'
        "bad.yaml:3:16: error[invalid-port] slurm.master_port: port 99999 is outside 1024..65535\n"
        "    hint: pick a free port in 1024..65535, or 'auto' to derive one from the job id\n"
        "bad.yaml:5:8: warning[bare-env-reference] slurm.env_vars.A: $HOME is not expanded: the "
        "value keeps the literal text '$HOME'\n"
        "    hint: write ${HOME} to use the variable\n"
        "1 file checked against AutoModel 0.7.0 (installed here): 2 errors, 1 warning; 1 failed\n"
    )


def test_the_bundled_broken_example_matches_docs_validate() -> None:
    result = run("examples/broken.yaml", *OFFLINE)
    assert result.returncode == 1
    page = (ROOT / "docs" / "validate.md").read_text(encoding="utf-8")
    block = page.split("$ automodel-launch validate examples/broken.yaml\n", 1)[1]
    assert result.stdout == block.split("```", 1)[0]


# ------------------------------------------------------------------ json and github
def test_json_contract(tmp_path: Path) -> None:
    write(tmp_path, "bad.yaml", BAD_TIME)
    write(tmp_path, "warn.yaml", WARNING_ONLY)
    result = run("bad.yaml", "warn.yaml", "--format", "json", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert list(data) == ["automodel_version", "files"]
    assert data["automodel_version"] == "0.7.0"
    assert [(f["path"], f["ok"], f["automodel_version"]) for f in data["files"]] == [
        ("bad.yaml", False, "0.7.0"),
        ("warn.yaml", True, "0.7.0"),
    ]
    for entry in data["files"]:
        assert list(entry) == [
            "path", "ok", "automodel_version", "automodel_found", "automodel_why", "diagnostics"
        ]  # fmt: skip
        assert (entry["automodel_found"], entry["automodel_why"]) == ("installed", "installed here")
        for diag in entry["diagnostics"]:
            assert list(diag) == ["severity", "code", "path", "line", "column", "message", "hint"]
            assert diag["severity"] in ("error", "warning")
            assert isinstance(diag["line"], int) and isinstance(diag["column"], int)
    assert data["files"][0]["diagnostics"] == [
        {
            "severity": "error",
            "code": "invalid-time",
            "path": "slurm.time",
            "line": 2,
            "column": 9,
            "message": "'4h' is not a Slurm time limit",
            "hint": 'use one of M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED (e.g. "04:00:00", '
            '"2-00:00:00")',
        }
    ]
    strict = json.loads(run("warn.yaml", "-f", "json", "--strict", *OFFLINE, cwd=tmp_path).stdout)
    assert strict["files"][0]["ok"] is False


def test_github_annotations(tmp_path: Path) -> None:
    write(tmp_path, "bad.yaml", BAD_TIME)
    write(tmp_path, "warn.yaml", WARNING_ONLY)
    result = run("bad.yaml", "warn.yaml", "--format", "github", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "::error file=bad.yaml,line=2,col=9,title=automodel-launch invalid-time::"
        "slurm.time: '4h' is not a Slurm time limit (hint: use one of M, M:S, H:M:S, D-H, D-H:M, "
        'D-H:M:S or UNLIMITED (e.g. "04:00:00", "2-00:00:00"))'
    )
    assert lines[1].startswith("::warning file=warn.yaml,line=2,col=14,")
    assert len(lines) == 2


# ------------------------------------------------------------------ many files
def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    write(tmp_path, "a_bad.yaml", BAD_TIME)
    (tmp_path / "b_binary.yaml").write_bytes(b"\x00\x01\x02")
    write(tmp_path, "c_syntax.yaml", "slurm:\n  time: [1\n")
    write(tmp_path, "d_ok.yaml", CLEAN)
    (tmp_path / "e_latin1.yaml").write_bytes("a: caf\xe9\n".encode("latin-1"))
    write(tmp_path, "f_list.yaml", "- a\n")
    write(tmp_path, "g_empty.yaml", "")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    write(tmp_path, "h_bomb.yaml", bomb)
    files = [
        "a_bad.yaml", "b_binary.yaml", "c_syntax.yaml", "d_ok.yaml", "e_latin1.yaml",
        "f_list.yaml", "g_empty.yaml", "h_bomb.yaml", "missing.yaml", ".",
    ]  # fmt: skip
    result = run(*files, "-f", "json", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    got = [(f["path"], [d["code"] for d in f["diagnostics"]]) for f in data["files"]]
    assert got[:9] == [
        ("a_bad.yaml", ["invalid-time"]),
        ("b_binary.yaml", ["not-text"]),
        ("c_syntax.yaml", ["yaml-syntax"]),
        ("d_ok.yaml", []),
        ("e_latin1.yaml", ["not-text"]),
        ("f_list.yaml", ["root-not-mapping"]),
        ("g_empty.yaml", ["empty-file"]),
        ("h_bomb.yaml", ["alias-bomb"]),
        ("missing.yaml", ["file-not-found"]),
    ]
    # "." expands to the same eight YAML files again.
    assert [p for p, _ in got[9:]] == [
        "a_bad.yaml", "b_binary.yaml", "c_syntax.yaml", "d_ok.yaml", "e_latin1.yaml",
        "f_list.yaml", "g_empty.yaml", "h_bomb.yaml",
    ]  # fmt: skip
    text = run(*files, *OFFLINE, cwd=tmp_path)
    assert text.stdout.splitlines()[-1] == (
        "17 files checked against AutoModel 0.7.0 (installed here): 15 errors, 0 warnings; "
        "15 failed"
    )


def test_directories_expand_to_their_yaml_files(tmp_path: Path) -> None:
    write(tmp_path, "configs/a.yaml", CLEAN)
    write(tmp_path, "configs/b.yml", BAD_TIME)
    write(tmp_path, "configs/nested/c.yaml", WARNING_ONLY)
    write(tmp_path, "configs/notes.txt", "not yaml: [")
    write(tmp_path, "configs/README.md", "# x")
    (tmp_path / "configs" / "dir.yaml").mkdir()
    result = run("configs", "-f", "json", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 1
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert paths == ["configs/a.yaml", "configs/b.yml", "configs/nested/c.yaml"]


def test_an_empty_directory_fails(tmp_path: Path) -> None:
    # a CI gate must not pass on nothing (more cases in tests/test_discovery.py)
    (tmp_path / "empty").mkdir()
    result = run("empty", *OFFLINE, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "empty:1:1: error[no-config-found] no .yaml or .yml file found in empty"
    )


# ------------------------------------------------------------------ host checks
def test_host_checks_are_on_by_default(tmp_path: Path) -> None:
    write(tmp_path, "m.yaml", f"slurm:\n  extra_mounts:\n    - {tmp_path}/nope:/data\n")
    result = run("m.yaml", "--no-check-env", cwd=tmp_path)
    assert result.returncode == 1
    assert "m.yaml:3:7: error[path-missing] slurm.extra_mounts[0].source:" in result.stdout
    assert run("m.yaml", *OFFLINE, cwd=tmp_path).returncode == 0


def test_env_checks_are_on_by_default(tmp_path: Path) -> None:
    write(
        tmp_path, "e.yaml", "slurm:\n  env_vars:\n    A: ${AUTOMODEL_TEST_SURELY_UNSET}\n" + RECIPE
    )
    env = {k: v for k, v in os.environ.items() if k != "AUTOMODEL_TEST_SURELY_UNSET"}
    result = run("e.yaml", "--no-check-paths", cwd=tmp_path, env=env)
    assert result.returncode == 0
    assert "e.yaml:3:8: warning[env-unset] slurm.env_vars.A:" in result.stdout
    result = run(
        "e.yaml", "--no-check-paths", cwd=tmp_path, env={"AUTOMODEL_TEST_SURELY_UNSET": "1"}
    )
    assert result.stdout == "1 file checked against AutoModel 0.7.0 (installed here): no problems\n"


# ------------------------------------------------------------------ never a traceback
BAD_INPUTS = [
    pytest.param(b"\x00\xff\xfe", id="binary"),
    pytest.param(b"\xff\xfe\xfd", id="not-utf8"),
    pytest.param(b"\t\tslurm: {", id="tabs-and-syntax"),
    pytest.param(b"a: *undefined\n", id="undefined-alias"),
    pytest.param(b"a: &x\n  b: *x\n", id="recursive-alias"),
    pytest.param(b"slurm: !!python/object:os.system 'echo hi'\n", id="python-tag"),
    pytest.param(b"slurm:\n  time: !!binary aGVsbG8=\n", id="binary-tag"),
    pytest.param(b"? [a]\n: 1\nslurm:\n  ? {b: 1}\n  : 2\n", id="complex-keys"),
    pytest.param(b"slurm:\n  env_vars:\n    ? [x]\n    : 1\n", id="complex-env-name"),
    pytest.param(b"slurm: [[[[[[]]]]]]\n", id="nested-lists"),
    pytest.param(b"skypilot:\n  cloud: {aws: 1}\n  accelerators: [1]\n", id="wrong-shapes"),
    pytest.param(b"slurm:\n  time: 99999999999999999999999999\n", id="huge-int"),
    pytest.param(b"slurm:\n  nodes: .inf\n  time: .nan\n", id="inf-nan"),
    pytest.param(b"---\n...\n", id="empty-document"),
    pytest.param(b"\xef\xbb\xbf", id="only-bom"),
    pytest.param(
        b"a: " + b"[" * 600 + b"]" * 600 + b"\n",
        id="deep-nesting",
    ),
]


@pytest.mark.parametrize("raw", BAD_INPUTS)
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_never_a_traceback(tmp_path: Path, raw: bytes, fmt: str) -> None:
    (tmp_path / "input.yaml").write_bytes(raw)
    write(tmp_path, "other.yaml", CLEAN)
    result = run("input.yaml", "other.yaml", "-f", fmt, cwd=tmp_path)
    assert result.returncode in (0, 1)
    assert result.stderr == ""
    if fmt == "json":
        data = json.loads(result.stdout)
        assert [f["path"] for f in data["files"]] == ["input.yaml", "other.yaml"]


# ------------------------------------------------------------------ light imports
def test_validate_imports_no_heavy_module(tmp_path: Path) -> None:
    recipe = write(
        tmp_path, "r.yaml", (ROOT / "examples" / "llm_finetune_skypilot_spot.yaml").read_text()
    )
    script = (
        "import sys\n"
        "from automodel_launch.cli import main\n"
        f"sys.argv = ['automodel-launch', 'validate', {str(recipe)!r}, '-f', 'json']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in sys.modules\n"
        "               if m.split('.')[0] in {'sky', 'torch', 'jsonschema', 'detect_secrets',\n"
        "                                      'pygls', 'lsprotocol', 'typer', 'rich',\n"
        "                                      'click', 'plotext', 'matplotlib'}\n"
        "               or m in {'importlib.metadata', 'importlib.resources', 'tempfile',\n"
        "                        'automodel_launch.launchers'})\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert "HEAVY []" in result.stderr, result.stderr
    assert json.loads(result.stdout)["files"][0]["path"] == str(recipe)


def test_validate_without_cluster_never_reads_the_cluster(tmp_path: Path) -> None:
    """Preflight adds nothing to validate unless --cluster asks: not even an import."""
    recipe = write(
        tmp_path, "slurm.yaml", 'slurm:\n  partition: nosuch\n  time: "01:00:00"\n' + RECIPE
    )
    script = (
        "import sys\n"
        "from automodel_launch.cli import main\n"
        f"sys.argv = ['automodel-launch', 'validate', {str(recipe)!r}, '-f', 'json']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "found = sorted(m for m in sys.modules\n"
        "               if m.startswith('automodel_launch.launchers.slurm.cluster')\n"
        "               or m in ('automodel_launch.commands.preflight', 'subprocess'))\n"
        "print('CLUSTER', found, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert "CLUSTER []" in result.stderr, result.stderr
    assert json.loads(result.stdout)["files"][0]["diagnostics"] == []


def test_the_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "automodel-launch"
    if not script.exists():
        found = shutil.which("automodel-launch")
        if found is None:
            pytest.skip("the automodel-launch console script is not installed")
        script = Path(found)
    write(tmp_path, "bad.yaml", BAD_TIME)
    result = subprocess.run(
        [str(script), "validate", "bad.yaml", *OFFLINE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.startswith("bad.yaml:2:9: error[invalid-time] slurm.time: ")
