"""Hostile --set values: refused as diagnostics, or reaching the job unchanged, never run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automodel_launch.loading import load_text
from automodel_launch.prepare import EntryChoice
from automodel_launch.profiles.overrides import Layers, OverrideError, parse_override
from automodel_launch.render.entry import JobSpec
from automodel_launch.render.job import render_artifact
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.render.test_injection import _run, path_text

ONE_LINE = st.characters(blacklist_categories=("Cs", "Cc"), min_codepoint=1)
text = st.text(ONE_LINE, min_size=1, max_size=30)


def _render(tmp: Path, sets: list[str]) -> tuple[str, Any] | None:
    """The script and the validated document, or None when the values were refused."""
    loaded = load_text("slurm:\n  nodes: 2\n  ntasks_per_node: 2\n", "recipe.yaml").loaded
    assert loaded is not None
    try:
        layers = Layers(None, tuple(parse_override(s) for s in sets))
    except OverrideError:
        return None  # a usage error: nothing is rendered
    report = validate_loaded(loaded, offline_settings(), purpose="render", layers=layers)
    if report.document is None:
        assert report.diagnostics  # refused, and says why
        return None
    entry = EntryChoice("train.py {config}").resolve(report.document)
    spec = JobSpec(entry=entry, job_dir=str(tmp), source="recipe.yaml")
    return render_artifact(report.document, spec), report.document


RENDERED: list[int] = []


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=text, quoted=text.filter(lambda s: "${" not in s), home=path_text)
def test_hostile_env_values_from_set_reach_the_job_unchanged(
    tmp_path_factory: Any, raw: str, quoted: str, home: str
) -> None:
    tmp = tmp_path_factory.mktemp("job")
    canary = tmp / "canary"
    probe = f"$(touch {canary}) `touch {canary}`; touch {canary}"
    sets = [
        # double-quoted YAML strings
        f"slurm.env_vars.QUOTED={json.dumps(quoted, ensure_ascii=False)}",
        f"slurm.env_vars.PROBE={json.dumps(probe, ensure_ascii=False)}",
        f"slurm.hf_home={json.dumps('/' + home, ensure_ascii=False)}",
    ]
    rendered = _render(tmp, sets)
    assert rendered is not None  # quoted text is always a valid value here
    script, _document = rendered
    _argv, job_env = _run(script, tmp)
    assert not canary.exists()
    assert job_env["PROBE"] == probe
    assert job_env["QUOTED"] == quoted
    assert job_env["HF_HOME"] == "/" + home
    # unquoted: whatever YAML reads it as, refused with a reason or reaching the job as read
    rendered = _render(tmp, [f"slurm.env_vars.RAW={raw}", *sets[1:]])
    if rendered is not None:
        script, document = rendered
        _argv, job_env = _run(script, tmp)
        assert not canary.exists()
        assert job_env["RAW"] == str(document.slurm.env_vars["RAW"])


PAYLOADS = st.sampled_from(
    ["$(touch CANARY)", "`touch CANARY`", "a;touch CANARY", "a' ; touch CANARY; '",
     'a"$(touch CANARY)"', "a\\$(touch CANARY)", "x && touch CANARY #"]
)  # fmt: skip


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(word=st.one_of(text, PAYLOADS, st.tuples(text, PAYLOADS).map("".join)))
def test_hostile_words_from_set_are_refused_or_harmless(tmp_path_factory: Any, word: str) -> None:
    tmp = tmp_path_factory.mktemp("job")
    canary = tmp / "canary"
    word = word.replace("CANARY", str(canary))
    sets = [f"slurm.account={word}", f"slurm.partition={json.dumps(word, ensure_ascii=False)}",
            f"slurm.env_vars.WORD={json.dumps(word, ensure_ascii=False)}"]  # fmt: skip
    rendered = _render(tmp, sets)
    if rendered is None:
        return
    script, _document = rendered
    _argv, job_env = _run(script, tmp)
    assert not canary.exists()
    assert job_env["WORD"] == word
