"""The daily and backfill flows: fill every slot of a range of dates, in rounds of the generator's funnel.

Both flows share `fill_dates`. Each round, every slot still searching sends its next batch of candidates through the
funnel's stage tasks (flows/funnel.py) on the run's task runner: the Dask cluster of `pipeline.dask_address`, a local
Dask cluster of `pipeline.workers` processes, or this process for one worker (flows/cluster.py). Finished searches
are published in (date, slot) order, each board in its own transaction, by the plain policy functions of
flows/policy.py: a board too close to one already chosen that day, or an attempt whose candidate budget ran out, goes
on with the next attempt's seed. A run that dies part-way has written only whole boards; the next run generates the
rest.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, cast
from uuid import UUID

from prefect import flow, get_run_logger, runtime, task
from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact
from prefect.client.schemas.objects import State
from prefect.states import Failed

# Absolute imports throughout flows/: a served deployment or a worker loads this file by its path, as a module with no
# parent package, and a relative import then fails in the cluster's workers (tests/test_served.py).
import starbattle_store as store
from flows.artifacts import publish_day
from flows.cluster import on_cluster, runner_chunks, started
from flows.dates import date_range, parse_date, today
from flows.funnel import run_rounds
from flows.liveness import mark_dead_runs
from flows.policy import (
    SlotWork,
    dates_to_fill,
    day_masks,
    effort,
    outcome,
    ready_to_publish,
    retry,
    slots_to_fill,
    start_work,
)
from flows.report import rejection_summary
from flows.settings import Settings, load_settings
from flows.tasks import accepted_board, database, record_effort, schedule_board, untagged
from starbattle_core.generator import GENERATOR_VERSION
from starbattle_core.grader import SOLVER_VERSION
from starbattle_store.variety import published_before, puzzle_keys
from starbattle_web import site


@dataclass
class FillSummary:
    """What a run did: dates it filled, dates it left alone (already complete), slots it could not fill."""

    run_id: int
    dates: list[dt.date]
    skipped: list[dt.date] = field(default_factory=list)
    published: int = 0
    unfilled: list[tuple[dt.date, str]] = field(default_factory=list)
    works: list[SlotWork] = field(default_factory=list)  # every slot worked on, with its funnel


def fill_dates(
    settings: Settings,
    dates: list[dt.date],
    kind: str,
    *,
    replace: str | None = None,
    only: str | None = None,
    progress_id: Any = None,
) -> FillSummary:
    """Fill every empty slot of `dates`; see the module docstring. With `replace` (the reason recorded for each board
    replaced), make every slot of the dates again, or with `only` that one slot, avoiding the day's other boards and
    the one it replaces."""
    pipeline = settings.pipeline
    engine = database(pipeline.resolved_database_url())
    run_id = store.start_run(
        engine,
        name=str(runtime.flow_run.name or kind),
        kind=kind,
        flow_run_id=str(runtime.flow_run.id) if runtime.flow_run.id else None,
        config_hash=settings.config_hash(),
        solver_version=SOLVER_VERSION,
        generator_version=GENERATOR_VERSION,
    )
    # A run killed mid-way left its row `running`: say it crashed, so stats and the dashboard tell the truth.
    mark_dead_runs(engine, run_id, pipeline.stale_run_seconds)
    summary = FillSummary(run_id=run_id, dates=dates)
    names = [slot.name for slot in pipeline.slots]
    complete = set() if replace is not None else store.complete_dates(engine, dates, names)
    summary.skipped = [date for date in dates if date in complete]
    works: list[SlotWork] = []
    chosen: dict[dt.date, dict[tuple[int, int], list[int]]] = {}
    for date in dates_to_fill(dates, complete):
        taken = set() if replace is not None else store.scheduled_slots(engine, date)
        forced = replace is not None and only is None  # every slot again: the day's old boards are not kept
        chosen[date] = day_masks([] if forced else store.day_boards(engine, date))
        for position, slot in slots_to_fill(pipeline.slots, taken):
            if only is not None and slot.name != only:
                continue
            attempt = store.next_attempt(engine, date, slot.name, after_published=only is not None)
            works.append(
                start_work(pipeline, date, position, slot, attempt, chosen[date].get((slot.size, slot.stars), ()))
            )
    summary.works = works
    finished = False
    try:
        # The runner is opened here rather than bound to the flow so its size follows the run's config (a served
        # deployment loads the flow from its module and would otherwise get the decorator's runner).
        done = 0

        def publish() -> None:
            nonlocal done
            _publish_ready(settings, run_id, works, chosen, replace, summary)
            if progress_id is not None and works and done != sum(work.final is not None for work in works):
                done = sum(work.final is not None for work in works)
                update_progress_artifact(progress_id, progress=100.0 * done / len(works))

        with untagged(), started(pipeline) as runner:
            run_rounds(settings, runner, runner_chunks(runner, pipeline), works, publish)
        finished = True
        return summary
    finally:
        store.finish_run(engine, run_id, "completed" if finished and not summary.unfilled else "failed")


def _publish_ready(
    settings: Settings,
    run_id: int,
    works: list[SlotWork],
    chosen: dict[dt.date, dict[tuple[int, int], list[int]]],
    replace: str | None,
    summary: FillSummary,
) -> None:
    for work in ready_to_publish(works):
        _publish(settings, run_id, work, chosen[work.date], replace, summary)


def _publish(
    settings: Settings,
    run_id: int,
    work: SlotWork,
    chosen: dict[tuple[int, int], list[int]],
    replace: str | None,
    summary: FillSummary,
) -> None:
    """Settle one finished search: schedule its board, or record why not and go on with the next attempt."""
    pipeline = settings.pipeline
    url = pipeline.resolved_database_url()
    result = outcome(work, chosen, settings.generator.similarity_threshold)
    replacing = (work.date, work.slot.name) if replace is not None else None
    if result == "accepted" and published_before(database(url), puzzle_keys(work.search.board), replacing):
        result = "repeat"  # its map or layout was published on another day: on like a near-duplicate
    spent = effort(work, result)
    get_run_logger().info(
        "%s %s attempt %d: %s after %d candidates in %d rounds (%.1f s); rejections: %s",
        work.date,
        work.slot.name,
        work.attempt,
        result,
        spent.candidates,
        work.rounds,
        spent.seconds,
        rejection_summary(spent.rejections),
    )
    if result == "accepted":
        board = work.search.board
        assert board is not None and board.puzzle.solution is not None
        scheduled = schedule_board(
            url, run_id, work.date, work.slot.name, work.position, accepted_board(board), spent, replace
        )
        if scheduled is not None or work.slot.name in store.scheduled_slots(database(url), work.date):
            # Whether this run's board or a concurrent run's won the slot, the slot is now filled.
            chosen.setdefault(work.shape, []).append(board.puzzle.solution)
            work.final = result
            summary.published += 1
            return
        # A concurrent run published the same map or layout in between (store.save_board recorded a repeat).
        if retry(pipeline, work, "repeat", chosen) is None:
            work.final = "repeat"
            summary.unfilled.append((work.date, work.slot.name))
        return
    record_effort(url, run_id, work.date, work.slot.name, spent, result)
    if retry(pipeline, work, result, chosen) is None:
        work.final = result
        summary.unfilled.append((work.date, work.slot.name))


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


publish_site = task(name="publish-site")(site.publish_dates)


def _report(kind: str, settings: Settings, summary: FillSummary) -> State | None:
    """Publish the run's artifacts and pages; a Failed state when slots were left without a board (the next run
    tries them again). Returned, not raised: Prefect would log a raised error with its traceback, and a slot whose
    budget ran out is an outcome of the run, not a fault in it."""
    engine = database(settings.pipeline.resolved_database_url())
    boards = [board for date in summary.dates for board in store.day_boards(engine, date)]
    stats = store.slot_stats(engine, run_id=summary.run_id)
    funnel = [row for work in summary.works for row in work.funnel]
    publish_day(kind, summary.dates, boards, stats, funnel, pictures=kind != "backfill")
    site_dir = settings.pipeline.resolved_site_dir()
    if site_dir is not None:  # the last task: the public pages of the dates this run filled (starbattle_web/site.py)
        with untagged():
            publish_site(settings.pipeline.resolved_database_url(), summary.dates, str(site_dir))
    if not summary.unfilled:
        return None
    missing = ", ".join(f"{date} {slot}" for date, slot in summary.unfilled)
    return Failed(message=f"no board (candidate budget or clock spent) for: {missing}", data=_plain(summary))


@flow(name="daily", flow_run_name=_daily_run_name, log_prints=True)
def daily(
    date: str | None = None,
    force: bool = False,
    kind: str = "manual",
    config_path: str | None = None,
    dask_address: str | None = None,
) -> dict[str, Any] | State:
    """Fill the daily slots of `date` (None: today in the configured zone plus `days_ahead` dates, as the nightly
    deployment runs it). A complete date is left alone unless `force`. `dask_address` overrides the config's."""
    settings = on_cluster(load_settings(config_path), dask_address)
    dates = _daily_dates(settings, date)
    summary = fill_dates(settings, dates, kind, replace="forced re-run" if force else None)
    return _report("daily", settings, summary) or _plain(summary)


def _backfill_run_name() -> str:
    parameters = runtime.flow_run.parameters
    return f"backfill-{parameters['start']}..{parameters['end']}"


@flow(name="backfill", flow_run_name=_backfill_run_name, log_prints=True)
def backfill(
    start: str, end: str, force: bool = False, config_path: str | None = None, dask_address: str | None = None
) -> dict[str, Any] | State:
    """Fill every date from `start` to `end` (inclusive), skipping complete dates unless `force`. `dask_address`
    (tcp://HOST:PORT) overrides the config's."""
    settings = on_cluster(load_settings(config_path), dask_address)
    dates = date_range(parse_date(start, "start"), parse_date(end, "end"))
    # Prefect types its sync-or-async calls as "result or coroutine"; called from a sync flow, it is the result.
    progress = cast(
        UUID, create_progress_artifact(progress=0.0, key="backfill-progress", description=f"{start}..{end}")
    )
    summary = fill_dates(settings, dates, "backfill", replace="forced re-run" if force else None, progress_id=progress)
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
    return _report("backfill", settings, summary) or _plain(summary)


@flow(name="replace", flow_run_name="replace-{date}-{slot}", log_prints=True)
def replace(date: str, slot: str, reason: str = "", config_path: str | None = None) -> dict[str, Any] | State:
    """Make the board of one daily `slot` of `date` again, with its next attempt's seed: the replaced board stays in
    the database, marked replaced by the new one with `reason`; the date's page and the feeds are published again."""
    settings = load_settings(config_path)
    why = reason or "replaced by an operator"
    summary = fill_dates(settings, [parse_date(date)], "replace", replace=why, only=slot)
    return _report("replace", settings, summary) or _plain(summary)


def _plain(summary: FillSummary) -> dict[str, Any]:
    return {
        "run_id": summary.run_id,
        "dates": [date.isoformat() for date in summary.dates],
        "skipped": [date.isoformat() for date in summary.skipped],
        "published": summary.published,
        "unfilled": [[date.isoformat(), slot] for date, slot in summary.unfilled],
    }
