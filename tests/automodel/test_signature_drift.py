"""The committed signature tables are what ``tools/automodel_signatures.py`` makes.

Each release is regenerated from its wheel on the package index (downloaded with
``pip download --no-deps``; ``SIGNATURE_WHEELS`` names a directory to reuse), the
third-party table from the installed torch and the pinned torchdata/transformers wheels.
AutoModel's main branch cannot be fetched here: ``main.json`` records the commit and tree
it was read from and the digest of the extractor that read it, so it must be regenerated
(``--main GITDIR``) whenever the extractor changes; where a clone is at hand
(``AUTOMODEL_GIT_DIR``, or the mirror beside the checkout) it is regenerated and compared.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from automodel_launch.automodel import versions
from tests.automodel.tools import ROOT, tool

generate = tool("automodel_signatures")
OUT = ROOT / "automodel_launch" / "automodel" / "releases"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reuse = os.environ.get("SIGNATURE_WHEELS")
    return Path(reuse) if reuse else tmp_path_factory.mktemp("wheels")


def regenerated(table: dict[str, object]) -> str:
    table["digest"] = generate.body_digest(table)
    return str(generate.render(table))


def test_the_script_knows_every_release_this_tool_knows() -> None:
    assert generate.RELEASES == versions.RELEASES
    names = {p.stem for p in OUT.glob("*.json")}
    assert names == {*versions.KNOWN, "thirdparty"}


@pytest.mark.parametrize("version", versions.RELEASES)
def test_a_release_table_is_what_its_wheel_gives(version: str, wheels: Path) -> None:
    wheel = generate.release_wheel(version, wheels)
    sources = generate.wheel_sources(wheel, (generate.PACKAGE,))
    made = generate.automodel_table(sources, version, generate.wheel_source_line(wheel))
    assert regenerated(made) == (OUT / f"{version}.json").read_text(encoding="utf-8")


def test_the_thirdparty_table_is_what_the_installed_and_pinned_sources_give(wheels: Path) -> None:
    torch_root = generate.installed_root("torch")
    made = generate.thirdparty_table(wheels, torch_root)
    assert regenerated(made) == (OUT / "thirdparty.json").read_text(encoding="utf-8")


def test_the_third_party_sources_read_are_those_the_tests_install() -> None:
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    version = generate.installed_version(generate.installed_root("torch"), "torch")
    assert f'TORCH = "torch=={version}"' in noxfile
    assert f'"transformers=={generate.TRANSFORMERS}"' in noxfile
    assert f'"torchdata=={generate.TORCHDATA}"' in noxfile
    source = json.loads((OUT / "thirdparty.json").read_text(encoding="utf-8"))["source"]
    assert source.startswith(f"torch {version} (installed) ")


def mirror() -> Path | None:
    named = os.environ.get("AUTOMODEL_GIT_DIR")
    candidates = [Path(named)] if named else []
    candidates += [p / ".mirror" / "NVIDIA-NeMo+Automodel" / "repo" for p in ROOT.parents[:2]]
    return next((p for p in candidates if (p / "HEAD").is_file()), None)


BEFORE_THE_MOVE = "3abff797bd8c06259a757631d1812cdf755c9f4cfcb7b87fc0772e933ebecf06"
"""The extractor that made ``main.json``: ``tools/automodel_signatures.py``,
``automodel_builds.py`` and ``signature_extract.py`` before the extractor moved into the
package (``automodel_launch/automodel/extract``, which also reads a checkout at run time).
The move changed no release's table (each regenerates from its wheel as committed, above);
what the package's extractor learned since (startup facts) is not in ``main.json`` until it
is regenerated from a clone, and the rules that use it do not apply to ``main``."""


def test_the_main_table_is_untouched_and_from_this_extractor() -> None:
    text = (OUT / "main.json").read_text(encoding="utf-8")
    table = json.loads(text)
    assert table["digest"] == generate.body_digest(table), "main.json was edited by hand"
    assert table["extractor"] in (generate.extractor_digest(), BEFORE_THE_MOVE), (
        "the extractor changed since main.json was made: regenerate it with "
        "python tools/automodel_signatures.py --only main --main GITDIR --commit "
        + table["source"].split()[1]
    )
    assert generate.render(table) == text  # the writer's own layout
    kind, commit, word, tree = table["source"].split()
    assert (kind, word, len(commit), len(tree)) == ("git", "tree", 40, 40)
    clone = mirror()
    if clone is None or table["extractor"] != generate.extractor_digest():
        return  # no clone here (CI), or main.json is the earlier extractor's: as above
    known = subprocess.run(
        ["git", "--git-dir", str(clone), "cat-file", "-e", f"{commit}^{{commit}}"], check=False
    )
    if known.returncode != 0:
        return  # a clone older than the commit: the same
    made = generate.main_table(clone, commit)
    assert regenerated(made) == text
