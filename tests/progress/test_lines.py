"""AutoModel's step lines as main and older releases print them."""

from __future__ import annotations

import math

from automodel_launch.progress.lines import StepLine, parse_line, step_lines

MAIN = (
    "[rank0]: step 120 | epoch 1 | loss 2.3456 | grad_norm 0.8123 | lr 1.00e-04 | "
    "mem 12.34 GiB | tps 2468.10(1234.05/gpu) | num_label_tokens 4096"
)


def test_a_step_line_of_main() -> None:
    assert parse_line(MAIN) == StepLine(
        step=120, epoch=1, loss=2.3456, grad_norm=0.8123, lr=1e-4, mem_gib=12.34,
        tps=2468.10, tps_per_gpu=1234.05,
    )  # fmt: skip


def test_an_older_line_with_its_step_time_and_a_logging_prefix() -> None:
    line = "2025-06-01 10:00:00 | INFO | root | step 7 | epoch 0 | loss 3.1000 | time 2.10s"
    assert parse_line(line) == StepLine(step=7, epoch=0, loss=3.1, seconds=2.1)


def test_a_validation_line() -> None:
    line = '[rank0]: [val] name "default" | step 100 | epoch 0 | loss 2.0000 | ppl 7.39'
    assert parse_line(line) == StepLine(step=100, epoch=0, loss=2.0, validation=True)


def test_nan_and_inf_losses_are_kept() -> None:
    nan = parse_line("step 8 | epoch 0 | loss nan | grad_norm nan")
    inf = parse_line("step 9 | epoch 0 | loss inf")
    assert nan is not None and math.isnan(nan.loss)
    assert inf is not None and inf.loss == math.inf


def test_what_is_no_step_line_is_skipped() -> None:
    text = "\n".join([
        "loading model", "step one | epoch 0 | loss 1", "step 3 | epoch 0 | loss banana",
        "x" * 5000 + " step 4 | epoch 0 | loss 1.0", "mystep 5 | epoch 0 | loss 1.0",
        "step 6 | epoch 0 | loss 1.5000",
    ])  # fmt: skip
    assert [s.step for s in step_lines(text)] == [6]


def test_a_step_beyond_any_run_is_refused() -> None:
    assert parse_line("step 9999999999999 | epoch 0 | loss 1.0") is None
