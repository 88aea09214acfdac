"""The schedule: which dates and slots have their board, the boards of a day as the CLI and the site show them, and
storing an accepted board with everything that goes with it in one transaction."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from starbattle_store.attempts import add_effort, save_effort
from starbattle_store.db import Attempt, Layout, PuzzleRecord, Replacement, ScheduleEntry, SolvePath
from starbattle_store.records import AcceptedBoard, Effort, ScheduledBoard, puzzle_row, solve_path_row, stored_record
from starbattle_store.variety import board_keys


def scheduled_slots(engine: Engine, date: dt.date) -> set[str]:
    with Session(engine) as session:
        return set(session.exec(select(ScheduleEntry.slot).where(ScheduleEntry.date == date)).all())


def complete_dates(engine: Engine, dates: Sequence[dt.date], slot_names: Sequence[str]) -> set[dt.date]:
    """The dates among `dates` whose every slot is scheduled."""
    if not dates:
        return set()
    wanted = set(slot_names)
    filled: dict[dt.date, set[str]] = defaultdict(set)
    with Session(engine) as session:
        rows = session.exec(
            select(col(ScheduleEntry.date), col(ScheduleEntry.slot)).where(
                col(ScheduleEntry.date) >= min(dates), col(ScheduleEntry.date) <= max(dates)
            )
        ).all()
    for date, slot in rows:
        filled[date].add(slot)
    return {date for date in dates if wanted <= filled[date]}


def day_boards(engine: Engine, date: dt.date, solver_version: str | None = None) -> list[ScheduledBoard]:
    """The boards published for a date, in slot order, with their solve paths (the given solver version's, else the
    newest stored) and the candidates their accepting attempt tried."""
    with Session(engine) as session:
        rows = session.exec(
            select(ScheduleEntry, PuzzleRecord)
            .join(PuzzleRecord, col(PuzzleRecord.id) == ScheduleEntry.puzzle_id)
            .where(ScheduleEntry.date == date)
            .order_by(col(ScheduleEntry.position))
        ).all()
        boards = []
        for entry, puzzle in rows:
            assert puzzle.id is not None
            paths = session.exec(
                select(SolvePath).where(SolvePath.puzzle_id == puzzle.id).order_by(col(SolvePath.id).desc())
            ).all()
            chosen = next((path for path in paths if path.solver_version == solver_version), None)
            chosen = chosen or (paths[0] if paths else None)
            candidates = session.exec(
                select(Attempt.candidates).where(Attempt.puzzle_id == puzzle.id, Attempt.outcome == "accepted")
            ).first()
            boards.append(
                ScheduledBoard(
                    date=entry.date,
                    slot=entry.slot,
                    position=entry.position,
                    puzzle_id=puzzle.id,
                    record=stored_record(puzzle, chosen),
                    candidates=candidates or 0,
                    steps=json.loads(chosen.steps) if chosen else None,
                )
            )
        return boards


def save_board(
    engine: Engine,
    *,
    run_id: int | None,
    date: dt.date,
    slot: str,
    position: int,
    board: AcceptedBoard,
    effort: Effort,
    replace: str | None = None,
) -> int | None:
    """Store an accepted board with its solve path, schedule entry and counters in ONE transaction.

    Returns the new puzzle id, or None when another run scheduled this (date, slot) first: the UNIQUE(date, slot)
    constraint makes the later commit fail, this board is discarded and its attempt recorded as lost. With
    `replace` (the reason), the slot's board, if any, is unscheduled in the same transaction and marked replaced by
    this one (a forced re-run, an operator's `replace`); its puzzle row stays.
    """
    try:
        with Session(engine) as session:
            old = None
            if replace is not None:
                old = session.exec(
                    select(ScheduleEntry).where(ScheduleEntry.date == date, ScheduleEntry.slot == slot)
                ).first()
                if old is not None:
                    session.delete(old)
                    # the unscheduled board is no longer published: its map and layout may be published again
                    session.execute(
                        update(PuzzleRecord)
                        .where(col(PuzzleRecord.id) == old.puzzle_id)
                        .values(map_key=None, layout_key=None)
                    )
                    session.flush()
            row = puzzle_row(board.record)
            row.map_key, row.layout_key = board_keys(board.record.size, board.record.regions, board.record.solution)
            session.add(row)
            session.flush()
            assert row.id is not None
            session.add(solve_path_row(row.id, board.record, board.steps))
            session.add(ScheduleEntry(date=date, slot=slot, position=position, puzzle_id=row.id, run_id=run_id))
            if old is not None and replace is not None:
                replaced = Replacement(
                    date=date, slot=slot, puzzle_id=old.puzzle_id, replaced_by=row.id, reason=replace, run_id=run_id
                )
                session.add(replaced)
            add_effort(session, run_id, date, slot, effort, "accepted", row.id)
            if board.layout_rows:
                session.execute(
                    update(Layout)
                    .where(
                        col(Layout.size) == board.record.size,
                        col(Layout.stars) == board.record.stars,
                        col(Layout.rows) == board.layout_rows,
                    )
                    .values(uses=col(Layout.uses) + 1)
                )
            session.commit()
            return row.id
    except IntegrityError:
        # Another run took the slot first, or (UNIQUE map_key / layout_key) published the same map or layout in
        # the meantime: the slot is then still open, recorded as a repeat for the next attempt to fill.
        taken = slot in scheduled_slots(engine, date)
        outcome = "lost" if taken else "repeat"
        save_effort(engine, run_id=run_id, date=date, slot=slot, effort=effort, outcome=outcome)
        return None


def replacements(engine: Engine, date: dt.date) -> list[Replacement]:
    """The boards of `date` that were replaced, oldest first."""
    with Session(engine) as session:
        query = select(Replacement).where(Replacement.date == date).order_by(col(Replacement.id))
        return list(session.exec(query).all())
