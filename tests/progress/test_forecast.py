"""The time limit against the training, in words."""

from __future__ import annotations

from automodel_launch.progress.forecast import forecast, span


def test_the_issue_s_example_loses_the_steps_after_the_last_checkpoint() -> None:
    shown = forecast(step=100, at=210.0, seconds_per_step=2.1, max_steps=1000,
                     limit=8 * 3600.0, ckpt_every_steps=100)  # fmt: skip
    # 210 + 900 x 2.1 s is 35 minutes; 210 + 16500 x 2.1 s is 9h41m, past the limit
    assert shown.finishes is True
    long = forecast(step=100, at=210.0, seconds_per_step=2.1, max_steps=16600,
                    limit=8 * 3600.0, ckpt_every_steps=100)  # fmt: skip
    assert long.finishes is False
    assert long.stop_step == 13714  # 100 + (28800 - 210) // 2.1
    assert long.last_checkpoint == 13700
    assert long.lost_steps == 14
    assert long.text == (
        "at 2.10 s a step, step 16600 comes 9h41m after the start; the limit is 8h: the job "
        "stops near step 13714; its last checkpoint will be step 13700; the 14 steps after "
        "it are lost"
    )


def test_in_time() -> None:
    shown = forecast(step=10, at=60.0, seconds_per_step=1.0, max_steps=100, limit=600.0,
                     ckpt_every_steps=None)  # fmt: skip
    assert shown.text == (
        "at 1.00 s a step, step 100 comes 2m30s after the start; the limit is 10m: it "
        "finishes in time"
    )


def test_no_checkpoint_before_the_limit() -> None:
    shown = forecast(step=10, at=60.0, seconds_per_step=1.0, max_steps=1000, limit=300.0,
                     ckpt_every_steps=500)  # fmt: skip
    assert (shown.stop_step, shown.last_checkpoint, shown.lost_steps) == (250, None, 250)
    assert shown.text.endswith(
        "the job stops near step 250; no checkpoint is written before then: all of it is lost"
    )
    off = forecast(step=10, at=60.0, seconds_per_step=1.0, max_steps=1000, limit=300.0,
                   ckpt_every_steps=100, checkpoints=False)  # fmt: skip
    assert off.last_checkpoint is None


def test_requeue_at_the_signal_resumes_from_its_checkpoint() -> None:
    shown = forecast(step=10, at=60.0, seconds_per_step=1.0, max_steps=1000, limit=600.0,
                     ckpt_every_steps=100, requeue_signal=120)  # fmt: skip
    assert (shown.stop_step, shown.last_checkpoint, shown.requeued) == (430, 431, True)
    assert shown.lost_steps is None
    assert shown.text.endswith(
        "the limit is 10m: 120 s before it the ranks are told to stop and save a checkpoint "
        "near step 431; requeue resumes the job from there"
    )


def test_spans() -> None:
    assert [span(s) for s in (0, 42, 60, 185, 3600, 34800, 86400, 183600)] == [
        "0s", "42s", "1m", "3m05s", "1h", "9h40m", "1d", "2d3h",
    ]  # fmt: skip
