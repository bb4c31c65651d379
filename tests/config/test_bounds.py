"""Counts past what any cluster or cloud has are refused with the bound and the reason;
the bound itself is taken (a digit too many is the usual cause, 10^23 the extreme)."""

from __future__ import annotations

import pytest

from tests.conftest import Validate

CASES = [
    # section, key, the largest taken, message past it
    ("slurm", "nodes", 100_000, "is more than 100000: no cluster has that many nodes"),
    ("slurm", "ntasks_per_node", 1024, "is more than 1024: no node runs that many ranks"),
    ("slurm", "gpus_per_node", 1024, "is more than 1024: no node has that many GPUs"),
    ("slurm", "cpus_per_task", 16_384, "is more than 16384: no node has that many CPUs"),
    ("slurm", "max_requeues", 10_000, "is more than 10000: no job needs that many"),
    ("skypilot", "num_nodes", 100_000, "is more than 100000: no cluster has that many nodes"),
    ("skypilot", "gpus_per_node", 1024, "is more than 1024: no node has that many GPUs"),
    ("skypilot", "disk_size", 65_536, "is more than 65536: no cloud has a disk that large"),
    ("skypilot", "autostop", 525_600, "is more than 525600: more idle minutes than a year has"),
    ("k8s", "num_nodes", 100_000, "is more than 100000: no cluster has that many nodes"),
    ("k8s", "gpus_per_node", 1024, "is more than 1024: no node has that many GPUs"),
    ("nemo_run", "nodes", 100_000, "is more than 100000: no cluster has that many nodes"),
    ("nemo_run", "ntasks_per_node", 1024, "is more than 1024: no node runs that many ranks"),
    ("nemo_run", "gpus_per_node", 1024, "is more than 1024: no node has that many GPUs"),
]
RECIPE = "TrainFinetuneRecipeForNextTokenPrediction"
BASE = {
    "skypilot": "  cloud: aws\n",
    "slurm": "  time: '01:00:00'\n",
    "nemo_run": "  executor: team_cluster\n",
}


@pytest.mark.parametrize(("section", "key", "largest", "message"), CASES)
def test_a_count_is_bounded_with_its_reason(
    validate: Validate, section: str, key: str, largest: int, message: str
) -> None:
    head = f"recipe: {RECIPE}\nmodel: {{}}\n{section}:\n{BASE.get(section, '')}"
    taken = validate(f"{head}  {key}: {largest}\n")
    assert [d for d in taken if d.code == "out-of-range"] == []
    for past in (largest + 1, 10**23):
        (refused,) = [d for d in validate(f"{head}  {key}: {past}\n") if d.is_error]
        assert (refused.code, refused.path) == ("out-of-range", f"{section}.{key}")
        assert refused.message == f"{past} {message}"
        assert refused.hint


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("H100:1025", "accelerators 'H100:1025' asks for 1025 per node, more than 1024"),
        (
            "H100:100000000000000000000000",
            "accelerators 'H100:100000000000000000000000' asks for 100000000000000000000000 "
            "per node, more than 1024",
        ),
    ],
)
def test_an_accelerator_count_past_a_node_is_refused(
    validate: Validate, text: str, message: str
) -> None:
    (refused,) = validate(f'skypilot:\n  cloud: aws\n  accelerators: "{text}"\n')
    assert (refused.code, refused.path) == ("invalid-accelerators", "skypilot.accelerators")
    assert refused.message == f"{message}: no node has that many"
    assert refused.hint == 'COUNT is per node, e.g. "H100:8"; num_nodes multiplies it'
    assert validate('skypilot:\n  cloud: aws\n  accelerators: "H100:1024"\n') == []


@pytest.mark.parametrize(
    ("mem", "ok"),
    [("64T", True), ("65536G", True), ("67108864", True), ("68719476736K", True),
     ("65T", False), ("65537G", False), ("67108865", False), ("9" * 40 + "M", False),
     ("1" * 5000, False)],
)  # fmt: skip
def test_memory_past_64t_per_node_is_refused(validate: Validate, mem: str, ok: bool) -> None:
    found = validate(f"slurm:\n  mem: '{mem}'\n  time: '01:00:00'\n")
    assert [d.code for d in found] == ([] if ok else ["invalid-memory"])
    if not ok:
        assert found[0].message.endswith("per node is more than 64T: no node has that much memory")
