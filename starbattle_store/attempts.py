"""The attempts at a slot and their rejection counters: what each generator call cost, whether it published or not,
the attempt number the next call gets, and the counters summed per slot."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from starbattle_store.db import Attempt, Rejection
from starbattle_store.records import Effort


def save_effort(engine: Engine, *, run_id: int | None, date: dt.date, slot: str, effort: Effort, outcome: str) -> None:
    """Record a generator call that produced no published board (budget spent, or lost the slot to another run)."""
    with Session(engine) as session:
        add_effort(session, run_id, date, slot, effort, outcome, None)
        session.commit()


def add_effort(
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


def next_attempt(engine: Engine, date: dt.date, slot: str, after_published: bool = False) -> int:
    """The attempt number the next generator call for (date, slot) uses: attempts that published nothing (budget
    spent, a near-duplicate of another board of the day, or a repeat of one published before) are not retried
    with the same seed, so a resumed run does not repeat a known failure. `after_published`: past the attempts that
    published a board too (a replacement is a new board; a forced re-run makes the same one again)."""
    failed = ("exhausted", "near_duplicate", "repeat")
    with Session(engine) as session:
        tried = session.exec(
            select(func.max(Attempt.attempt)).where(
                Attempt.date == date,
                Attempt.slot == slot,
                col(Attempt.outcome).in_((*failed, "accepted") if after_published else failed),
            )
        ).first()
    return 0 if tried is None else tried + 1


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
