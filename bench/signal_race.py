"""How often a Ctrl-C timed into a task submission comes out of a real daily run as something else than a clean stop.

Usage: python bench/signal_race.py [--trials N] [--seconds S] [--where]

The race of tests/test_signals.py (seen once on a fresh clone): a signal that lands while the flow's main thread is
inside Prefect's `serialize_context` (every process-pool submission serialises the run's context with pydantic)
raised KeyboardInterrupt inside a pydantic serializer, which wrapped it in a PydanticSerializationError that Prefect
logged as the flow's error with a traceback. Here it is made to happen on purpose: a daily run on the process pool
(two slots that never finish, behind a temporary Prefect server: `prefect_test_harness`), the CLI's own SIGINT
handler installed, and a watcher thread that looks at the main thread's stack and sends the Ctrl-C the moment it is
inside Prefect's settings serializer. Each trial prints what came out and how long after the signal; the last line
counts them, `clean` (KeyboardInterrupt, the run crashed as a stop) against `wrapped` (any other exception or
state), with the median and longest seconds from the signal to the run's end.

Run it on the branch, and on main's code for the figure before (PYTHONPATH=<a checkout of main>).

`--where` instead runs one small daily to its end (two easy slots, on the pool) and counts where its main thread runs
Python code called from inside a pydantic serializer (where a KeyboardInterrupt gets wrapped): by the project
function it came from, and whether a funnel was taking stops at safe points then (flows/stop_request.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType

import yaml

STUCK = {"game": "starbattle", "size": 6, "stars": 1, "band": "expert", "candidate_budget": 100_000}
EASY = [
    {"name": "starbattle-easy", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-easy", "game": "queens", "size": 6, "stars": 1, "band": "easy"},
]
SERIALIZERS = {"model_dump", "model_dump_json", "dump_python", "dump_json"}  # pydantic's, calling into its core


def _config(folder: Path, slots: list[dict[str, object]]) -> Path:
    pipeline = {
        "slots": slots,
        "database_url": f"sqlite:///{folder / 'race.db'}",
        "prefect_home": str(folder / "prefect"),
        "workers": 2,
        "budget_seconds": 3600,
        "site_dir": None,
    }
    path = folder / "starbattle.yaml"
    path.write_text(yaml.safe_dump({"pipeline": pipeline}), encoding="utf-8")
    return path


def _inside_settings_serializer(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_name == "_ser_model" and "prefect" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def _watch(main: int, after: float, give_up: float, sent: list[float]) -> None:
    """Send SIGINT to the main thread as soon as it is inside Prefect's settings serializer (after `after`
    seconds, once the pool is at work); at `give_up` send it wherever the thread is."""
    start = time.monotonic()
    while time.monotonic() - start < give_up:
        if time.monotonic() - start > after and _inside_settings_serializer(sys._current_frames().get(main)):
            break
        time.sleep(0.0002)
    sent.append(time.monotonic())
    signal.pthread_kill(main, signal.SIGINT)


def _project_caller(frame: FrameType | None) -> str:
    while frame is not None:
        name = frame.f_code.co_filename
        if "site-packages" not in name and "/flows/" in name:
            return f"{Path(name).name}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "Prefect's flow engine"


def _where(config: Path) -> None:
    from flows import stop_request
    from flows.daily import daily

    calls: Counter[tuple[bool, str]] = Counter()

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        caller = frame.f_back
        code = None if caller is None else caller.f_code
        if event == "call" and code is not None and code.co_name in SERIALIZERS and "pydantic" in code.co_filename:
            calls[stop_request._request.taking, _project_caller(frame)] += 1

    sys.setprofile(profile)
    try:
        daily(date="2026-12-01", config_path=str(config))
    finally:
        sys.setprofile(None)
    for (taking, caller), count in calls.most_common():
        print(f"{count:6d} {'in a funnel' if taking else 'outside   '} from {caller}")
    print(f"{sum(calls.values())} calls from inside pydantic serializers on the main thread")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=3.0, help="how long each run goes before the watcher aims")
    parser.add_argument("--where", action="store_true", help="count the main thread's serializer calls instead")
    options = parser.parse_args()

    from prefect.testing.utilities import prefect_test_harness

    from starbattle_cli import app

    outcomes: Counter[str] = Counter()
    stops: list[float] = []
    with tempfile.TemporaryDirectory() as folder, prefect_test_harness(server_startup_timeout=300):
        from flows.daily import daily

        if options.where:
            _where(_config(Path(folder), EASY))
            return
        config = _config(Path(folder), [{**STUCK, "name": "stuck-a"}, {**STUCK, "name": "stuck-b"}])
        previous = signal.signal(signal.SIGINT, app._stop)
        try:
            for trial in range(options.trials):
                date = dt.date(2026, 12, 1) + dt.timedelta(days=trial)
                sent: list[float] = []
                watcher = threading.Thread(
                    target=_watch, args=(threading.main_thread().ident, options.seconds, options.seconds + 30, sent)
                )
                app._stopped_by.clear()
                started = time.monotonic()
                watcher.start()
                try:
                    state = daily(date=date.isoformat(), config_path=str(config), return_state=True)
                    outcome = f"state {state.type.value}: {state.message}"
                except KeyboardInterrupt:
                    outcome = "clean"
                except Exception as error:  # what the race gave: the stop came out as another error
                    outcome = f"{type(error).__name__}: {str(error)[:80]}"
                ended = time.monotonic()
                watcher.join()
                outcomes["clean" if outcome == "clean" else "wrapped"] += 1
                stops.append(ended - sent[0])
                print(
                    f"trial {trial}: signal at {sent[0] - started:.2f} s, run ended {stops[-1]:.2f} s later: {outcome}",
                    flush=True,
                )
        finally:
            signal.signal(signal.SIGINT, previous)
    print(
        f"{options.trials} trials: {outcomes['clean']} clean, {outcomes['wrapped']} wrapped; from the signal to the "
        f"run's end: median {statistics.median(stops):.2f} s, longest {max(stops):.2f} s"
    )


if __name__ == "__main__":
    main()
