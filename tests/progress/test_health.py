"""A loss that is no number, a spike, a hang."""

from __future__ import annotations

from automodel_launch.progress.health import Problem, hang, loss_problems


def test_the_first_nan_is_named_with_its_step() -> None:
    losses = [(1, 3.0), (2, 2.0), (3, float("nan")), (4, float("inf"))]
    assert loss_problems(losses) == [Problem("not-a-number", 3, "the loss is nan at step 3")]
    assert loss_problems([(7, float("-inf"))])[0].text == "the loss is infinite at step 7"


def test_a_loss_far_above_its_running_minimum() -> None:
    falling = [(s, 4.0 - 0.2 * s) for s in range(1, 13)]  # ends at 1.6
    assert loss_problems(falling) == []
    spiked = [*falling, (13, 5.0)]
    assert loss_problems(spiked) == [
        Problem("spike", 13, "the loss 5 at step 13 is 3.1x its running minimum 1.6")
    ]
    assert loss_problems(spiked[-5:]) == []  # too few steps to judge


def test_a_hang_is_many_usual_intervals_and_at_least_the_floor() -> None:
    assert hang(10, 25.0, 1.0) is None  # under the 30 s floor
    assert hang(10, 31.0, 1.0) == Problem(
        "hang", 10, "no new step for 31s after step 10 (a step usually takes 1.00 s): it may hang"
    )
    assert hang(10, 100.0, 12.0) is None  # under ten steps
    assert hang(10, 1000.0, None) is None  # no rate: no judgement
