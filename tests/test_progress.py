"""hlv_core.progress: elapsed time and the estimate of the time left."""

from __future__ import annotations

import pytest

from hlv_core.progress import ProgressClock, format_duration


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("seconds", "text"), [
    (0.2, "< 1 s"), (1, "1 s"), (59.4, "59 s"), (60, "1 min 00 s"), (185, "3 min 05 s"),
    (3725, "1 h 02 min"),
])
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


def test_format_duration_rejects_nan_and_negative():
    for bad in (float("nan"), -1.0):
        with pytest.raises(ValueError):
            format_duration(bad)


def test_estimate_from_completed_work():
    clock = FakeClock()
    p = ProgressClock(total=4, clock=clock)
    assert p.remaining() is None
    assert p.text("MV") == "MV · < 1 s elapsed · estimating time left"
    clock.now += 10
    p.update(1)  # one method of four in 10 s: 30 s left
    assert p.elapsed() == pytest.approx(10)
    assert p.remaining() == pytest.approx(30)
    assert p.text("SL") == "SL · 10 s elapsed · about 30 s left"
    clock.now += 20
    p.update(2.5)
    assert p.fraction == pytest.approx(0.625)
    assert p.remaining() == pytest.approx(30 / 2.5 * 1.5)
    p.update(9)  # clipped
    assert p.remaining() == 0
    assert p.text("done").endswith("less than a second left")


def test_total_must_be_positive():
    with pytest.raises(ValueError):
        ProgressClock(total=0)
