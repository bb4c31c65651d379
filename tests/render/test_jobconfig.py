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
