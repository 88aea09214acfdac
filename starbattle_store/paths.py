"""Solve paths for regrading: the stored boards a solver version has no path for, a stored board as the engine's
puzzle, and a regraded path stored once per version."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from starbattle_core.puzzle import Puzzle
from starbattle_store.db import PuzzleRecord, SolvePath
from starbattle_store.records import stored_record


def puzzles_without_path(engine: Engine, solver_version: str) -> list[int]:
    """Ids of stored boards that have no solve path under `solver_version` (stale after a solver change)."""
    with Session(engine) as session:
        current = select(SolvePath.puzzle_id).where(SolvePath.solver_version == solver_version)
        stale = select(PuzzleRecord.id).where(col(PuzzleRecord.id).not_in(current)).order_by(col(PuzzleRecord.id))
        # A stored row always has its id; the model types it optional only for rows not yet inserted.
        return [puzzle_id for puzzle_id in session.exec(stale).all() if puzzle_id is not None]


def stored_puzzle(engine: Engine, puzzle_id: int) -> Puzzle:
    with Session(engine) as session:
        record = session.get(PuzzleRecord, puzzle_id)
        if record is None:
            raise KeyError(puzzle_id)
        return stored_record(record, None).puzzle(where=f"puzzle {puzzle_id}")


def save_solve_path(
    engine: Engine, puzzle_id: int, *, solver_version: str, difficulty: int, band: str, steps: Any
) -> bool:
    """Store a regraded solve path; False when that version's path is already there (a concurrent regrade)."""
    try:
        with Session(engine) as session:
            session.add(
                SolvePath(
                    puzzle_id=puzzle_id,
                    solver_version=solver_version,
                    difficulty=difficulty,
                    band=band,
                    steps=json.dumps(steps),
                )
            )
            session.commit()
            return True
    except IntegrityError:
        return False
