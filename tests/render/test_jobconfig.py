"""automodel_launch/render/jobconfig.py: the job config keeps the recipe, never a token."""

from __future__ import annotations

import pytest

from automodel_launch.loading import load_text
from automodel_launch.render.jobconfig import job_config_text

TOKEN = "hf_" + "J0bC0nf1g" * 4


@pytest.mark.parametrize(
    "text",
    [
        f"model:\n  name: x\n# hf_token: {TOKEN}\nslurm:\n  nodes: 1\n",
        f"model:\n  name: x  # {TOKEN}\n",
        f"# {TOKEN}\n{{model: {{name: x}}, slurm: {{nodes: 1}}}}\n",  # flow style: dumped
    ],
)
def test_comments_holding_a_token_are_redacted(text: str) -> None:
    loaded = load_text(text, "c.yaml").loaded
    assert loaded is not None
    out = job_config_text(loaded)
    assert TOKEN not in out and "J0bC0nf1g" not in out
    reread = load_text(out, "job.yaml").loaded
    assert reread is not None and reread.data == {"model": {"name": "x"}}


def test_the_redacted_comment_stays_a_comment() -> None:
    loaded = load_text(f"model:\n  name: x\n# hf_token: {TOKEN}\n", "c.yaml").loaded
    assert loaded is not None
    assert job_config_text(loaded) == "model:\n  name: x\n# hf_token: ***\n"


def test_an_anchor_shared_with_a_launcher_is_written_out_as_automodel_reads_it() -> None:
    text = (
        "slurm:\n  env_vars: &env\n    A: x\n  nodes: 1\n"
        "model:\n  env: *env\n  flag: yes\n  limit: 1:00:00\n  mode: 010\n  day: 2024-01-05\n"
        "  lr: 1e-05\n  name: yes_no\n"
    )
    loaded = load_text(text, "c.yaml").loaded
    assert loaded is not None
    assert job_config_text(loaded) == (
        '"model":\n  "env":\n    "A": "x"\n  "flag": true\n  "limit": 3600\n  "mode": 8\n'
        '  "day": 2024-01-05\n  "lr": "1e-05"\n  "name": "yes_no"\n'
    )


def test_a_faithful_cut_keeps_the_text_as_written() -> None:
    text = "model:\n  flag: yes  # YAML 1.1: true\n  lr: 1e-05\nslurm:\n  nodes: 1\n"
    loaded = load_text(text, "c.yaml").loaded
    assert loaded is not None
    assert job_config_text(loaded) == "model:\n  flag: yes  # YAML 1.1: true\n  lr: 1e-05\n"


@pytest.mark.parametrize(
    ("value", "written"),
    [(1e-05, "1.0e-05"), (1.5e300, "1.5e+300"), (0.1, "0.1"), (float("-inf"), "-.inf"),
     (-0.0, "-0.0"), (3.0, "3.0")],
)  # fmt: skip
def test_floats_keep_a_dot_yaml_11_needs(value: float, written: str) -> None:
    from automodel_launch.render.yaml11_text import scalar

    assert scalar(value) == written
