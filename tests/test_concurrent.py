"""Many workers, one schedule: runs from different processes over one PostgreSQL database.

Two `starbattle backfill` processes on overlapping dates, started together against one database (as two machines
would be): exactly one board per date and slot, every attempt of both runs recorded, the layout bank's use counts
exact, and neither process says anything but its summary.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections import Counter
from pathlib import Path

from pipeline_processes import SMALL_SLOTS, finished, starbattle, write_config
from postgres_server import fresh_database
from sqlmodel import Session, select

from starbattle_core.layouts import layout_bank
from starbattle_store import store_layouts
from starbattle_store.db import Attempt, Layout, PuzzleRecord, Run, ScheduleEntry, open_database


def test_processes_opening_a_fresh_database_at_once_all_succeed(postgres_url: str) -> None:
    """Each process creates the tables it finds missing; two at once must not collide."""
    opening = "import sys; from starbattle_store.db import open_database; open_database(sys.argv[1])"
    for _ in range(3):
        url = fresh_database(postgres_url)
        processes = [
            subprocess.Popen([sys.executable, "-c", opening, url], stderr=subprocess.PIPE, text=True) for _ in range(2)
        ]
        for process in processes:
            _out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err[-2000:]


def test_two_backfills_on_overlapping_dates_share_one_schedule(
    tmp_path: Path, prefect_api: str, postgres_url: str
) -> None:
    url = fresh_database(postgres_url)
    engine = open_database(url)
    # The 6x6 one-star bank, so each scheduled board's layout use is counted: a lost update would show.
    store_layouts(engine, 6, 1, layout_bank(6, 1))
    ranges = {"first": ("2026-11-01", "2026-11-03"), "second": ("2026-11-02", "2026-11-04")}
    processes = {
        # In-process generation (`workers: 1`): the race is between the two processes, and a local Dask cluster
        # in each (four worker processes on two cores) would only slow both down.
        name: starbattle(
            write_config(tmp_path / name, url, workers=1), prefect_api, "backfill", "--start", start, "--end", end
        )
        for name, (start, end) in ranges.items()
    }
    for name, process in processes.items():
        code, out, err = finished(process)
        start, end = ranges[name]
        assert code == 0, f"{name}: {out[-2000:]}\n{err[-3000:]}"
        assert out.startswith(f"backfill {start}..{end}: ") and "unfilled" not in out
        assert "Traceback" not in err and "rror" not in err, err[-3000:]

    dates = [dt.date(2026, 11, day) for day in range(1, 5)]
    names = [slot["name"] for slot in SMALL_SLOTS]
    with Session(engine) as session:
        schedule = session.exec(select(ScheduleEntry)).all()
        puzzles = session.exec(select(PuzzleRecord)).all()
        attempts = session.exec(select(Attempt)).all()
        runs = session.exec(select(Run)).all()
        uses = sum(layout.uses for layout in session.exec(select(Layout)).all())

    # Exactly one board per date and slot; a board that lost its slot left no row behind.
    assert Counter((entry.date, entry.slot) for entry in schedule) == Counter(
        (date, name) for date in dates for name in names
    )
    assert sorted(puzzle.id for puzzle in puzzles) == sorted(entry.puzzle_id for entry in schedule)
    assert uses == sum(1 for puzzle in puzzles if (puzzle.size, puzzle.stars) == (6, 1)) == len(dates)

    # Both runs finished cleanly; each recorded an attempt for every slot it generated, ending in its board or in
    # the other run's; the accepted attempts are exactly the schedule.
    assert sorted(run.status for run in runs) == ["completed", "completed"]
    by_run: dict[int | None, dict[tuple[dt.date, str], list[Attempt]]] = {}
    for attempt in sorted(attempts, key=lambda a: a.id or 0):
        by_run.setdefault(attempt.run_id, {}).setdefault((attempt.date, attempt.slot), []).append(attempt)
    assert set(by_run) == {run.id for run in runs}
    scheduled = {(entry.date, entry.slot): entry for entry in schedule}
    for slots in by_run.values():
        for key, tried in slots.items():
            assert tried[-1].outcome in ("accepted", "lost") and key in scheduled
            if tried[-1].outcome == "accepted":
                assert tried[-1].puzzle_id == scheduled[key].puzzle_id
                assert scheduled[key].run_id == tried[-1].run_id
    accepted = sorted(a.puzzle_id for a in attempts if a.outcome == "accepted")
    assert accepted == sorted(entry.puzzle_id for entry in schedule)
    # The race really happened: both runs generated some slot of the shared dates, and one of them lost it.
    contested = set.intersection(*(set(slots) for slots in by_run.values()))
    assert contested and all(key[0] in dates[1:3] for key in contested)
    assert any(a.outcome == "lost" for a in attempts)
