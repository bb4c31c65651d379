"""The committed table of sbatch's options, against the sbatch installed here (22.05).

sbatch is run with a configuration naming a controller that does not exist: option
parsing and ``-vv``'s listing of the options it read happen before it looks for one, so
nothing is ever submitted anywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from automodel_launch.config import sbatch_options as opts
from automodel_launch.config.slurm import SlurmConfig


@pytest.fixture(scope="module")
def sbatch(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment to run sbatch in (a configuration whose controller is nowhere)."""
    if shutil.which("sbatch") is None:
        from tests.integration.conftest import unavailable

        unavailable("sbatch is not installed (apt-get install slurm-wlm)")
    conf = tmp_path_factory.mktemp("conf") / "slurm.conf"
    conf.write_text(
        "ClusterName=none\nSlurmctldHost=localhost\nSlurmctldPort=1\nMessageTimeout=1\n"
    )
    return {**os.environ, "SLURM_CONF": str(conf)}


def run(environ: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["sbatch", *args], env=environ, capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout + done.stderr


def test_sbatch_is_the_version_the_table_describes(sbatch: dict[str, str]) -> None:
    assert re.match(r"slurm(-wlm)? 22\.05\.", run(sbatch, "--version"))


def test_every_option_sbatch_lists_is_in_the_table(sbatch: dict[str, str]) -> None:
    listed = run(sbatch, "--help") + run(sbatch, "--usage")
    longs = set(re.findall(r"(?<![\w-])--([a-z][a-z-]*[a-z])", listed))
    assert longs - set(opts.OPTIONS) == set()
    shorts = dict(re.findall(r"-([A-Za-z]),? +--([a-z][a-z-]*)", listed))
    for letter, name in shorts.items():
        assert opts.OPTIONS[name][0] == letter, name


@pytest.mark.parametrize("name", sorted(opts.OPTIONS))
def test_sbatch_reads_each_option_as_the_table_says(sbatch: dict[str, str], name: str) -> None:
    """getopt's own words: an option sbatch lacks is unrecognized; one that takes no value
    refuses ``=x``; one that needs a value refuses to end the line without it. A trailing
    unknown option stops sbatch right after the option under test was read."""
    with_value = run(sbatch, f"--{name}=x", "--zz-stop")
    assert f"unrecognized option '--{name}" not in with_value
    refuses_value = f"option '--{name}' doesn't allow an argument" in with_value
    assert refuses_value == (opts.OPTIONS[name][1] == "none"), with_value
    if opts.OPTIONS[name][1] != "none" and name not in {"help", "usage", "version"}:
        alone = run(sbatch, f"--{name}")
        needs_value = f"option '--{name}' requires an argument" in alone
        assert needs_value == (opts.OPTIONS[name][1] == "required"), alone


def test_owned_and_refused_options_are_sbatch_options_and_owners_are_fields() -> None:
    assert set(opts.OWNED) <= set(opts.OPTIONS)
    assert set(opts.REFUSED) <= set(opts.OPTIONS)
    assert not set(opts.OWNED) & set(opts.REFUSED)
    for owner in opts.OWNED.values():
        assert owner in SlurmConfig.model_fields or owner == "fault_tolerance.requeue"


def test_sbatch_reads_the_rendered_directives_as_written(
    sbatch: dict[str, str], tmp_path: Path
) -> None:
    """Every new field and an sbatch_args entry, on #SBATCH lines, read back by sbatch -vv."""
    from tests.render.cases import RECIPE, SLURM
    from tests.render.conftest import render_text

    script = tmp_path / "job.sbatch"
    script.write_text(render_text(RECIPE + SLURM["slurm_sbatch_options"])["job.sbatch"])
    listing = run(sbatch, "-vv", "--test-only", str(script))
    read = dict(re.findall(r"^sbatch: ([a-z-]+) +: (.*)$", listing, re.MULTILINE))
    assert {k: read.get(k) for k in EXPECTED} == EXPECTED, listing


EXPECTED = {
    "qos": "high",
    "reservation": "maint_window",
    "constraint": "[rack1|rack2]&a100",
    "exclusive": "exclusive",
    "mem": "0?",
    "cpus-per-task": "64",
    "mail-type": "END,FAIL",
    "mail-user": "jane@example.org",
    "dependency": "afterok:123:456",
    "chdir": "/lustre/work",
    "comment": "sweep1",
    "hint": "nomultithread",
}
"""As sbatch 22.05 prints them (``--mem=0`` is listed as ``0?``)."""
