"""The daily and backfill flows: fill every slot of a range of dates, in rounds of the generator's funnel.

Both flows share `fill_dates`. Each round, every slot still searching gets its next batch of candidates (the
engine's `next_batch`, the same policy `generate` runs) and the batch goes through the funnel's stage tasks, chained
on the task runner (a process pool on both cores when `pipeline.workers` > 1). Finished searches are published in
(date, slot) order, each board in its own transaction, by the plain policy functions of flows/policy.py: a board too
close to one already chosen that day, or an attempt whose candidate budget ran out, goes on with the next attempt's
seed. A run that dies part-way has written only whole boards; the next run generates the rest.
"""

from __future__ import annotations

import datetime as dt
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast
from uuid import UUID

from prefect import flow, get_run_logger, runtime, task
from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact
from prefect.client.schemas.objects import State
from prefect.futures import PrefectFuture
from prefect.states import Failed
from prefect.task_runners import ThreadPoolTaskRunner

# Absolute imports throughout flows/: a served deployment or a worker loads this file by its path, as a module with no
# parent package, and a relative import then fails in the process pool's workers (tests/test_served.py).
from flows import site, store
from flows.artifacts import publish_day
from flows.cluster import dask_task_runner, on_cluster
from flows.dates import date_range, parse_date, today
from flows.liveness import mark_dead_runs
from flows.policy import (
    SlotWork,
    batch_label,
    dates_to_fill,
    day_masks,
    effort,
    outcome,
    ready_to_publish,
    retry,
    slots_to_fill,
    start_work,
    take_round,
)
from flows.pool import StoppablePool
from flows.report import rejection_summary
from flows.runner import take_prestarted_pool
from flows.settings import Settings, load_settings
from flows.stop_request import CHECK_SECONDS, safe_point, stops_at_safe_points
from flows.tasks import STAGE_TASKS, accepted_board, database, record_effort, schedule_board
from flows.variety import published_before, puzzle_keys
from flows.watchdog import Watchdog
from starbattle_core.generator import GENERATOR_VERSION
from starbattle_core.generator.funnel import Batch
from starbattle_core.generator.run import next_batch, settle
from starbattle_core.grader import SOLVER_VERSION


@dataclass
class FillSummary:
    """What a run did: dates it filled, dates it left alone (already complete), slots it could not fill."""

    run_id: int
    dates: list[dt.date]
    skipped: list[dt.date] = field(default_factory=list)
    published: int = 0
    unfilled: list[tuple[dt.date, str]] = field(default_factory=list)
    works: list[SlotWork] = field(default_factory=list)  # every slot worked on, with its funnel


def task_runner(settings: Settings) -> Any:
    """The Dask cluster at `pipeline.dask_address` when there is one (several machines); else both cores for
    generation when the config allows more than one worker; one thread otherwise."""
    if settings.pipeline.dask_address:
        return dask_task_runner(settings.pipeline.dask_address)
    workers = settings.pipeline.workers
    if workers > 1:
        # The pool a CLI run started while its server started (flows/runner.py), else one of its own.
        return take_prestarted_pool(workers) or StoppablePool(max_workers=workers)
    return ThreadPoolTaskRunner(max_workers=1)


def fill_dates(
    settings: Settings, dates: list[dt.date], force: bool, kind: str, progress_id: Any = None
) -> FillSummary:
    """Fill every slot of `dates` (all slots again when `force`); see the module docstring."""
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
    complete = set() if force else store.complete_dates(engine, dates, [slot.name for slot in pipeline.slots])
    summary.skipped = [date for date in dates if date in complete]
    works: list[SlotWork] = []
    chosen: dict[dt.date, dict[tuple[int, int], list[int]]] = {}
    for date in dates_to_fill(dates, complete):
        taken = set() if force else store.scheduled_slots(engine, date)
        chosen[date] = day_masks([] if force else store.day_boards(engine, date))
        for position, slot in slots_to_fill(pipeline.slots, taken):
            attempt = store.next_attempt(engine, date, slot.name)
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
            _publish_ready(settings, run_id, works, chosen, force, summary)
            if progress_id is not None and works and done != sum(work.final is not None for work in works):
                done = sum(work.final is not None for work in works)
                update_progress_artifact(progress_id, progress=100.0 * done / len(works))

        with task_runner(settings) as runner:
            _run_funnel(settings, runner, works, publish)
        finished = True
        return summary
    finally:
        store.finish_run(engine, run_id, "completed" if finished and not summary.unfilled else "failed")


@stops_at_safe_points
def _run_funnel(settings: Settings, runner: Any, works: list[SlotWork], publish: Callable[[], None]) -> None:
    """Send every slot's batches through the stage tasks until each slot is done, `publish`ing after each batch.

    Each stage task is submitted the moment its slot's previous stage finishes, and a slot's next batch the moment
    its last one settles: no slot waits for another's round, both pool workers stay busy while any slot has work,
    and no task waits inside the runner for an upstream one (the process pool resolves a future passed as a
    parameter on one of only `workers` threads: chains submitted ahead block those threads and run one at a time).
    The boards stay those of any other order: each slot's search is its own, and `publish` goes in (date, slot)
    order (flows/policy.py)."""
    pipeline = settings.pipeline
    finished: queue.SimpleQueue[PrefectFuture[Batch]] = queue.SimpleQueue()
    running: dict[PrefectFuture[Batch], tuple[SlotWork, int]] = {}  # a stage's task run -> its slot, stage index

    def submit(work: SlotWork, stage: int, batch: Batch | PrefectFuture[Batch], label: str) -> None:
        tagged = STAGE_TASKS[stage].with_options(tags=[work.slot.game, work.slot.band])
        parameters = {"batch": batch, "generator": settings.generator, "grading": settings.grading, "label": label}
        future: PrefectFuture[Batch] = runner.submit(tagged, parameters=parameters)
        running[future] = (work, stage)
        future.add_done_callback(finished.put)

    def start_batches() -> None:
        busy = {id(work) for work, _ in running.values()}
        for work in works:
            if work.final is not None or id(work) in busy:
                continue
            safe_point()
            # The clock is the attempt's own stage seconds (other slots' tasks overlap it), looked at between batches.
            batch = next_batch(work.search, pipeline.batch_size, work.seconds >= pipeline.slot_budget(work.slot))
            if batch is not None:
                submit(work, 0, batch, batch_label(work, batch))

    def settle_and_go_on() -> None:
        # Each board is published as soon as its turn comes, so a run that dies keeps what it finished; a board
        # turned down there starts the slot's next attempt, whose first batch goes out at once.
        safe_point()
        publish()
        start_batches()

    watchdog = Watchdog(runner)

    def next_finished() -> PrefectFuture[Batch]:
        # A Ctrl-C or SIGTERM is taken only at the safe points (flows/stop_request.py), never inside Prefect; no
        # longer than CHECK_SECONDS after it came. A wait that no task run can end any more ends (flows/watchdog.py).
        while True:
            safe_point()
            try:
                future = finished.get(timeout=CHECK_SECONDS)
            except queue.Empty:
                waiting = {
                    waited: f"{work.date} {work.slot.name} {STAGE_TASKS[stage].name}"
                    for waited, (work, stage) in running.items()
                }
                taken = watchdog.look(waiting, max(pipeline.slot_budget(work.slot) for work, _ in running.values()))
                if taken is None:
                    continue
                return cast(PrefectFuture[Batch], taken)
            watchdog.delivered()
            return future

    settle_and_go_on()
    while running or any(work.final is None for work in works):
        if not running:  # searches that ended in start_batches (budget or clock spent) are settled on this pass
            settle_and_go_on()
            continue
        future = next_finished()
        if future not in running:  # the watchdog took it, done, before its callback came
            continue
        work, stage = running.pop(future)
        batch = future.result()  # a failed stage fails the run here, not later in a task that needed its batch
        if stage + 1 < len(STAGE_TASKS):
            # The finished future itself as the parameter: the dashboard draws the stage's upstream edge.
            submit(work, stage + 1, future, batch_label(work, batch))
            continue
        take_round(work, batch)
        settle(work.search, batch)
        settle_and_go_on()


def _publish_ready(
    settings: Settings,
    run_id: int,
    works: list[SlotWork],
    chosen: dict[dt.date, dict[tuple[int, int], list[int]]],
    force: bool,
    summary: FillSummary,
) -> None:
    for work in ready_to_publish(works):
        _publish(settings, run_id, work, chosen[work.date], force, summary)


def _publish(
    settings: Settings,
    run_id: int,
    work: SlotWork,
    chosen: dict[tuple[int, int], list[int]],
    force: bool,
    summary: FillSummary,
) -> None:
    """Settle one finished search: schedule its board, or record why not and go on with the next attempt."""
    pipeline = settings.pipeline
    url = pipeline.resolved_database_url()
    result = outcome(work, chosen, settings.generator.similarity_threshold)
    replacing = (work.date, work.slot.name) if force else None
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
            url, run_id, work.date, work.slot.name, work.position, accepted_board(board), spent, replace=force
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
    publish_day(kind, summary.dates, boards, stats, funnel, pictures=kind == "daily")
    site_dir = settings.pipeline.resolved_site_dir()
    if site_dir is not None:  # the last task: the public pages of the dates this run filled (flows/site.py)
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
    summary = fill_dates(settings, dates, force, kind)
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
    return _report("backfill", settings, summary) or _plain(summary)


def _plain(summary: FillSummary) -> dict[str, Any]:
    return {
        "run_id": summary.run_id,
        "dates": [date.isoformat() for date in summary.dates],
        "skipped": [date.isoformat() for date in summary.skipped],
        "published": summary.published,
        "unfilled": [[date.isoformat(), slot] for date, slot in summary.unfilled],
    }
