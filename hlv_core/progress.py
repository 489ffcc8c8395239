"""Time elapsed and an estimate of the time left for long runs (the training lab's fits), from
the fraction of the work completed so far. Pure Python: the Training lab page and the ``lab``
CLI command show the same text.

The estimate assumes the remaining work goes at the pace of the completed work:
``left = elapsed / done * (total - done)``. Before anything is completed there is no estimate
(``None``): the first fits say nothing yet about the pace."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["ProgressClock", "format_duration"]


def format_duration(seconds: float) -> str:
    """A duration as people read it: ``"45 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``.

    Rounded to whole seconds; below one second ``"< 1 s"``.

    Parameters
    ----------
    seconds : float
        A non-negative duration.

    Returns
    -------
    str
        The duration in words.

    Raises
    ------
    ValueError
        NaN or a negative duration.

    Examples
    --------
    >>> format_duration(0.4), format_duration(45), format_duration(185), format_duration(3720)
    ('< 1 s', '45 s', '3 min 05 s', '1 h 02 min')
    """
    if seconds != seconds or seconds < 0:  # NaN or negative
        raise ValueError(f"a duration must be a non-negative number, got {seconds!r}")
    whole = int(round(seconds))
    if whole < 1:
        return "< 1 s"
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@dataclass
class ProgressClock:
    """Clock of a run of ``total`` units of work (e.g. methods to train).

    ``update(done)`` records how many units are complete (fractions allowed: 2.5 = two methods
    and half of the third); ``elapsed()`` and ``remaining()`` give seconds, with
    ``remaining = elapsed / done * (total - done)`` (the pace so far; None before anything is
    complete); ``text(label)`` the line a progress bar shows.

    Parameters
    ----------
    total : float
        Units of work (> 0).
    clock : callable, default time.monotonic
        Seconds source (injectable for tests).

    Raises
    ------
    ValueError
        ``total`` not positive.

    Examples
    --------
    A fake clock: 4 of 10 units done after 20 s, so 30 s are left at that pace:

    >>> now = [100.0]
    >>> clock = ProgressClock(10, clock=lambda: now[0])
    >>> clock.text("Training")
    'Training · < 1 s elapsed · estimating time left'
    >>> now[0] = 120.0
    >>> clock.update(4)
    >>> clock.fraction, clock.remaining(), clock.text("Training")
    (0.4, 30.0, 'Training · 20 s elapsed · about 30 s left')
    """

    total: float
    clock: Callable[[], float] = time.monotonic
    start: float = field(init=False)
    done: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        if not self.total > 0:
            raise ValueError(f"total work must be positive, got {self.total!r}")
        self.start = self.clock()

    def update(self, done: float) -> None:
        """Record ``done`` units complete (clipped to ``[0, total]``).

        Parameters
        ----------
        done : float
            Units complete.

        Returns
        -------
        None
            ``done`` is stored.

        Examples
        --------
        >>> now = [0.0]
        >>> clock = ProgressClock(4, clock=lambda: now[0])
        >>> clock.update(9)
        >>> clock.done, clock.fraction
        (4.0, 1.0)
        """
        self.done = min(max(float(done), 0.0), float(self.total))

    @property
    def fraction(self) -> float:
        """Share of the work complete (0 to 1)."""
        return self.done / self.total

    def elapsed(self) -> float:
        """Seconds since the clock started.

        Returns
        -------
        float
            Seconds (never negative).

        Examples
        --------
        >>> now = [0.0]
        >>> clock = ProgressClock(4, clock=lambda: now[0])
        >>> now[0] = 12.5
        >>> clock.elapsed()
        12.5
        """
        return max(self.clock() - self.start, 0.0)

    def remaining(self) -> float | None:
        """Estimated seconds left at the pace so far; ``None`` while nothing is complete.

        Returns
        -------
        float or None
            ``elapsed / done * (total - done)``.

        Examples
        --------
        >>> now = [0.0]
        >>> clock = ProgressClock(4, clock=lambda: now[0])
        >>> clock.remaining() is None
        True
        >>> now[0] = 10.0
        >>> clock.update(1)
        >>> clock.remaining()
        30.0
        """
        if self.done <= 0:
            return None
        return self.elapsed() / self.done * (self.total - self.done)

    def text(self, label: str) -> str:
        """``"<label> · 12 s elapsed · about 40 s left"`` (``"estimating time left"`` before
        the first completed work, ``"less than a second left"`` at the end).

        Parameters
        ----------
        label : str
            What is running.

        Returns
        -------
        str
            The progress line.

        Examples
        --------
        >>> now = [0.0]
        >>> clock = ProgressClock(4, clock=lambda: now[0])
        >>> now[0] = 10.0
        >>> clock.update(1)
        >>> clock.text("Fitting")
        'Fitting · 10 s elapsed · about 30 s left'
        """
        left = self.remaining()
        if left is None:
            estimate = "estimating time left"
        elif left < 1:
            estimate = "less than a second left"
        else:
            estimate = f"about {format_duration(left)} left"
        return f"{label} · {format_duration(self.elapsed())} elapsed · {estimate}"
