"""A stop asked for from outside (Ctrl-C, SIGTERM) while a funnel runs, taken at the funnel's next safe point.

The CLI's signal handler raises KeyboardInterrupt wherever the main thread is, and inside a running funnel that may
be Prefect's code: each task submission serialises the run's context with pydantic, which calls Python code from
inside its serializer, and a KeyboardInterrupt raised there comes out as a PydanticSerializationError that Prefect
logs as the flow's error, with a traceback (tests/test_stop_request.py makes it happen on purpose). So while a
funnel runs on the main thread the handler only asks (`defer_stop`), and the funnel raises the KeyboardInterrupt
itself at its next `safe_point` (at least every CHECK_SECONDS, and at its end): Prefect then marks the run crashed
and the task runner's block closes its workers, as for a Ctrl-C anywhere else. Outside a funnel, and for a second
signal, the handler raises at once (and the CLI reports whatever error a library made of it as the stop).

SIGTERM takes one more step: for the length of a flow run, Prefect's flow engine puts its own SIGTERM handler in
place of the command's (it raises TerminationSignal wherever the main thread is, the same pydantic trap). So the CLI
names its handler (`route_sigterm`), and while a funnel runs SIGTERM goes to it again, and from it to the safe
points like a Ctrl-C; Prefect's handler is back as the funnel ends. A flow run by Prefect's own runner (a served
deployment) names none and keeps Prefect's handler, through which its runner cancels runs.

Plain flags, not threading.Event: the handler runs on the main thread between two of its bytecodes, possibly inside
an Event's own method holding its lock, and would wait on that lock for ever.
"""

from __future__ import annotations

import functools
import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, ParamSpec, TypeVar

CHECK_SECONDS = 0.2  # the longest a running funnel goes without looking for a stop request


Handler = Callable[[int, FrameType | None], Any]


class _Request:
    taking = False  # a funnel runs on the main thread and takes stop requests at its safe points
    asked = False  # a stop was asked for and not yet taken
    sigterm: Handler | None = None  # the command's own SIGTERM handler, in force again while a funnel runs


_request = _Request()
Arguments = ParamSpec("Arguments")
Result = TypeVar("Result")


def route_sigterm(handler: Handler | None) -> None:
    """For the CLI: while a funnel runs on the main thread, SIGTERM goes to `handler` (None: to whichever handler is
    in place, Prefect's during a flow run)."""
    _request.sigterm = handler


def defer_stop() -> bool:
    """For the CLI's signal handler: True when a funnel on the main thread will stop at its next safe point; False
    when the caller must stop at once (no funnel runs, or a stop is already waiting: a second Ctrl-C)."""
    if not _request.taking or _request.asked:
        return False
    _request.asked = True
    return True


def safe_point() -> None:
    """Raise KeyboardInterrupt here when a stop was asked for."""
    if _request.asked:
        raise KeyboardInterrupt


class SafePoints:
    """While the block runs on the main thread, a stop asked for waits for the block's next `safe_point` or its end.
    On another thread it changes nothing: signals reach only the main thread."""

    def __init__(self) -> None:
        self.on_main_thread = threading.current_thread() is threading.main_thread()
        self.routed = False
        self.sigterm_before: Any = signal.SIG_DFL  # what handled SIGTERM before the block (Prefect's in a flow run)

    def __enter__(self) -> None:
        if self.on_main_thread:
            _request.taking = True
            if _request.sigterm is not None:
                before = signal.signal(signal.SIGTERM, _request.sigterm)
                self.routed, self.sigterm_before = True, signal.SIG_DFL if before is None else before

    def __exit__(
        self, exc_type: type[BaseException] | None, exc_value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not self.on_main_thread:
            return
        if self.routed:
            signal.signal(signal.SIGTERM, self.sigterm_before)
        _request.taking = False  # first: from here on a signal raises at once, so no request is left untaken
        asked, _request.asked = _request.asked, False
        if asked and exc_type is None:
            raise KeyboardInterrupt


def stops_at_safe_points(funnel: Callable[Arguments, Result]) -> Callable[Arguments, Result]:
    """`funnel` runs as a `SafePoints` block: a stop asked for while it runs waits for its next `safe_point`."""

    @functools.wraps(funnel)
    def run(*args: Arguments.args, **kwargs: Arguments.kwargs) -> Result:
        with SafePoints():
            return funnel(*args, **kwargs)

    return run
