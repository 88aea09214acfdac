"""The pipeline's database: the tables (db.py, SQLModel; SQLite by default, PostgreSQL by URL) and the units of
work on them, by concern: what the flows, the CLI and the site read and write, each in one transaction. No Prefect
import, no config: callers pass an engine (`starbattle_store.db.open_database`).

    records    the plain values boards and counters travel as (`AcceptedBoard`, `Effort`, `ScheduledBoard`)
    runs       one row per flow run and how it ended
    schedule   which slots of a date are filled, a day's boards, storing an accepted board
    attempts   each generator call's counters, the next attempt's number, counters per slot
    layouts    the layout bank
    paths      solve paths for regrading

Callers import from `starbattle_store`; the names below are the package's whole surface (the models are in
`starbattle_store.db`, the canonical keys of region maps and layouts in `starbattle_store.variety`).
"""

from starbattle_store.attempts import SlotStats, next_attempt, save_effort, slot_stats
from starbattle_store.layouts import layout_rows_bytes, store_layouts, stored_layouts
from starbattle_store.paths import puzzles_without_path, save_solve_path, stored_puzzle
from starbattle_store.records import AcceptedBoard, Effort, ScheduledBoard
from starbattle_store.runs import finish_run, run_counts, running_runs, start_run
from starbattle_store.schedule import complete_dates, day_boards, replacements, save_board, scheduled_slots

__all__ = [
    "AcceptedBoard",
    "Effort",
    "ScheduledBoard",
    "SlotStats",
    "complete_dates",
    "day_boards",
    "finish_run",
    "layout_rows_bytes",
    "next_attempt",
    "puzzles_without_path",
    "replacements",
    "run_counts",
    "running_runs",
    "save_board",
    "save_effort",
    "save_solve_path",
    "scheduled_slots",
    "slot_stats",
    "start_run",
    "store_layouts",
    "stored_layouts",
    "stored_puzzle",
]
