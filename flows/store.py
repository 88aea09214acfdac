"""Units of work on the pipeline's database: what the flows and the CLI read and write, each in one transaction.

Boards arrive here as plain values (`AcceptedBoard`, `Effort`) so they cross process boundaries (the backfill's
process pool) and so this module knows nothing of the generator's classes. No Prefect import.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from starbattle_core.formats import puzzle_from_json
from starbattle_core.puzzle import Cells, Puzzle, coords_to_cells

from .db import Attempt, Layout, PuzzleRecord, Rejection, Run, ScheduleEntry, SolvePath
from .variety import board_keys


@dataclass(frozen=True)
class Effort:
    """What one generator call for a slot cost: its counters, as the database keeps them."""

    attempt: int
    seed: int
    candidates: int
    repair_rounds: int
    rejections: dict[str, int]
    stage_seconds: dict[str, float]
    seconds: float


@dataclass(frozen=True)
class AcceptedBoard:
    """A board the generator accepted, in plain values: the shared-data puzzle object plus scores and solve path."""

    game: str
    size: int
    stars: int
    regions: list[str]  # region symbol rows
    solution: list[list[int]]  # [row, col] pairs
    difficulty: int
    band: str
    fun: float
    looks: float
    seed: int
    generator_version: str
    solver_version: str
    steps: Any  # the grader's walkthrough JSON
    layout_rows: bytes = b""  # the solution as uint32 row masks, to count the layout's use in the bank


@dataclass(frozen=True)
class ScheduledBoard:
    """A published board as the CLI shows it."""

    date: dt.date
    slot: str
    position: int
    puzzle_id: int
    game: str
    size: int
    stars: int
    regions: list[str]
    solution: list[list[int]]
    difficulty: int
    band: str
    fun: float
    looks: float
    seed: int
    generator_version: str
    candidates: int = 0
    steps: Any = field(default=None, compare=False)

    def puzzle(self) -> Puzzle:
        """The engine's puzzle, with its solution."""
        return puzzle_from_json(self.board_json(), where=f"{self.date} {self.slot}")

    def board_json(self) -> dict[str, Any]:
        """The generator's board object: the shared-data puzzle plus band and scores."""
        return {
            "game": self.game,
            "size": self.size,
            "stars": self.stars,
            "regions": self.regions,
            "solution": self.solution,
            "band": self.band,
            "difficulty": self.difficulty,
            "fun": self.fun,
            "looks": self.looks,
            "seed": self.seed,
            "version": self.generator_version,
        }

    @property
    def star_mask(self) -> Cells:
        return coords_to_cells(self.solution, self.size, "solution cell")


# --- runs --------------------------------------------------------------------------------------------------------


def start_run(
    engine: Engine,
    *,
    name: str,
    kind: str,
    config_hash: str,
    solver_version: str,
    generator_version: str,
    flow_run_id: str | None = None,
) -> int:
    with Session(engine) as session:
        run = Run(
            name=name,
            kind=kind,
            flow_run_id=flow_run_id,
            config_hash=config_hash,
            solver_version=solver_version,
            generator_version=generator_version,
        )
        session.add(run)
        session.commit()
        assert run.id is not None
        return run.id


def finish_run(engine: Engine, run_id: int, status: str) -> None:
    with Session(engine) as session:
        run = session.get(Run, run_id)
        if run is not None:
            run.status = status
            run.ended = dt.datetime.now(dt.UTC)
            session.add(run)
            session.commit()


def running_runs(engine: Engine) -> list[Run]:
    """The runs whose row still says `running`: live ones, and any that died before recording their end."""
    with Session(engine) as session:
        return list(session.exec(select(Run).where(Run.status == "running").order_by(col(Run.id))).all())


def run_counts(engine: Engine) -> dict[str, int]:
    """How many runs ended each way (completed, failed, crashed) or are still running."""
    with Session(engine) as session:
        rows = session.exec(select(Run.status, func.count()).group_by(Run.status)).all()
    return {str(status): int(count) for status, count in sorted(rows)}


# --- the schedule ------------------------------------------------------------------------------------------------


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
        for entry, record in rows:
            assert record.id is not None
            paths = session.exec(
                select(SolvePath).where(SolvePath.puzzle_id == record.id).order_by(col(SolvePath.id).desc())
            ).all()
            chosen = next((path for path in paths if path.solver_version == solver_version), None)
            chosen = chosen or (paths[0] if paths else None)
            candidates = session.exec(
                select(Attempt.candidates).where(Attempt.puzzle_id == record.id, Attempt.outcome == "accepted")
            ).first()
            boards.append(
                ScheduledBoard(
                    date=entry.date,
                    slot=entry.slot,
                    position=entry.position,
                    puzzle_id=record.id,
                    game=record.game,
                    size=record.size,
                    stars=record.stars,
                    regions=json.loads(record.regions),
                    solution=json.loads(record.solution),
                    difficulty=chosen.difficulty if chosen else record.difficulty,
                    band=chosen.band if chosen else record.band,
                    fun=record.fun,
                    looks=record.looks,
                    seed=record.seed,
                    generator_version=record.generator_version,
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
    replace: bool = False,
) -> int | None:
    """Store an accepted board with its solve path, schedule entry and counters in ONE transaction.

    Returns the new puzzle id, or None when another run scheduled this (date, slot) first: the UNIQUE(date, slot)
    constraint makes the later commit fail, this board is discarded and its attempt recorded as lost. With
    `replace`, an existing entry for the slot is removed in the same transaction (a forced re-run).
    """
    try:
        with Session(engine) as session:
            if replace:
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
            record = PuzzleRecord(
                game=board.game,
                size=board.size,
                stars=board.stars,
                regions=json.dumps(board.regions),
                solution=json.dumps(board.solution),
                difficulty=board.difficulty,
                band=board.band,
                fun=board.fun,
                looks=board.looks,
                seed=board.seed,
                generator_version=board.generator_version,
            )
            record.map_key, record.layout_key = board_keys(board.size, board.regions, board.solution)
            session.add(record)
            session.flush()
            assert record.id is not None
            session.add(
                SolvePath(
                    puzzle_id=record.id,
                    solver_version=board.solver_version,
                    difficulty=board.difficulty,
                    band=board.band,
                    steps=json.dumps(board.steps),
                )
            )
            session.add(ScheduleEntry(date=date, slot=slot, position=position, puzzle_id=record.id, run_id=run_id))
            _add_effort(session, run_id, date, slot, effort, "accepted", record.id)
            if board.layout_rows:
                session.execute(
                    update(Layout)
                    .where(
                        col(Layout.size) == board.size,
                        col(Layout.stars) == board.stars,
                        col(Layout.rows) == board.layout_rows,
                    )
                    .values(uses=col(Layout.uses) + 1)
                )
            session.commit()
            return record.id
    except IntegrityError:
        # Another run took the slot first, or (UNIQUE map_key / layout_key) published the same map or layout in
        # the meantime: the slot is then still open, recorded as a repeat for the next attempt to fill.
        taken = slot in scheduled_slots(engine, date)
        outcome = "lost" if taken else "repeat"
        save_effort(engine, run_id=run_id, date=date, slot=slot, effort=effort, outcome=outcome)
        return None


def save_effort(engine: Engine, *, run_id: int | None, date: dt.date, slot: str, effort: Effort, outcome: str) -> None:
    """Record a generator call that produced no published board (budget spent, or lost the slot to another run)."""
    with Session(engine) as session:
        _add_effort(session, run_id, date, slot, effort, outcome, None)
        session.commit()


def _add_effort(
    session: Session,
    run_id: int | None,
    date: dt.date,
    slot: str,
    effort: Effort,
    outcome: str,
    puzzle_id: int | None,
) -> None:
    attempt = Attempt(
        run_id=run_id,
        date=date,
        slot=slot,
        attempt=effort.attempt,
        seed=effort.seed,
        outcome=outcome,
        puzzle_id=puzzle_id,
        candidates=effort.candidates,
        repair_rounds=effort.repair_rounds,
        stage_seconds=json.dumps(effort.stage_seconds, sort_keys=True),
        seconds=effort.seconds,
    )
    session.add(attempt)
    session.flush()
    assert attempt.id is not None
    for reason, count in sorted(effort.rejections.items()):
        if count:
            session.add(Rejection(attempt_id=attempt.id, reason=reason, count=count))


def next_attempt(engine: Engine, date: dt.date, slot: str) -> int:
    """The attempt number the next generator call for (date, slot) uses: attempts that published nothing (budget
    spent, a near-duplicate of another board of the day, or a repeat of one published before) are not retried
    with the same seed, so a resumed run does not repeat a known failure."""
    with Session(engine) as session:
        tried = session.exec(
            select(func.max(Attempt.attempt)).where(
                Attempt.date == date,
                Attempt.slot == slot,
                col(Attempt.outcome).in_(("exhausted", "near_duplicate", "repeat")),
            )
        ).first()
    return 0 if tried is None else tried + 1


# --- counters and statistics -------------------------------------------------------------------------------------


@dataclass
class SlotStats:
    """Acceptance and rejection counts of one slot over a range of dates."""

    slot: str
    attempts: int = 0
    accepted: int = 0
    lost: int = 0
    candidates: int = 0
    repair_rounds: int = 0
    seconds: float = 0.0
    rejections: dict[str, int] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)


def slot_stats(
    engine: Engine, start: dt.date | None = None, end: dt.date | None = None, run_id: int | None = None
) -> list[SlotStats]:
    """Counters summed per slot, over a date range and/or one run, in first-seen slot order."""
    query = select(Attempt)
    if start is not None:
        query = query.where(col(Attempt.date) >= start)
    if end is not None:
        query = query.where(col(Attempt.date) <= end)
    if run_id is not None:
        query = query.where(Attempt.run_id == run_id)
    by_slot: dict[str, SlotStats] = {}
    with Session(engine) as session:
        attempts = session.exec(query.order_by(col(Attempt.id))).all()
        ids = [attempt.id for attempt in attempts]
        rejections = session.exec(select(Rejection).where(col(Rejection.attempt_id).in_(ids))).all() if ids else []
    slot_of = {attempt.id: attempt.slot for attempt in attempts}
    for attempt in attempts:
        stats = by_slot.setdefault(attempt.slot, SlotStats(attempt.slot))
        stats.attempts += 1
        stats.accepted += attempt.outcome == "accepted"
        stats.lost += attempt.outcome == "lost"
        stats.candidates += attempt.candidates
        stats.repair_rounds += attempt.repair_rounds
        stats.seconds += attempt.seconds
        for stage, seconds in json.loads(attempt.stage_seconds).items():
            stats.stage_seconds[stage] = stats.stage_seconds.get(stage, 0.0) + seconds
    for rejection in rejections:
        stats = by_slot[slot_of[rejection.attempt_id]]
        stats.rejections[rejection.reason] = stats.rejections.get(rejection.reason, 0) + rejection.count
    return list(by_slot.values())


# --- the layout bank ---------------------------------------------------------------------------------------------


def stored_layouts(engine: Engine, size: int, stars: int) -> int:
    with Session(engine) as session:
        return session.exec(
            select(func.count()).select_from(Layout).where(Layout.size == size, Layout.stars == stars)
        ).one()


def store_layouts(engine: Engine, size: int, stars: int, bank: np.ndarray, start: int = 0) -> int:
    """Add layouts (rows of uint32 row masks, in enumeration order from position `start`) to the bank in one
    transaction; positions already stored are skipped, so an interrupted enumeration resumes. Returns rows added."""
    rows = np.ascontiguousarray(bank, dtype="<u4")
    with Session(engine) as session:
        have = set(
            session.exec(
                select(Layout.position).where(
                    Layout.size == size,
                    Layout.stars == stars,
                    col(Layout.position) >= start,
                    col(Layout.position) < start + len(rows),
                )
            ).all()
        )
        fresh = [
            {"size": size, "stars": stars, "position": start + i, "rows": rows[i].tobytes(), "uses": 0}
            for i in range(len(rows))
            if start + i not in have
        ]
        if fresh:
            session.execute(Layout.__table__.insert(), fresh)  # type: ignore[attr-defined]
        session.commit()
    return len(fresh)


def layout_rows_bytes(solution: Iterable[Sequence[int]], size: int) -> bytes:
    """A solution's [row, col] pairs as the bank stores a layout: little-endian uint32 row masks."""
    rows = np.zeros(size, dtype="<u4")
    for r, c in solution:
        rows[r] |= np.uint32(1 << c)
    return rows.tobytes()


# --- regrading ---------------------------------------------------------------------------------------------------


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
        return puzzle_from_json(
            {
                "game": record.game,
                "size": record.size,
                "stars": record.stars,
                "regions": json.loads(record.regions),
                "solution": json.loads(record.solution),
            },
            where=f"puzzle {puzzle_id}",
        )


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
