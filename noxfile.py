"""Sessions: ``nox -s tests lint typecheck`` is what CI runs; ``nox -s schema`` regenerates;
``nox -s mutate`` scores the unit tests by mutation, ``nox -s bench`` times validation
and the language server.

The ``tests`` session installs everything the tests need, system packages included
(Slurm, munge and shellcheck through apt when root, yaml-language-server through
npm, torch's CPU wheel), so a fresh machine needs nothing but Python and nox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
TORCH = "torch==2.13.0"
AUTOMODEL = "nemo-automodel==0.7.0"
# what lets most of AutoModel 0.7.0's modules import for tests/automodel's inspect cross-check,
# without their dependencies (huggingface_hub's click>=8.4 would break skypilot's click<8.2)
CROSS_CHECK = (
    "transformers==5.18.0", "huggingface_hub==2.4.0", "tokenizers==0.23.3",
    "safetensors==0.8.0", "hf-xet==1.8.0", "httpx2==2.16.2", "httpcore2==2.16.2",
    "truststore==0.10.5", "regex", "torchdata==0.11.0", "einops==0.8.2", "pillow==13.0.0",
)  # fmt: skip


@nox.session
def tests(session: nox.Session) -> None:
    """Unit, example, corpus and integration tests."""
    session.install("-e", ".[test,skypilot,lsp,plot]")
    session.install(TORCH, "numpy")
    # AutoModel's own config loader, the oracle of tests/integration/test_automodel_loader.py:
    # without its dependencies (only PyYAML is needed to load a config; the test imports
    # the loader module alone, never the package's heavy modules)
    session.install("--no-deps", AUTOMODEL)
    session.install("--no-deps", *CROSS_CHECK)
    session.run("bash", "tests/integration/harness/setup_test_env.sh", external=True)
    session.run(
        "npm", "ci", "--prefix", "tests/integration/lsp", "--no-audit", "--no-fund", external=True
    )
    if session.posargs:
        session.run("pytest", "--durations=25", *session.posargs)
        return
    _both_at_once(session)


def _both_at_once(session: nox.Session) -> None:
    """The tests on the one Slurm cluster (``-m slurm``, mostly waiting on the scheduler)
    run one at a time in a process of their own, while the rest run on every core: the
    whole CI run stays under 25 minutes. Each lists its slowest tests at the end."""
    venv = Path(session.bin)
    env = {**os.environ, "PATH": f"{venv}{os.pathsep}{os.environ['PATH']}"}
    env["VIRTUAL_ENV"] = str(venv.parent)
    pytest = [str(venv / "python"), "-m", "pytest", "--durations=25"]
    scratch = Path(tempfile.mkdtemp(prefix="slurm-tests-"))
    log = scratch / "pytest.log"
    with log.open("wb") as out:
        slurm = subprocess.Popen(
            [*pytest, "-m", "slurm", f"--basetemp={scratch / 'tmp'}"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
        )  # fmt: skip
        try:
            rest = subprocess.run([*pytest, "-n", "auto", "-m", "not slurm"], env=env, cwd=ROOT)
            on_slurm = slurm.wait()
        finally:
            if slurm.poll() is None:
                slurm.terminate()
                slurm.wait()
    print("\n=== the tests on the Slurm cluster ===", flush=True)
    print(log.read_text(encoding="utf-8", errors="replace"), flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    if rest.returncode or on_slurm:
        session.error(f"tests failed (exit {rest.returncode}; on the Slurm cluster: {on_slurm})")


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    session.install("-e", ".[lsp,plot]", "mypy")
    session.run("mypy")


@nox.session
def schema(session: nox.Session) -> None:
    """Regenerate the committed schema and field reference from the models."""
    session.install("-e", ".")
    session.run("automodel-launch", "schema", "-o", "schemas/automodel-launch.schema.json")
    session.run(
        "automodel-launch", "schema", "-o", "automodel_launch/schemas/automodel-launch.schema.json"
    )
    session.run("python", "-m", "automodel_launch.fieldref", "-o", "docs/fields.md")


@nox.session
def mutate(session: nox.Session) -> None:
    """mutmut on pyproject's [tool.mutmut] modules, unit tests only; 95% per module.

    Not a default session (several minutes on two cores). mutmut needs click>=8.4, which
    skypilot's pin forbids, so it lives here and not in the test extra. ``-- --incremental``
    keeps mutants/ and the verdicts of unchanged functions.
    """
    session.install("-e", ".[test]", "mutmut==3.8.1")
    session.run("python", "tools/mutation_score.py", "--run", *session.posargs, env={"CI": "true"})


@nox.session
def bench(session: nox.Session) -> None:
    """validate against check-jsonschema on one config and on 200 corpus configs.

    First against check-jsonschema installed on its own (as pre-commit and pipx install
    it), then against one sharing this venv (it gets our C YAML parser). The package is
    installed as users install it (not editable: an editable install's import hook
    costs every process of the venv, the floor peer's too). Then bench_lsp.py: the
    language server against yaml-language-server (didChange to publishDiagnostics, and
    the server's memory over 1,000 edits). bench_snapshot.py: what the code snapshot adds
    to ``submit``. bench_automodel_source.py: reading AutoModel 0.7.0's sources, cold and
    from the cache. Then bench_jobs.py: ``jobs`` on a registry of 10,000 jobs.
    """
    session.install(".", "check-jsonschema")
    session.install("--force-reinstall", "--no-deps", ".")  # this tree, even if unversioned
    peer = Path(session.create_tmp()) / "peer"
    session.run("python", "-m", "venv", "--clear", str(peer))
    session.run(
        str(peer / "bin" / "python"), "-m", "pip", "install", "-q", "check-jsonschema",
        external=True,
    )  # fmt: skip
    script = "benchmarks/bench_validate.py"
    session.run(
        "python", script, "--peer", str(peer / "bin" / "check-jsonschema"), *session.posargs
    )
    session.run("python", script, *session.posargs)
    # a 100-point Slurm sweep: validated, rendered, submitted (one sbatch) and recorded
    session.run("python", "benchmarks/bench_sweep.py")
    # the code snapshot on a checkout the size of AutoModel's: at most 1 s added to submit
    session.run("python", "benchmarks/bench_snapshot.py")
    # the recipe against AutoModel's own sources: 0.7.0's read cold in at most 2 s, and
    # from the cache within 1.3x of the floor and 1.6x faster than check-jsonschema
    session.run("python", "benchmarks/bench_automodel_source.py", *session.posargs)
    # the language server against yaml-language-server (npm), same document, same client
    session.install(".[lsp]")
    session.run(
        "npm", "ci", "--prefix", "tests/integration/lsp", "--no-audit", "--no-fund", external=True
    )
    session.run("python", "benchmarks/bench_lsp.py")
    # jobs on a registry of 10,000 jobs (in a temporary state directory)
    session.run("python", "benchmarks/bench_jobs.py")
