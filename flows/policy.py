"""The scheduling policy of a run, as plain functions: which dates and slots to fill, which attempt (and seed) a
slot gets, when a slot's search is over, in what order boards are published, and what happens to a board that comes
out too close to one already chosen that day. No Prefect and no database here: the flows (daily.py) call these
between their task runs, and tests call them directly.

Determinism: a slot's board depends on its date, its attempt number and the boards chosen before it that day, never
on how many workers ran or how fast: the search tries candidates in index order under a candidate budget
(starbattle_core/generator/run.py), and boards are published in (date, slot) order, each one only once every earlier
slot of its date has its final board, so the day-level near-duplicate check always sees the same boards.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from flows.settings import PipelineConfig, SlotConfig
from starbattle_core.generator import near_duplicate
from starbattle_core.generator.funnel import Batch
from starbattle_core.generator.run import ACCEPTED, EXHAUSTED, SEARCHING, TIMED_OUT, Search
from starbattle_core.puzzle import Cells
from starbattle_store import Effort, ScheduledBoard

# What became of one attempt at a slot (the `attempt.outcome` column): published; or, with no board, its candidate
# budget spent, its board too close to one already chosen that day, its region map or star layout published before
# (a repeat, starbattle_store/variety.py), or the clock ended it first. All but the last move the next run on to the
# next seed: a timed-out attempt is tried again with the same seed, so a slow machine never changes which board a
# date gets.
OUTCOMES = ("accepted", "exhausted", "near_duplicate", "repeat", "timed_out")


def derive_seed(date: dt.date, slot: str, attempt: int) -> int:
    """The seed of one attempt at one slot of one date: the same (date, slot, attempt) always gives the same board
    for the same config and versions. 60 bits, so it fits any database's BIGINT."""
    digest = hashlib.sha256(f"{date.isoformat()}|{slot}|{attempt}".encode()).hexdigest()
    return int(digest[:15], 16)


def dates_to_fill(dates: Sequence[dt.date], complete: set[dt.date]) -> list[dt.date]:
    """The dates a run works on: every date not already complete (`complete` is empty when forced)."""
    return [date for date in dates if date not in complete]


def slots_to_fill(slots: Sequence[SlotConfig], taken: set[str]) -> list[tuple[int, SlotConfig]]:
    """(position, slot) of the slots of a date with no board yet, in publishing order."""
    return [(position, slot) for position, slot in enumerate(slots) if slot.name not in taken]


Shape = tuple[int, int]


def day_masks(boards: Iterable[ScheduledBoard]) -> dict[Shape, list[Cells]]:
    """The star masks already published on a day, by (size, stars): only boards of one shape can be near-duplicates."""
    masks: dict[Shape, list[Cells]] = {}
    for board in boards:
        masks.setdefault((board.record.size, board.record.stars), []).append(board.star_mask)
    return masks


@dataclass(frozen=True)
class FunnelRow:
    """One stage of one round of one slot's attempt: candidates in and out, rejections by reason, seconds."""

    date: dt.date
    slot: str
    attempt: int
    round: int
    stage: str
    entered: int
    passed: int
    rejections: dict[str, int]
    seconds: float


@dataclass
class SlotWork:
    """One slot of one date in a run: its current attempt's search, and the funnel of every round so far."""

    date: dt.date
    position: int
    slot: SlotConfig
    first_attempt: int
    attempt: int
    search: Search
    rounds: int = 0
    seconds: float = 0.0  # this attempt's stage work (summed over its tasks; rounds of several slots overlap)
    funnel: list[FunnelRow] = field(default_factory=list)
    final: str | None = None  # an OUTCOMES value once the slot is done for this run

    @property
    def shape(self) -> Shape:
        return (self.slot.size, self.slot.stars)


def start_work(
    pipeline: PipelineConfig, date: dt.date, position: int, slot: SlotConfig, attempt: int, avoid: Sequence[Cells]
) -> SlotWork:
    """A slot's work from `attempt` on, avoiding the star layouts in `avoid`."""
    return SlotWork(
        date=date,
        position=position,
        slot=slot,
        first_attempt=attempt,
        attempt=attempt,
        search=_search(pipeline, slot, date, attempt, avoid),
    )


def _search(pipeline: PipelineConfig, slot: SlotConfig, date: dt.date, attempt: int, avoid: Sequence[Cells]) -> Search:
    return Search(
        slot=slot.as_generator_slot(),
        seed=derive_seed(date, slot.name, attempt),
        candidate_budget=pipeline.slot_candidates(slot),
        avoid=tuple(avoid),
    )


def take_round(work: SlotWork, batch: Batch) -> None:
    """Keep a finished batch's funnel rows (its stage seconds too)."""
    work.rounds += 1
    for row in batch.funnel:
        work.seconds += row.seconds
        work.funnel.append(
            FunnelRow(
                date=work.date,
                slot=work.slot.name,
                attempt=work.attempt,
                round=work.rounds,
                stage=row.stage,
                entered=row.entered,
                passed=row.passed,
                rejections=dict(row.rejections),
                seconds=row.seconds,
            )
        )


def ready_to_publish(works: Sequence[SlotWork]) -> list[SlotWork]:
    """The slots whose search is over and every earlier slot of whose date is done, in publishing order: publishing
    them in this order keeps the day's near-duplicate check the same whatever finished first."""
    ready = []
    blocked: set[dt.date] = set()
    for work in sorted(works, key=lambda w: (w.date, w.position)):
        if work.final is not None:
            continue
        if work.date in blocked or work.search.status == SEARCHING:
            blocked.add(work.date)
            continue
        ready.append(work)
        blocked.add(work.date)  # this slot's outcome may start a new attempt: later slots wait for it
    return ready


def outcome(work: SlotWork, chosen: dict[Shape, list[Cells]], threshold: float) -> str:
    """What the search of a finished slot comes to: accepted, near_duplicate (its board shares too many stars with
    one chosen earlier that day), exhausted or timed_out."""
    status = work.search.status
    if status == ACCEPTED:
        board = work.search.board
        assert board is not None and board.puzzle.solution is not None
        mask = board.puzzle.solution
        if any(near_duplicate(mask, other, threshold) for other in chosen.get(work.shape, ())):
            return "near_duplicate"
        return "accepted"
    if status == TIMED_OUT:
        return "timed_out"
    assert status == EXHAUSTED, status
    return "exhausted"


def retry(pipeline: PipelineConfig, work: SlotWork, result: str, chosen: dict[Shape, list[Cells]]) -> SlotWork | None:
    """After an attempt that published nothing: the same slot's next attempt (next seed, avoiding every board chosen
    that day), or None when the run is done with the slot (a timed-out attempt, or `attempts` used up)."""
    if result == "timed_out" or work.attempt + 1 - work.first_attempt >= pipeline.attempts:
        return None
    attempt = work.attempt + 1
    work.attempt = attempt
    work.search = _search(pipeline, work.slot, work.date, attempt, chosen.get(work.shape, ()))
    work.seconds = 0.0
    return work


def effort(work: SlotWork, result: str) -> Effort:
    """The current attempt's counters as the database keeps them. Rejections include `outranked`: candidates that
    passed every stage in the winner's batch after it (work a smaller batch would not have done), and a winner the
    day's check turned down counts as `near_duplicate` (the archive's check: `repeat`), so candidates = accepted +
    rejections. Stage seconds: the generator's fine laps, plus each funnel stage as `stage:NAME`."""
    search = work.search
    counters = search.counters
    rejections = {str(reason): int(count) for reason, count in counters.rejections.items()}
    if search.surplus:
        rejections["outranked"] = search.surplus
    if result in ("near_duplicate", "repeat"):
        rejections[result] = rejections.get(result, 0) + 1
    seconds = {str(stage): float(value) for stage, value in counters.seconds.items()}
    for row in work.funnel:
        if row.attempt == work.attempt:
            key = f"stage:{row.stage}"
            seconds[key] = seconds.get(key, 0.0) + row.seconds
    return Effort(
        attempt=work.attempt,
        seed=search.seed,
        candidates=int(counters.candidates),
        repair_rounds=int(counters.repair_rounds),
        rejections=rejections,
        stage_seconds=seconds,
        seconds=work.seconds,
    )
