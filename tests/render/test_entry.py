"""automodel_launch/render/entry.py: command-line values never carry a credential into a job."""

from __future__ import annotations

import pytest

from automodel_launch.render.entry import JobSpec, custom_entry, default_entry

TOKEN = "ghp_" + "3ntry3ntry" * 4
REFUSAL = (
    "holds a credential, which would be written into the job; pass it through the "
    "environment instead (env_vars: NAME: ${NAME}, set where you submit)"
)


def test_a_token_in_entry_is_refused_without_being_shown() -> None:
    with pytest.raises(ValueError) as caught:
        custom_entry(f"-m train --token {TOKEN} {{config}}")
    assert str(caught.value) == f"--entry {REFUSAL}"


@pytest.mark.parametrize(("option", "index"), [("--command", 0), ("--domain", 1)])
def test_a_token_in_command_or_domain_is_refused(option: str, index: int) -> None:
    words = ["finetune", "llm"]
    words[index] = TOKEN
    with pytest.raises(ValueError, match=f"^{option} holds a credential"):
        default_entry("0.3.0", *words)  # the release whose entry point takes them


@pytest.mark.parametrize("field", ["job_dir", "source", "job_name", "config_path"])
def test_a_token_in_a_job_spec_value_is_refused(field: str) -> None:
    with pytest.raises(ValueError, match="holds a credential") as caught:
        JobSpec(entry=custom_entry("t.py"), **{field: f"/x/{TOKEN}"})
    assert TOKEN not in str(caught.value)
