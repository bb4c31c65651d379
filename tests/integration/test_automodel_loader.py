"""The job config, as AutoModel's own loader reads it.

nemo-automodel's ``load_yaml_config`` (PyYAML, YAML 1.1, then its ``ConfigNode``) reads
every job config rendered from the corpus, on both ways the job config is made (cut
out of the original, and written out again), and must read exactly what it reads from
the original file minus the launcher sections. Generated YAML 1.1 edge cases go through
both ways too.

nemo-automodel is installed without its dependencies (noxfile): its loader module needs
only PyYAML, and is loaded on its own, never through the package (whose import pulls
torch). Resolving a ``_target_`` imports the model classes, which are not installed:
those stay text here (the one part of the loader replaced), everything else is real.
"""

from __future__ import annotations

import datetime
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automodel_launch.config.document import job_config
from automodel_launch.loading import load_file, load_text
from automodel_launch.render import yaml11_text
from automodel_launch.render.jobconfig import as_automodel_reads, job_config_text
from tests.conftest import CORPUS
from tests.integration.conftest import unavailable

pytestmark = pytest.mark.integration

REFUSED_BY_US = {"yaml-syntax", "tab-not-space", "key-not-text"}


@pytest.fixture(scope="module")
def automodel() -> ModuleType:
    spec = importlib.util.find_spec("nemo_automodel")
    if spec is None or not spec.submodule_search_locations:
        unavailable("nemo-automodel is not installed (nox installs it with --no-deps)")
    assert spec is not None and spec.submodule_search_locations
    path = Path(spec.submodule_search_locations[0]) / "components" / "config" / "loader.py"
    module_spec = importlib.util.spec_from_file_location("automodel_config_loader", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    module._resolve_target = lambda value: value  # model classes are not installed here
    return module


def reads(automodel: ModuleType, load: Any) -> tuple[str, Any]:
    """What AutoModel makes of a config: its values, or the error it stops with."""
    try:
        return "ok", automodel.ConfigNode(load()).to_dict()
    except Exception as exc:
        return "error", type(exc).__name__


def from_original(automodel: ModuleType, text: str) -> tuple[str, Any]:
    def load() -> Any:
        data = automodel.yaml.safe_load(text)
        return job_config(data) if isinstance(data, dict) else data

    return reads(automodel, load)


def from_file(automodel: ModuleType, path: Path) -> tuple[str, Any]:
    return reads(automodel, lambda: automodel.load_yaml_config(path).raw_config)


def corpus() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml"))


def test_every_corpus_job_config_reads_as_the_original(
    automodel: ModuleType, tmp_path: Path
) -> None:
    files = corpus()
    if not files:
        unavailable(f"corpus not found at {CORPUS}")
    compared = 0
    for path in files:
        result = load_file(path)
        text = path.read_text(encoding="utf-8")
        if result.loaded is None or any(d.code in REFUSED_BY_US for d in result.diagnostics):
            assert from_original(automodel, text)[0] == "error", path
            continue
        expected = from_original(automodel, text)
        assert expected[0] == "ok", path
        for way, job_text in (
            ("cut", job_config_text(result.loaded)),
            ("re-dump", yaml11_text.dump(job_config(as_automodel_reads(result.loaded)))),
        ):
            job = tmp_path / "job_config.yaml"
            job.write_text(job_text, encoding="utf-8")
            assert from_file(automodel, job) == expected, (way, path)
        compared += 1
    assert compared >= 700


SHARED_ANCHOR = """\
slurm:
  env_vars: &shared
    flag: {value}
  nodes: 1
model:
  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B
  extra: *shared
  also: {value}
  listed: [{value}, x]
"""

YAML11_WORDS = [
    "yes", "No", "on", "OFF", "y", "n", "1:00:00", "10:00:00", "-1:30", "010", "0o10",
    "0x1F", "0b101", "1_000", "1e-05", "1.0e-05", "1e5", ".5", "1.", "+1", "~", "null",
    "2024-01-05", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", ".inf",
    "-.Inf", ".NaN", "3.14", "1:20.5", "0", "-0", "007", "08", "TRUE", "True",
]  # fmt: skip


@pytest.mark.parametrize("value", YAML11_WORDS)
def test_yaml11_words_read_the_same_on_both_ways(
    automodel: ModuleType, tmp_path: Path, value: str
) -> None:
    """An anchor in a launcher section used by a recipe section forces the re-dump."""
    text = SHARED_ANCHOR.format(value=value)
    loaded = load_text(text, "a.yaml").loaded
    assert loaded is not None
    job = tmp_path / "job_config.yaml"
    job.write_text(job_config_text(loaded), encoding="utf-8")
    assert "slurm" not in job.read_text()
    assert _same(from_file(automodel, job), from_original(automodel, text))
    cut = load_text(text.replace("*shared", "{flag: " + value + "}"), "b.yaml").loaded
    assert cut is not None
    job.write_text(job_config_text(cut), encoding="utf-8")
    assert job.read_text().startswith("model:\n")  # the cut path: the text as written
    assert _same(from_file(automodel, job), from_original(automodel, cut.text))


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN (YAML's .nan reads as a float that equals nothing)."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_a_flow_root_keeps_long_double_quoted_text(automodel: ModuleType, tmp_path: Path) -> None:
    """A flow-style document is written out again: long strings stay exact, keys in order."""
    template = "{% for m in messages %}" + "x" * 300 + "\\n{{ m['content'] }}{% endfor %}"
    text = f'{{zeta: 1, model: {{chat_template: "{template}"}}, slurm: {{nodes: 1}}, alpha: 2}}\n'
    loaded = load_text(text, "flow.yaml").loaded
    assert loaded is not None
    job = tmp_path / "job_config.yaml"
    job.write_text(job_config_text(loaded), encoding="utf-8")
    got = from_file(automodel, job)
    assert got == from_original(automodel, text)
    assert list(got[1]) == ["zeta", "model", "alpha"]


SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=40) | st.dates()
    | st.datetimes(timezones=st.just(datetime.timezone.utc))
)  # fmt: skip
KEYS = st.text(min_size=1, max_size=12)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, DATA, max_size=5))
def test_written_yaml_reads_back_exactly_in_pyyaml(data: dict[str, Any]) -> None:
    import yaml

    assert _same(yaml.safe_load(yaml11_text.dump(data)) or {}, data)


NUMBERISH = r"[-+]?[0-9_]{1,4}(:[0-5]?[0-9]){0,2}(\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?"
DATEISH = (
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"([Tt ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?(Z|[-+][0-9]{1,2})?)?"
)
PLAIN = st.one_of(
    st.sampled_from(YAML11_WORDS),
    st.from_regex(NUMBERISH, fullmatch=True),
    st.from_regex(r"(0[xbo])?[0-9a-fA-F_]{1,6}", fullmatch=True),
    st.from_regex(DATEISH, fullmatch=True),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PLAIN, min_size=1, max_size=6))
def test_generated_yaml11_scalars_read_the_same_on_both_ways(
    automodel: ModuleType, values: list[str]
) -> None:
    from hypothesis import assume

    body = "".join(f"  k{i}: {value}\n" for i, value in enumerate(values))
    listed = "  listed: [" + ", ".join(values) + "]\n"
    shared = f"slurm:\n  env_vars: &shared\n    flag: {values[0]}\n  nodes: 1\n"
    for text in (  # the cut (as written), then the re-dump (an anchor shared with slurm:)
        f"model:\n{body}{listed}slurm:\n  nodes: 1\n",
        f"{shared}model:\n{body}{listed}  extra: *shared\n",
    ):
        expected = from_original(automodel, text)
        result = load_text(text, "g.yaml")
        refused = result.loaded is None or any(d.code in REFUSED_BY_US for d in result.diagnostics)
        assume(expected[0] == "ok" and not refused)
        assert result.loaded is not None
        job = job_config_text(result.loaded)
        got = reads(automodel, lambda job=job: automodel.yaml.safe_load(job))
        assert _same(got, expected), (text, job)
