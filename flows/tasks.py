"""Prefect tasks: thin wrappers around engine calls and units of work on the database.

Generation runs one task per (date, slot, attempt): the generator's `generate` runs every stage of a slot (layout
sampling, region growth with repair, grading, fun and looks scoring, hill-climb tuning) over a batch of candidates
inside one call, and its counters report each stage's rejections and seconds. Tasks take and return plain
picklable values (configs, dataclasses, ids), never engines or sessions, so the same tasks run in a process pool.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from typing import Any

import numpy as np
from prefect import task
from prefect.cache_policies import NO_CACHE
from sqlalchemy.engine import Engine

from starbattle_core.generator import GeneratorConfig, board_to_json, generate
from starbattle_core.grader import GradingConfig, grade, walkthrough_json
from starbattle_core.layouts import layout_bank

from . import store
from .db import open_database
from .settings import SlotConfig
from .store import AcceptedBoard, Effort

# The generator has no version string of its own: the project's version names the code that made a board (the
# step solver's version, stored with every solve path, names the grading).
GENERATOR_VERSION = f"starbattle {metadata.version('starbattle')}"


@dataclass(frozen=True)
class SlotOutcome:
    """What one generator call for a slot gave back: a board (or None when the budget ran out) and its effort."""

    slot: str
    date: dt.date
    board: AcceptedBoard | None
    effort: Effort


def derive_seed(date: dt.date, slot: str, attempt: int) -> int:
    """The seed of one attempt at one slot of one date: the same (date, slot, attempt) always gives the same board
    for the same config and versions. 60 bits, so it fits any database's BIGINT."""
    digest = hashlib.sha256(f"{date.isoformat()}|{slot}|{attempt}".encode()).hexdigest()
    return int(digest[:15], 16)


@lru_cache(maxsize=4)
def database(url: str) -> Engine:
    """One engine per URL and process (a task in a pool worker opens its own)."""
    return open_database(url)


def accepted_board(board: Any) -> AcceptedBoard:
    """The generator's board as the plain values the database keeps."""
    shared = board_to_json(board)
    return AcceptedBoard(
        game=shared["game"],
        size=int(shared["size"]),
        stars=int(shared["stars"]),
        regions=list(shared["regions"]),
        solution=[[int(r), int(c)] for r, c in shared["solution"]],
        difficulty=int(shared["difficulty"]),
        band=str(shared["band"]),
        fun=float(shared["fun"]),
        looks=float(shared["looks"]),
        seed=int(shared["seed"]),
        generator_version=GENERATOR_VERSION,
        solver_version=str(shared["version"]),
        steps=walkthrough_json(board.puzzle, board.grade),
        layout_rows=store.layout_rows_bytes(shared["solution"], int(shared["size"])),
    )


@task(name="generate-slot", task_run_name="{slot.name}-{date}-attempt-{attempt}", cache_policy=NO_CACHE)
def generate_slot(
    slot: SlotConfig,
    date: dt.date,
    attempt: int,
    budget_seconds: float,
    generator: GeneratorConfig,
    grading: GradingConfig,
    avoid: tuple[int, ...] = (),
) -> SlotOutcome:
    """Run the generator's stages for one slot until a board of its band is accepted or the budget is spent."""
    seed = derive_seed(date, slot.name, attempt)
    began = time.perf_counter()
    generation = generate(
        slot.as_generator_slot(),
        seed,
        budget_seconds,
        config=generator,
        grading=grading,
        avoid=avoid,
    )
    counters = generation.counters
    effort = Effort(
        attempt=attempt,
        seed=seed,
        candidates=int(counters.candidates),
        repair_rounds=int(counters.repair_rounds),
        rejections={str(reason): int(count) for reason, count in counters.rejections.items()},
        stage_seconds={str(stage): float(seconds) for stage, seconds in counters.seconds.items()},
        seconds=time.perf_counter() - began,
    )
    board = accepted_board(generation.board) if generation.board is not None else None
    return SlotOutcome(slot=slot.name, date=date, board=board, effort=effort)


@task(name="schedule-board", task_run_name="schedule-{slot}-{date}", cache_policy=NO_CACHE)
def schedule_board(
    database_url: str,
    run_id: int,
    date: dt.date,
    slot: str,
    position: int,
    board: AcceptedBoard,
    effort: Effort,
    replace: bool = False,
) -> int | None:
    """Store the board with its solve path, schedule entry and counters in one transaction; None when another run
    took the slot first (this board is then discarded)."""
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


@task(name="record-effort", task_run_name="record-{slot}-{date}-{outcome}", cache_policy=NO_CACHE)
def record_effort(database_url: str, run_id: int, date: dt.date, slot: str, effort: Effort, outcome: str) -> None:
    """Keep the counters of an attempt that published nothing (its budget ran out, or its board was too close to
    another of the day's)."""
    store.save_effort(database(database_url), run_id=run_id, date=date, slot=slot, effort=effort, outcome=outcome)


@task(name="enumerate-layouts", task_run_name="enumerate-{size}x{size}-{stars}", cache_policy=NO_CACHE)
def enumerate_layout_bank(size: int, stars: int) -> np.ndarray:
    """Every valid layout of (size, stars) in the engine's enumeration order, as an array of row masks."""
    return layout_bank(size, stars)


@task(name="store-layouts", task_run_name="store-{size}x{size}-{stars}-from-{start}", cache_policy=NO_CACHE)
def store_layout_batch(database_url: str, size: int, stars: int, rows: Any, start: int) -> int:
    return store.store_layouts(database(database_url), size, stars, rows, start)


@task(name="regrade-batch", task_run_name="regrade-{first}-to-{last}", cache_policy=NO_CACHE)
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
