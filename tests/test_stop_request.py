"""A Ctrl-C or SIGTERM while a funnel runs is taken at the funnel's next safe point, never inside the library code
the main thread happens to be in (flows/stop_request.py); anywhere else, and for a second signal, at once.

In-process, with the CLI's own signal handler installed and a real signal sent to this process; the funnel is the
flow's `run_rounds` on a stand-in task runner (no Prefect server) whose submission runs Prefect's own
`serialize_context`, as prefect-dask's does: a trace function sends the Ctrl-C from inside it, which makes the
race of tests/test_signals.py happen on every run.
"""

from __future__ import annotations

import datetime as dt
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import Future
from types import FrameType
from typing import Any

import pytest
from conftest import run_starbattle
from prefect.context import serialize_context
from prefect.exceptions import TerminationSignal
from pydantic import BaseModel, field_serializer

from flows import stop_request
from flows.funnel import run_rounds
from flows.policy import SlotWork, start_work
from flows.settings import PipelineConfig, Settings, SlotConfig
from flows.stop_request import CHECK_SECONDS, SafePoints, defer_stop, safe_point
from starbattle_cli import app


@pytest.fixture
def cli_handler() -> Iterator[None]:
    """The CLI's handler on SIGINT, as `starbattle` installs it; this process's own afterwards."""
    previous = signal.signal(signal.SIGINT, app._stop)
    app._stopped_by.clear()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        app._stopped_by.clear()


class SignalInsideSerializer:
    """A trace function: one signal (a Ctrl-C unless told), as Prefect's settings serializer (Python code that
    pydantic calls while `serialize_context` runs) starts: where the CI runs' signals landed."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        self.signum = signum
        self.sent = False

    def __call__(self, frame: FrameType, event: str, _arg: object) -> None:
        if event == "call" and frame.f_code.co_name == "_ser_model" and not self.sent:
            self.sent = True
            signal.raise_signal(self.signum)


class NeverDone:
    """A Prefect future of a task run that never ends."""

    def __init__(self) -> None:
        self.wrapped_future: Future[Any] = Future()


class Cancelled(NeverDone):
    """A Prefect future whose task run the task runner cancelled (as Dask does when its scheduler is lost)."""

    def __init__(self) -> None:
        super().__init__()
        self.wrapped_future.cancel()

    def result(self) -> Any:
        raise AssertionError("a cancelled chunk's result is never asked for")


class StandInRunner:
    """Takes submissions as Prefect's task runners do (serialise the run's context with Prefect's own
    `serialize_context`, hand over the task) and leaves them running: no stage ever finishes, so the funnel waits
    for one until it is stopped."""

    def __init__(self, interrupt_first: bool, signum: int = signal.SIGINT) -> None:
        self.interrupt_first = interrupt_first
        self.signum = signum
        self.submitted: list[str] = []

    def submit(self, _task: Any, parameters: dict[str, Any]) -> NeverDone:
        previous = sys.gettrace()
        if self.interrupt_first and not self.submitted:
            sys.settrace(SignalInsideSerializer(self.signum))
        try:
            serialize_context()
        finally:
            sys.settrace(previous)
        self.submitted.append(parameters["label"])
        return NeverDone()


def _works(count: int) -> tuple[Settings, list[SlotWork]]:
    slots = [SlotConfig(name=f"s{i}", game="starbattle", size=6, stars=1, band="easy") for i in range(count)]
    settings = Settings(pipeline=PipelineConfig(slots=slots))
    return settings, [
        start_work(settings.pipeline, dt.date(2026, 12, 1), i, slot, 0, ()) for i, slot in enumerate(slots)
    ]


def _raised_in(error: BaseException) -> str:
    return traceback.extract_tb(error.__traceback__)[-1].name


@pytest.mark.usefixtures("cli_handler")
def test_a_ctrl_c_inside_a_submission_stops_the_funnel_after_it_not_inside_it() -> None:
    settings, works = _works(2)
    runner = StandInRunner(interrupt_first=True)
    with pytest.raises(KeyboardInterrupt) as stopped:  # on main: pydantic's PydanticSerializationError around it
        run_rounds(settings, runner, 1, works, publish=lambda: None)
    # The interrupted submission went through whole; the stop came at the safe point before the next one.
    assert len(runner.submitted) == 1 and _raised_in(stopped.value) == "safe_point"
    assert app._stopped_by == [signal.SIGINT]


def prefects_sigterm_handler(signum: int, _frame: FrameType | None) -> None:
    """What Prefect's flow engine puts on SIGTERM for the length of a run: it raises TerminationSignal."""
    raise TerminationSignal(signum)


@pytest.mark.usefixtures("cli_handler")
def test_a_sigterm_inside_a_submission_during_a_flow_run_stops_the_funnel_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI's handler takes SIGTERM back from Prefect's while the funnel runs, and gives it back after."""
    monkeypatch.setattr(stop_request._request, "sigterm", app._stop)  # as `starbattle`'s main routes it
    previous = signal.signal(signal.SIGTERM, prefects_sigterm_handler)
    try:
        settings, works = _works(2)
        runner = StandInRunner(interrupt_first=True, signum=signal.SIGTERM)
        with pytest.raises(KeyboardInterrupt) as stopped:
            run_rounds(settings, runner, 1, works, publish=lambda: None)
        assert signal.getsignal(signal.SIGTERM) is prefects_sigterm_handler
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert len(runner.submitted) == 1 and _raised_in(stopped.value) == "safe_point"
    assert app._stopped_by == [signal.SIGTERM]


@pytest.mark.usefixtures("cli_handler")
def test_a_funnel_waiting_for_its_stages_takes_a_stop_within_its_check_interval() -> None:
    settings, works = _works(2)
    runner = StandInRunner(interrupt_first=False)
    sent: list[float] = []

    def ctrl_c() -> None:
        sent.append(time.monotonic())
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    threading.Timer(0.3, ctrl_c).start()
    # A funnel that never looked would wait for ever: a second Ctrl-C ends it (raised at once, so the test fails).
    second = threading.Timer(10.0, ctrl_c)
    second.start()
    with pytest.raises(KeyboardInterrupt) as stopped:
        run_rounds(settings, runner, 1, works, publish=lambda: None)
    took = time.monotonic() - sent[0]
    second.cancel()
    # Taken at the safe point before a submission, or in the wait after all six of the chunk's stages.
    assert 1 <= len(runner.submitted) <= 6 and _raised_in(stopped.value) == "safe_point"
    assert app._stopped_by == [signal.SIGINT]
    assert took < 1.0 + CHECK_SECONDS  # loose: a loaded machine delays this thread


def test_a_chunk_the_task_runner_cancelled_fails_the_round_with_its_name() -> None:
    """Not distributed's own UnboundLocalError from the result of a cancelled future (dask/distributed#8514)."""
    settings, works = _works(1)

    class CancellingRunner:
        def submit(self, _task: Any, **_parameters: Any) -> Cancelled:
            return Cancelled()

    with pytest.raises(RuntimeError, match=r"^the task runner cancelled chunk 1 of 1 of this round$"):
        run_rounds(settings, CancellingRunner(), 1, works, publish=lambda: None)


@pytest.mark.usefixtures("cli_handler")
def test_outside_a_funnel_a_ctrl_c_raises_at_once() -> None:
    with pytest.raises(KeyboardInterrupt) as stopped:
        signal.raise_signal(signal.SIGINT)
    assert _raised_in(stopped.value) == "_stop" and app._stopped_by == [signal.SIGINT]


def _two_signals_in_a_funnel() -> None:
    with SafePoints():
        signal.raise_signal(signal.SIGINT)  # only asks
        signal.raise_signal(signal.SIGINT)


@pytest.mark.usefixtures("cli_handler")
def test_inside_a_funnel_the_first_ctrl_c_waits_for_a_safe_point_and_a_second_raises_at_once() -> None:
    with pytest.raises(KeyboardInterrupt) as stopped:
        _two_signals_in_a_funnel()
    assert _raised_in(stopped.value) == "_stop" and app._stopped_by == [signal.SIGINT, signal.SIGINT]
    assert not defer_stop()  # the block is over: a signal now raises at once again


def _a_signal_after_the_last_safe_point(reached: list[str]) -> None:
    with SafePoints():
        safe_point()
        signal.raise_signal(signal.SIGINT)
        reached.append("end")


@pytest.mark.usefixtures("cli_handler")
def test_a_stop_asked_for_after_the_last_safe_point_is_taken_at_the_block_s_end() -> None:
    reached: list[str] = []
    with pytest.raises(KeyboardInterrupt) as stopped:
        _a_signal_after_the_last_safe_point(reached)
    assert reached == ["end"] and _raised_in(stopped.value) == "__exit__"
    with SafePoints():  # taken: the next funnel starts with no stop asked for
        safe_point()


def test_a_block_on_another_thread_leaves_the_main_thread_s_stops_alone() -> None:
    asked: list[bool] = []

    def funnel() -> None:
        with SafePoints():
            asked.append(defer_stop())

    worker = threading.Thread(target=funnel)
    worker.start()
    worker.join()
    assert asked == [False] and not stop_request._request.taking and not stop_request._request.asked


class FlowRunStart(BaseModel):
    """A stand-in for the request Prefect serialises as a flow run starts (outside any funnel): the Ctrl-C lands in
    its parameters' serializer, Python code that pydantic calls."""

    parameters: dict[str, str]

    @field_serializer("parameters")
    def _parameters(self, parameters: dict[str, str]) -> dict[str, str]:
        signal.raise_signal(signal.SIGINT)
        return parameters


def test_a_stop_a_library_turned_into_another_error_outside_a_funnel_still_ends_with_its_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import flows.settings

    def load_settings(*_args: object, **_kwargs: object) -> Settings:
        FlowRunStart(parameters={"date": "2026-12-01"}).model_dump()  # a PydanticSerializationError comes out
        raise AssertionError("not reached")

    monkeypatch.setattr(flows.settings, "load_settings", load_settings)
    status, _, err = run_starbattle(capsys, "daily", "--date", "2026-12-01")
    assert (status, err) == (130, "error: interrupted (Ctrl-C)\n")
