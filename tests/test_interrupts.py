from __future__ import annotations

import os
import signal

import pytest

from automodel_launch.interrupts import Interrupted, stop_signals_raise_once


def test_the_first_stop_signal_raises_and_later_ones_wait() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as raised, stop_signals_raise_once():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # let the handler run here
    assert raised.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is previous


def test_a_second_signal_during_the_clean_up_does_not_cut_it_short() -> None:
    cleaned = []
    with pytest.raises(Interrupted), stop_signals_raise_once():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            signal.pthread_sigmask(signal.SIG_BLOCK, [])
        finally:
            os.kill(os.getpid(), signal.SIGHUP)  # waits: nothing raised here
            signal.pthread_sigmask(signal.SIG_BLOCK, [])
            cleaned.append(True)
    assert cleaned == [True]


def test_an_ignored_signal_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop_signals_raise_once():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)  # nohup: nothing happens
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
