"""The daily and backfill flows: fill every slot of a range of dates, one whole board at a time.

Both flows share `fill_dates`: it submits one generation task per missing (date, slot) to the task runner (a process
pool on both cores when `pipeline.workers` > 1), then takes the results in date and slot order and schedules each
board in its own transaction. Taking them in order keeps runs deterministic and lets a board that comes out too close
to one already chosen that day be replaced by the next attempt. A run that dies part-way has written only whole
boards; the next run sees which slots are filled and generates the rest.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any, cast
from uuid import UUID

from prefect import flow, runtime
from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact
from prefect.futures import PrefectFuture
from prefect.task_runners import ProcessPoolTaskRunner, ThreadPoolTaskRunner

from starbattle_core.generator import GeneratorConfig, near_duplicate
from starbattle_core.grader import SOLVER_VERSION, GradingConfig
from starbattle_core.puzzle import coords_to_cells

from . import store
from .artifacts import publish_day
from .dates import date_range, parse_date, today
from .settings import Settings, SlotConfig, load_settings
from .tasks import GENERATOR_VERSION, SlotOutcome, database, generate_slot, record_effort, schedule_board


class UnfilledSlots(RuntimeError):
    """A run ended with slots whose every attempt ran out of budget; the next run tries them again."""


@dataclass
class FillSummary:
    """What a run did: dates it filled, dates it left alone (already complete), slots it could not fill."""

    run_id: int
    dates: list[dt.date]
    skipped: list[dt.date] = field(default_factory=list)
    published: int = 0
    unfilled: list[tuple[dt.date, str]] = field(default_factory=list)


def task_runner(settings: Settings) -> Any:
    """Both cores for generation when the config allows more than one worker; one thread otherwise."""
    workers = settings.pipeline.workers
    return ProcessPoolTaskRunner(max_workers=workers) if workers > 1 else ThreadPoolTaskRunner(max_workers=1)


def _day_masks(boards: list[store.ScheduledBoard]) -> dict[tuple[int, int], list[int]]:
    """The star masks already published on a day, by (size, stars): only boards of one shape can be near-duplicates."""
    masks: dict[tuple[int, int], list[int]] = {}
    for board in boards:
        masks.setdefault((board.size, board.stars), []).append(board.star_mask)
    return masks


def fill_dates(
    settings: Settings, dates: list[dt.date], force: bool, kind: str, progress_id: Any = None
) -> FillSummary:
    """Fill every slot of `dates` (all slots again when `force`); see the module docstring."""
    pipeline = settings.pipeline
    engine = database(pipeline.resolved_database_url())
    generator, grading = settings.generator, settings.grading
    run_id = store.start_run(
        engine,
        name=str(runtime.flow_run.name or kind),
        kind=kind,
        flow_run_id=str(runtime.flow_run.id) if runtime.flow_run.id else None,
        config_hash=settings.config_hash(),
        solver_version=SOLVER_VERSION,
        generator_version=GENERATOR_VERSION,
    )
    summary = FillSummary(run_id=run_id, dates=dates)
    complete = set() if force else store.complete_dates(engine, dates, [slot.name for slot in pipeline.slots])
    summary.skipped = [date for date in dates if date in complete]
    finished = False
    try:
        # The runner is opened here rather than bound to the flow so its size follows the run's config (a served
        # deployment loads the flow from its module and would otherwise get the decorator's runner).
        with task_runner(settings) as runner:
            work: list[tuple[dt.date, list[tuple[int, SlotConfig]]]] = []
            futures: dict[tuple[dt.date, str], PrefectFuture[SlotOutcome]] = {}
            for date in dates:
                if date in complete:
                    continue
                taken = set() if force else store.scheduled_slots(engine, date)
                todo = [(position, slot) for position, slot in enumerate(pipeline.slots) if slot.name not in taken]
                avoid = _day_masks([] if force else store.day_boards(engine, date))
                work.append((date, todo))
                for _position, slot in todo:
                    parameters = {
                        "slot": slot,
                        "date": date,
                        "attempt": store.next_attempt(engine, date, slot.name),
                        "budget_seconds": pipeline.slot_budget(slot),
                        "generator": generator,
                        "grading": grading,
                        "avoid": tuple(avoid.get((slot.size, slot.stars), ())),
                    }
                    tagged = generate_slot.with_options(tags=[slot.game, slot.band])
                    futures[(date, slot.name)] = runner.submit(tagged, parameters=parameters)
            for done, (date, todo) in enumerate(work, start=1):
                chosen = _day_masks([] if force else store.day_boards(engine, date))
                for position, slot in todo:
                    outcome = futures.pop((date, slot.name)).result()
                    if _publish(settings, run_id, date, position, slot, outcome, chosen, force, generator, grading):
                        summary.published += 1
                    else:
                        summary.unfilled.append((date, slot.name))
                if progress_id is not None:
                    update_progress_artifact(progress_id, progress=100.0 * done / len(work))
        finished = True
        return summary
    finally:
        store.finish_run(engine, run_id, "completed" if finished and not summary.unfilled else "failed")


def _publish(
    settings: Settings,
    run_id: int,
    date: dt.date,
    position: int,
    slot: SlotConfig,
    outcome: SlotOutcome,
    chosen: dict[tuple[int, int], list[int]],
    force: bool,
    generator: GeneratorConfig,
    grading: GradingConfig,
) -> bool:
    """Schedule one slot's board, retrying with the next attempt's seed (in this process, the pool's other work
    carries on) while the budget runs out or the board is too close to one already chosen that day."""
    pipeline = settings.pipeline
    url = pipeline.resolved_database_url()
    shape = (slot.size, slot.stars)
    first = outcome.effort.attempt
    while True:
        board = outcome.board
        if board is not None:
            mask = coords_to_cells(board.solution, board.size, "solution cell")
            if any(near_duplicate(mask, other, generator.similarity_threshold) for other in chosen.get(shape, ())):
                # The generator accepted it; the day's schedule rejects it: count that rejection with the attempt.
                rejections = dict(outcome.effort.rejections)
                rejections["near_duplicate"] = rejections.get("near_duplicate", 0) + 1
                effort = replace(outcome.effort, rejections=rejections)
                record_effort(url, run_id, date, slot.name, effort, "near_duplicate")
            else:
                schedule_board(url, run_id, date, slot.name, position, board, outcome.effort, replace=force)
                # Whether this run's board or a concurrent run's won the slot, the slot is now filled.
                chosen.setdefault(shape, []).append(mask)
                return True
        else:
            record_effort(url, run_id, date, slot.name, outcome.effort, "exhausted")
        attempt = outcome.effort.attempt + 1
        if attempt - first >= pipeline.attempts:
            return False
        outcome = generate_slot.with_options(tags=[slot.game, slot.band])(
            slot, date, attempt, pipeline.slot_budget(slot), generator, grading, tuple(chosen.get(shape, ()))
        )


def _daily_run_name() -> str:
    parameters = runtime.flow_run.parameters
    dates = _daily_dates(load_settings(parameters.get("config_path")), parameters.get("date"))
    return f"daily-{dates[0]}" if len(dates) == 1 else f"daily-{dates[0]}..{dates[-1]}"


def _daily_dates(settings: Settings, date: str | dt.date | None) -> list[dt.date]:
    if date is None:
        # The nightly run: today in the configured zone, and the days ahead the config asks for.
        first = today(settings)
        return [first + dt.timedelta(days=i) for i in range(settings.pipeline.days_ahead + 1)]
    return [parse_date(date)]


def _report(kind: str, settings: Settings, summary: FillSummary) -> None:
    engine = database(settings.pipeline.resolved_database_url())
    boards = [board for date in summary.dates for board in store.day_boards(engine, date)]
    stats = store.slot_stats(engine, run_id=summary.run_id)
    publish_day(kind, summary.dates, boards, stats, pictures=kind == "daily")
    if summary.unfilled:
        missing = ", ".join(f"{date} {slot}" for date, slot in summary.unfilled)
        raise UnfilledSlots(f"every attempt ran out of budget for: {missing}")


@flow(name="daily", flow_run_name=_daily_run_name, log_prints=True)
def daily(
    date: str | None = None, force: bool = False, kind: str = "manual", config_path: str | None = None
) -> dict[str, Any]:
    """Fill the daily slots of `date` (None: today in the configured zone plus `days_ahead` dates, as the nightly
    deployment runs it). A complete date is left alone unless `force`."""
    settings = load_settings(config_path)
    dates = _daily_dates(settings, date)
    summary = fill_dates(settings, dates, force, kind)
    _report("daily", settings, summary)
    return _plain(summary)


def _backfill_run_name() -> str:
    parameters = runtime.flow_run.parameters
    return f"backfill-{parameters['start']}..{parameters['end']}"


@flow(name="backfill", flow_run_name=_backfill_run_name, log_prints=True)
def backfill(start: str, end: str, force: bool = False, config_path: str | None = None) -> dict[str, Any]:
    """Fill every date from `start` to `end` (inclusive), skipping complete dates unless `force`."""
    settings = load_settings(config_path)
    dates = date_range(parse_date(start, "start"), parse_date(end, "end"))
    # Prefect types its sync-or-async calls as "result or coroutine"; called from a sync flow, it is the result.
    progress = cast(
        UUID, create_progress_artifact(progress=0.0, key="backfill-progress", description=f"{start}..{end}")
    )
    summary = fill_dates(settings, dates, force, "backfill", progress_id=progress)
    update_progress_artifact(progress, progress=100.0)
    create_table_artifact(
        key="backfill-summary",
        table=[
            {
                "date": date.isoformat(),
                "status": "skipped (complete)" if date in summary.skipped else "filled",
                "unfilled": ", ".join(slot for day, slot in summary.unfilled if day == date),
            }
            for date in dates
        ],
        description=f"Backfill {start}..{end}: {summary.published} boards published, {len(summary.skipped)} dates "
        f"already complete.",
    )
    _report("backfill", settings, summary)
    return _plain(summary)


def _plain(summary: FillSummary) -> dict[str, Any]:
    return {
        "run_id": summary.run_id,
        "dates": [date.isoformat() for date in summary.dates],
        "skipped": [date.isoformat() for date in summary.skipped],
        "published": summary.published,
        "unfilled": [[date.isoformat(), slot] for date, slot in summary.unfilled],
    }
