"""Every real NeMo AutoModel config in ../shared/corpus validates with no false error.

The corpus is read in place (never copied into the project). Only the files that
really break a seed rule may have errors, and exactly the errors named here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from automodel_launch.validation import validate_path
from tests.conftest import CORPUS, ROOT, offline_settings

MIN_FILES = 700

# file (relative to the corpus) -> the error codes it must have, and nothing else.
KNOWN_ERRORS: dict[str, list[str]] = {
    # use_spot: true without a checkpoint interval (the docs' own SkyPilot snippets).
    "automodel-docs/docs__launcher__skypilot.md__0.yaml": ["spot-no-checkpoint-interval"],
    "automodel-docs/docs__launcher__skypilot.md__2.yaml": ["spot-no-checkpoint-interval"],
    "automodel-docs/skills__launcher-config__SKILL.md__1.yaml": ["spot-no-checkpoint-interval"],
}


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


FILES = corpus_files()
needs_corpus = pytest.mark.skipif(not FILES, reason=f"corpus not found at {CORPUS}")


def relative(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


@needs_corpus
def test_the_corpus_is_really_there() -> None:
    assert len(FILES) >= MIN_FILES, f"only {len(FILES)} corpus files under {CORPUS}"
    names = {relative(p) for p in FILES}
    assert set(KNOWN_ERRORS) <= names


@needs_corpus
def test_no_false_errors_in_the_corpus() -> None:
    settings = offline_settings()
    found: dict[str, list[str]] = {}
    for path in FILES:
        report = validate_path(path, settings)
        errors = [d.code for d in report.diagnostics if d.is_error]
        if errors:
            found[relative(path)] = errors
    assert found == KNOWN_ERRORS


@needs_corpus
def test_no_real_recipe_is_taken_for_another_kind_of_file() -> None:
    """A file taken for a manifest or a workflow is not checked at all: never a recipe."""
    from automodel_launch.loading import load_file
    from automodel_launch.rules.not_a_recipe import what_it_is

    taken = {}
    for path in FILES:
        loaded = load_file(path).loaded
        looks = what_it_is(loaded.data) if loaded is not None else None
        if looks is not None:
            taken[relative(path)] = looks.what
    assert taken == {}


@needs_corpus
@pytest.mark.parametrize("name", sorted(KNOWN_ERRORS))
def test_the_known_spot_files_point_at_use_spot(name: str) -> None:
    report = validate_path(CORPUS / name, offline_settings())
    (error,) = [d for d in report.diagnostics if d.is_error]
    assert error.path == "skypilot.use_spot"
    text = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    assert text[error.line - 1][error.column - 1 :].startswith("true")


@needs_corpus
def test_the_schema_accepts_the_whole_corpus() -> None:
    """Editors must not show a false error on a real config either."""
    from automodel_launch.loading import load_file

    schema = json.loads((ROOT / "schemas" / "automodel-launch.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    rejected: dict[str, str] = {}
    for path in FILES:
        loaded = load_file(path).loaded
        assert loaded is not None, relative(path)
        for error in _first(validator.iter_errors(loaded.data)):
            rejected[relative(path)] = error.message[:120]
    assert rejected == {}


def _first(items: Iterator[jsonschema.ValidationError]) -> list[jsonschema.ValidationError]:
    return [item for _, item in zip(range(1), items, strict=False)]
