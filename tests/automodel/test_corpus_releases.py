"""Each corpus directory is checked against the release whose table knows its targets."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

import yaml

from automodel_launch.automodel import table, versions
from tests.conftest import CORPUS, CORPUS_RELEASES, ROOT

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# the corpus beside the main checkout, or beside the worktrees' parent
FOUND = next((p for p in (CORPUS, ROOT.parents[1] / "shared" / "corpus") if p.is_dir()), CORPUS)


def targets(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("_target_"), str):
            yield node["_target_"]
        for value in node.values():
            yield from targets(value)
    elif isinstance(node, list):
        for value in node:
            yield from targets(value)


@cache
def directory_targets(directory: Path) -> set[str]:
    found: set[str] = set()
    for path in sorted(directory.rglob("*.y*ml")):
        try:
            found |= set(targets(yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER)))
        except yaml.YAMLError:
            continue
    return {t for t in found if t.startswith("nemo_automodel")}


def unknown(version: str, names: set[str]) -> set[str]:
    known = table.load(version)
    return {t for t in names if known.resolve(t) is None and known.covered(t)}


def test_each_corpus_directory_maps_to_a_release_that_knows_all_its_targets() -> None:
    assert FOUND.is_dir(), f"the corpus is not at {CORPUS}"
    directories = sorted(p.name for p in FOUND.iterdir() if p.is_dir())
    assert directories == sorted(CORPUS_RELEASES)
    for directory, release in CORPUS_RELEASES.items():
        names = directory_targets(FOUND / directory)
        assert names, directory
        counts = {v: len(unknown(v, names)) for v in versions.KNOWN}
        assert counts[release] == 0 == min(counts.values()), (directory, counts)
        assert unknown(release, names) == set()


def test_the_counts_that_chose_them() -> None:
    names = directory_targets(FOUND / "automodel-2025")
    counts = [len(unknown(v, names)) for v in versions.KNOWN]
    assert counts == [27, 27, 20, 6, 0, 2, 2, 2, 2]
    assert unknown("0.3.0", names) >= {
        "nemo_automodel.NeMoAutoModelBiEncoder.from_pretrained",
        "nemo_automodel.components.datasets.diffusion.build_video_multiresolution_dataloader",
    }
    head = directory_targets(FOUND / "automodel-head")
    assert [len(unknown(v, head)) for v in versions.KNOWN] == [66, 66, 59, 45, 37, 21, 4, 0, 0]
