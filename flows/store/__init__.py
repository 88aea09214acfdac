"""Units of work on the pipeline's database, by concern: what the flows and the CLI read and write, each in one
transaction. No Prefect import.

    records    the plain values boards and counters travel as (`AcceptedBoard`, `Effort`, `ScheduledBoard`)
    runs       one row per flow run and how it ended
    schedule   which slots of a date are filled, a day's boards, storing an accepted board
    attempts   each generator call's counters, the next attempt's number, counters per slot
    layouts    the layout bank
    paths      solve paths for regrading

Callers import from `flows.store`; the names below are the package's whole surface.
"""

from flows.store.attempts import SlotStats, next_attempt, save_effort, slot_stats
from flows.store.layouts import layout_rows_bytes, store_layouts, stored_layouts
from flows.store.paths import puzzles_without_path, save_solve_path, stored_puzzle
from flows.store.records import AcceptedBoard, Effort, ScheduledBoard
from flows.store.runs import finish_run, run_counts, running_runs, start_run
from flows.store.schedule import complete_dates, day_boards, replacements, save_board, scheduled_slots

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
