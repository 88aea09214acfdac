"""Prefect tasks: thin wrappers around engine calls and units of work on the database.

Generation is the generator's funnel as one task per stage (`sample_layouts`, `grow_regions`, `grade_candidates`,
`score_candidates`, `tune_candidates`, `verify_candidates`), each on a chunk of the round's batches: the flow chains
them per chunk and round (flows/funnel.py), so a day is tens of task runs and the dashboard shows where the time
goes. Tasks take and return plain picklable values (configs, the engine's `Batch`, ids), never engines or sessions,
so the same tasks run on a Dask cluster's workers. The tasks that write to the database retry after a delay (a
locked SQLite file, a PostgreSQL restart); their writes are single transactions, so a retry never doubles a row.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any

import numpy as np
from prefect import Task, task
from prefect.cache_policies import NO_CACHE
from prefect.context import TagsContext
from sqlalchemy.engine import Engine

import starbattle_store as store
from starbattle_core.generator import Board, GeneratorConfig, board_record
from starbattle_core.generator.funnel import (
    Batch,
    StageFunction,
    grade_stage,
    grow_stage,
    sample_stage,
    score_stage,
    tune_stage,
    verify_stage,
)
from starbattle_core.grader import GradingConfig, grade, walkthrough_json
from starbattle_core.layouts import layout_bank
from starbattle_store import AcceptedBoard, Effort
from starbattle_store.db import open_database


@lru_cache(maxsize=4)
def database(url: str) -> Engine:
    """One engine per URL and process (a task in a cluster's worker opens its own)."""
    return open_database(url)


def accepted_board(board: Board) -> AcceptedBoard:
    """The generator's board as the plain values the database keeps: its record, solve path and layout row masks."""
    record = board_record(board)
    return AcceptedBoard(
        record=record,
        steps=walkthrough_json(board.puzzle, board.grade),
        layout_rows=store.layout_rows_bytes(record.solution, record.size),
    )


def untagged() -> TagsContext:
    """A context in which task runs carry no tags, not even their run's (manual, backfill: flows/runner.py). Prefect
    asks the server for the concurrency slots of every tag a task run has, and on its default SQLite database that
    write collides with the run's states and logs often enough to cost seconds: each collision is answered 503 and
    retried two seconds later (the nightly of 2027-01-12 took 22.0 s untagged against 30.9 tagged:
    docs/performance.md)."""
    return TagsContext(current_tags=set())


# Database writes retry: a locked SQLite file or a restarting PostgreSQL server is worth a second try.
WRITE_RETRIES, WRITE_RETRY_DELAY = 2, 5


# The funnel: one task per stage, each on a chunk of batches (one or more slots' candidates of one round); the
# stage functions are the engine's (starbattle_core/generator/funnel.py). `label` names the run in the dashboard.
STAGES = (
    ("sample_layouts", sample_stage, "Draw each candidate's star layout; drop near-duplicates of the day's boards."),
    ("grow_regions", grow_stage, "Region growth around each layout, impostor repair to one solution, the looks gate."),
    ("grade_candidates", grade_stage, "The step solver on each board, capped for the easy bands."),
    ("score_candidates", score_stage, "Band and fun verdicts; boards near their band go on to tuning."),
    ("tune_candidates", tune_stage, "Hill-climb the boards near their band; the final band, fun and looks gates."),
    ("verify_candidates", verify_stage, "The full counter: exactly the intended solution, or the board is dropped."),
)


def stage_task(name: str, stage: StageFunction, description: str) -> Task[..., list[Batch]]:
    """The Prefect task of one funnel stage: the engine's stage function on each batch of a chunk."""

    def run_stage(
        batches: list[Batch],
        generator: GeneratorConfig,
        grading: GradingConfig,
        label: str,  # noqa: ARG001 (named in task_run_name: the dashboard says whose candidates these are)
    ) -> list[Batch]:
        return [stage(batch, generator, grading) for batch in batches]

    # The task's key (and the dashboard's grouping of its runs) follows the function's qualified name.
    run_stage.__qualname__ = run_stage.__name__ = name
    run_stage.__doc__ = description
    return task(name=name, task_run_name=name + " {label}", cache_policy=NO_CACHE)(run_stage)


STAGE_TASKS = tuple(stage_task(name, stage, description) for name, stage, description in STAGES)


@task(
    name="schedule_board",
    task_run_name="schedule_board {slot} {date}",
    cache_policy=NO_CACHE,
    retries=WRITE_RETRIES,
    retry_delay_seconds=WRITE_RETRY_DELAY,
)
def schedule_board(
    database_url: str,
    run_id: int,
    date: dt.date,
    slot: str,
    position: int,
    board: AcceptedBoard,
    effort: Effort,
    replace: str | None = None,
) -> int | None:
    """Store the board with its solve path, schedule entry and counters in one transaction; None when another run
    took the slot first (this board is then discarded). `replace`: the slot's board, if any, is replaced, for this
    reason."""
    return store.save_board(
        database(database_url),
        run_id=run_id,
        date=date,
        slot=slot,
        position=position,
        board=board,
        effort=effort,
        replace=replace,
    )


@task(
    name="record_effort",
    task_run_name="record_effort {slot} {date} {outcome}",
    cache_policy=NO_CACHE,
    retries=WRITE_RETRIES,
    retry_delay_seconds=WRITE_RETRY_DELAY,
)
def record_effort(database_url: str, run_id: int, date: dt.date, slot: str, effort: Effort, outcome: str) -> None:
    """Keep the counters of an attempt that published nothing (its budget ran out, or its board was too close to
    another of the day's)."""
    store.save_effort(database(database_url), run_id=run_id, date=date, slot=slot, effort=effort, outcome=outcome)


@task(name="enumerate_layouts", task_run_name="enumerate_layouts {size}x{size} {stars}", cache_policy=NO_CACHE)
def enumerate_layouts(size: int, stars: int) -> np.ndarray:
    """Every valid layout of (size, stars) in the engine's enumeration order, as an array of row masks."""
    return layout_bank(size, stars)


@task(
    name="store-layouts",
    task_run_name="store-{size}x{size}-{stars}-from-{start}",
    cache_policy=NO_CACHE,
    retries=WRITE_RETRIES,
    retry_delay_seconds=WRITE_RETRY_DELAY,
)
def store_layout_batch(database_url: str, size: int, stars: int, rows: Any, start: int) -> int:
    return store.store_layouts(database(database_url), size, stars, rows, start)


@task(
    name="regrade-batch",
    task_run_name="regrade-{first}-to-{last}",
    cache_policy=NO_CACHE,
    retries=WRITE_RETRIES,
    retry_delay_seconds=WRITE_RETRY_DELAY,
)
def regrade_batch(
    database_url: str,
    puzzle_ids: list[int],
    grading: GradingConfig,
    first: int,  # noqa: ARG001 (named in task_run_name, so the run's name says which boards it regrades)
    last: int,  # noqa: ARG001
) -> int:
    """Grade stored boards again with the current solver and store their new solve paths; returns paths added."""
    engine = database(database_url)
    added = 0
    for puzzle_id in puzzle_ids:
        puzzle = store.stored_puzzle(engine, puzzle_id)
        result = grade(puzzle, grading)
        added += store.save_solve_path(
            engine,
            puzzle_id,
            solver_version=str(result.version),
            difficulty=int(result.difficulty),
            band=str(result.band),
            steps=walkthrough_json(puzzle, result),
        )
    return added
