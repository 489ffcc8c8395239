"""A long run in the script thread that Streamlit's **Stop** interrupts: the last thing it drew
must not keep saying "about 40 s left". :func:`say_when_stopped` writes one final line (e.g.
"Stopped after 12 s ...") into a progress bar when Stop arrives.

Why the detour: after Stop, Streamlit refuses every further element of the run (each new
element raises its stop exception again, so a plain ``except`` cannot redraw anything). The
final line is therefore sent with the runner's stop check held off for that one element; if a
future Streamlit moves these internals, the line is simply not sent and the run still stops."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from hlv_core.progress import ProgressClock, format_duration

__all__ = ["say_when_stopped", "stopped_text"]


def _draw_despite_stop(draw: Callable[[], object]) -> bool:
    """Run ``draw`` (one element update) with the script runner's stop check held off.
    Returns whether it was drawn."""
    ctx = get_script_run_ctx(suppress_warning=True)
    runner = getattr(getattr(ctx, "_enqueue", None), "__self__", None)
    if runner is None or not isinstance(getattr(runner, "_execing", None), bool):
        return False
    saved = runner._execing
    runner._execing = False  # outside exec() the runner handles no stop request
    try:
        draw()
        return True
    except Exception:  # a best-effort line, never an error of its own
        return False
    finally:
        runner._execing = saved


def stopped_text(elapsed: float, done: int, total: int) -> str:
    """The line a stopped run leaves: time spent, how much is kept, how to go on."""
    return (f"Stopped after {format_duration(elapsed)}: {done} of {total} "
            f"{'method' if total == 1 else 'methods'} trained and kept; press Train to go on.")


@contextlib.contextmanager
def say_when_stopped(bar, clock: ProgressClock, done: Callable[[], int]) -> Iterator[None]:
    """Inside this block a Stop leaves ``bar`` (an ``st.progress`` element) at the clock's
    fraction with :func:`stopped_text` (``done()``: units finished at the moment of the Stop,
    of ``clock.total``), then lets the stop go on."""
    try:
        yield
    except StopException:
        text = stopped_text(clock.elapsed(), done(), int(clock.total))
        _draw_despite_stop(lambda: bar.progress(min(max(clock.fraction, 0.0), 1.0), text=text))
        raise
