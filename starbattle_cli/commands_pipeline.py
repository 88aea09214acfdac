"""Pipeline commands: daily, backfill, serve, ui, show, export, stats, regrade, enumerate-layouts.

Everything a command can check before Prefect starts (the config, the database, the dates) is checked first, so a
mistake costs no server start and writes nothing: one line, exit status 2. Prefect is imported only by the commands
that run flows, after `prepare_prefect` has pointed it at the project's Prefect home.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from sqlalchemy.engine import Engine

from flows import store
from flows.dates import date_range, parse_date, today
from flows.db import open_database
from flows.environment import prepare_prefect
from flows.report import board_picture, board_rows, board_title, rejection_summary
from flows.server import dashboard_url, healthy, prefect_api, server_command
from flows.settings import Settings, load_settings
from starbattle_core.formats import puzzle_to_puzzlink
from starbattle_core.puzzle import InputError

from .app import app
from .puzzle_input import plain_terminal

DATE_HELP = "A date as YYYY-MM-DD (default: today in the configured time zone)."
FORMATS = ("json", "jsonl", "puzzlink")


def _open(settings: Settings | None = None) -> tuple[Settings, Engine]:
    """The settings and the database, both checked before anything else happens."""
    settings = settings or load_settings()
    return settings, open_database(settings.pipeline.resolved_database_url())


def _date(settings: Settings, text: str | None, option: str = "--date") -> dt.date:
    return parse_date(text, option) if text is not None else today(settings)


# --- running flows -----------------------------------------------------------------------------------------------


@contextmanager
def _progress(label: str, total: int, filled: Callable[[], int]) -> Iterator[None]:
    """A progress bar on standard error, fed by polling how many of `total` boards the database holds."""
    console = Console(stderr=True)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=total, completed=filled())
        stop = threading.Event()

        def poll() -> None:
            while not stop.wait(0.5):
                progress.update(task, completed=filled())

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        try:
            yield
        finally:
            stop.set()
            poller.join()


def _run_flow(settings: Settings, kind: str, call: Callable[[Any], Any]) -> Any:
    """Run a flow against the dashboard's server (or one started for this run), tagged with its kind; a failed run
    prints its reason and exits with status 1."""
    prepare_prefect(settings)
    with prefect_api(settings):
        from prefect import tags

        import flows.daily as daily_flows

        with tags(kind):
            state = call(daily_flows)
    if state.is_failed() or state.is_crashed():
        typer.echo(f"run failed: {state.message}", err=True)
        return None
    return state.result()


def _slot_count(engine: Engine, dates: list[dt.date], settings: Settings) -> Callable[[], int]:
    names = {slot.name for slot in settings.pipeline.slots}

    def filled() -> int:
        return sum(len(store.scheduled_slots(engine, date) & names) for date in dates)

    return filled


@app.command()
def daily(
    date: str | None = typer.Option(None, "--date", help=DATE_HELP),
    force: bool = typer.Option(False, "--force", help="Make the date's boards again even when it is complete."),
) -> None:
    """Fill the daily slots of a date and print its boards and counters."""
    settings = load_settings()
    day = _date(settings, date)
    settings, engine = _open(settings)
    names = [slot.name for slot in settings.pipeline.slots]
    if not force and store.complete_dates(engine, [day], names):
        # Nothing to do: no need to start Prefect to find that out.
        typer.echo(f"{day} is complete (--force makes its boards again)", err=True)
        _print_day(engine, day)
        return
    total = len(names)
    filled = (lambda: 0) if force else _slot_count(engine, [day], settings)
    with _progress(f"daily {day}", total, filled):
        result = _run_flow(
            settings, "manual", lambda f: f.daily(date=day.isoformat(), force=force, kind="manual", return_state=True)
        )
    _print_day(engine, day)
    if result is not None:
        _print_counters(store.slot_stats(engine, run_id=result["run_id"]), "this run's counters")
    if result is None or result["unfilled"]:
        raise typer.Exit(1)


@app.command()
def backfill(
    start: str = typer.Option(..., "--start", help="First date (YYYY-MM-DD)."),
    end: str = typer.Option(..., "--end", help="Last date (YYYY-MM-DD), included."),
    force: bool = typer.Option(False, "--force", help="Make complete dates again too."),
) -> None:
    """Fill every date of a range on both cores, skipping dates that are already complete."""
    settings = load_settings()
    dates = date_range(parse_date(start, "--start"), parse_date(end, "--end"))
    settings, engine = _open(settings)
    names = [slot.name for slot in settings.pipeline.slots]
    if not force and len(store.complete_dates(engine, dates, names)) == len(dates):
        typer.echo(f"every date of {dates[0]}..{dates[-1]} is complete (--force makes them again)")
        return
    total = len(dates) * len(names)
    filled = (lambda: 0) if force else _slot_count(engine, dates, settings)
    with _progress(f"backfill {dates[0]}..{dates[-1]}", total, filled):
        result = _run_flow(
            settings,
            "backfill",
            lambda f: f.backfill(start=dates[0].isoformat(), end=dates[-1].isoformat(), force=force, return_state=True),
        )
    if result is None:
        raise typer.Exit(1)
    console = Console()
    console.print(
        f"backfill {dates[0]}..{dates[-1]}: {result['published']} boards published, "
        f"{len(result['skipped'])} of {len(dates)} dates already complete"
    )
    _print_counters(store.slot_stats(engine, run_id=result["run_id"]), "this run's counters")
    if result["unfilled"]:
        console.print("unfilled: " + ", ".join(f"{d} {s}" for d, s in result["unfilled"]))
        raise typer.Exit(1)


@app.command()
def regrade() -> None:
    """Recompute the solve paths stored under an older solver version."""
    settings, _engine = _open()
    prepare_prefect(settings)
    with prefect_api(settings):
        from prefect import tags

        from flows.maintenance import regrade as regrade_flow

        with tags("manual"):
            state = regrade_flow(return_state=True)
    if state.is_failed() or state.is_crashed():
        typer.echo(f"run failed: {state.message}", err=True)
        raise typer.Exit(1)
    result = state.result()
    typer.echo(f"solver {result['solver_version']}: {result['regraded']} of {result['stale']} stale boards regraded")


@app.command("enumerate-layouts")
def enumerate_layouts(
    size: int = typer.Option(..., "--size", help="Board size N."),
    stars: int = typer.Option(..., "--stars", help="Stars per unit K."),
) -> None:
    """Store every valid layout of (size, stars) in the database's layout bank."""
    settings, _engine = _open()
    from starbattle_core.layouts import MAX_BANK, count_layouts
    from starbattle_core.puzzle import layouts_exist

    if not layouts_exist(size, stars):
        raise InputError(f"no layout exists for a {size}x{size} board with {stars} stars per unit")
    if count_layouts(size, stars) > MAX_BANK:
        raise InputError(f"{size}x{size} with {stars} stars has more than {MAX_BANK:,} layouts: sample it instead")
    prepare_prefect(settings)
    with prefect_api(settings):
        from prefect import tags

        from flows.maintenance import enumerate_layouts as enumerate_flow

        with tags("manual"):
            state = enumerate_flow(size=size, stars=stars, return_state=True)
    if state.is_failed() or state.is_crashed():
        typer.echo(f"run failed: {state.message}", err=True)
        raise typer.Exit(1)
    typer.echo(f"layout bank {size}x{size} {stars}-star: {state.result():,} layouts")


# --- serving and the dashboard -------------------------------------------------------------------------------------


@app.command()
def serve() -> None:
    """Serve the nightly deployment (cron and time zone from the config) plus on-demand backfill and regrade
    deployments. The schedule stays active when this process stops, so a restart carries on."""
    settings, _engine = _open()
    prepare_prefect(settings, quiet=False)
    pipeline = settings.pipeline
    with prefect_api(settings, port=pipeline.ui_port) as api:
        # Imported once the API is chosen: Prefect fixes its settings when first imported.
        from prefect import serve as prefect_serve
        from prefect.deployments.runner import RunnerDeployment
        from prefect.schedules import Cron

        from flows.daily import backfill as backfill_flow
        from flows.daily import daily as daily_flow
        from flows.maintenance import regrade as regrade_flow

        nightly = daily_flow.to_deployment(
            name="nightly",
            schedules=[Cron(pipeline.nightly_cron, timezone=pipeline.timezone)],
            parameters={"kind": "nightly"},
            tags=["nightly"],
            description="Fill today's slots and the days ahead the config asks for.",
        )
        on_demand = backfill_flow.to_deployment(name="backfill", tags=["backfill"])
        regrading = regrade_flow.to_deployment(name="regrade", tags=["manual"])
        typer.echo(
            f"serving nightly ({pipeline.nightly_cron}, {pipeline.timezone}), backfill and regrade; "
            f"dashboard {api.removesuffix('/api')}"
        )
        # Prefect types `to_deployment` as "result or coroutine"; called outside an event loop, it is the result.
        deployments = cast(list[RunnerDeployment], [nightly, on_demand, regrading])
        prefect_serve(*deployments, pause_on_shutdown=False, print_starting_message=False)


@app.command()
def ui() -> None:
    """Start the Prefect UI on 127.0.0.1 with the project's Prefect home (runs past and present)."""
    settings = load_settings()
    home = prepare_prefect(settings, quiet=False)
    url = dashboard_url(settings)
    if healthy(f"{url}/api"):
        typer.echo(f"the dashboard is already running: {url}")
        return
    server = subprocess.Popen(server_command(settings.pipeline.ui_port))
    try:
        while not healthy(f"{url}/api"):
            if server.poll() is not None:
                raise typer.Exit(server.returncode or 1)
            time.sleep(0.25)
        typer.echo(f"dashboard: {url}  (Prefect home {home}; Ctrl-C stops it)")
        server.wait()
    except KeyboardInterrupt:
        server.terminate()
        server.wait()


# --- reading the database ----------------------------------------------------------------------------------------


def _board_object(board: store.ScheduledBoard) -> dict[str, Any]:
    return {**board.board_json(), "date": board.date.isoformat(), "slot": board.slot}


def _print_day(engine: Engine, day: dt.date) -> None:
    boards = store.day_boards(engine, day)
    table = Table(title=f"boards for {day}")
    # The slot's name says the game; "tried" is the candidates its accepting attempt went through.
    columns = {
        "slot": "slot",
        "size": "size",
        "band": "band",
        "difficulty": "difficulty",
        "fun": "fun",
        "looks": "looks",
        "candidates": "tried",
    }
    for column, heading in columns.items():
        table.add_column(heading, justify="left" if column in ("slot", "size", "band") else "right")
    for row in board_rows(boards):
        table.add_row(*(str(row[column]) for column in columns))
    Console().print(table)


def _print_counters(stats: list[store.SlotStats], title: str) -> None:
    if not stats:
        return
    table = Table(title=title)
    for column in ("slot", "attempts", "accepted", "candidates", "rejections", "seconds"):
        table.add_column(column, justify="left" if column in ("slot", "rejections") else "right")
    for slot in stats:
        table.add_row(
            slot.slot,
            str(slot.attempts),
            str(slot.accepted),
            str(slot.candidates),
            rejection_summary(slot.rejections),
            f"{slot.seconds:.1f}",
        )
    Console().print(table)


def _scheduled_boards(date: str | None) -> list[store.ScheduledBoard]:
    """The boards of a date (default today); exit status 1 when none is scheduled."""
    settings, engine = _open()
    day = _date(settings, date)
    boards = store.day_boards(engine, day)
    if not boards:
        typer.echo(f"no boards scheduled for {day}", err=True)
        raise typer.Exit(1)
    return boards


@app.command()
def show(
    date: str | None = typer.Option(None, "--date", help=DATE_HELP),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per board (the generator's board + date, slot)."
    ),
    solved: bool = typer.Option(False, "--solved", help="Draw the stars of the solution too."),
) -> None:
    """The boards of a date as pictures with their scores."""
    boards = _scheduled_boards(date)
    for board in boards:
        if as_json:
            typer.echo(json.dumps(_board_object(board)))
        else:
            typer.echo(board_title(board))
            typer.echo(board_picture(board, solved=solved, ascii=plain_terminal()))
            typer.echo("")


@app.command()
def export(
    date: str | None = typer.Option(None, "--date", help=DATE_HELP),
    output_format: str = typer.Option(
        "jsonl", "--format", help="json (one array), jsonl (one board a line) or puzzlink."
    ),
) -> None:
    """Print a date's boards for other tools: JSON, JSON Lines, or puzz.link URLs."""
    if output_format not in FORMATS:
        raise InputError(f"--format {output_format!r}: expected one of {', '.join(FORMATS)}")
    boards = _scheduled_boards(date)
    if output_format == "json":
        typer.echo(json.dumps([_board_object(board) for board in boards], indent=1))
    elif output_format == "jsonl":
        for board in boards:
            typer.echo(json.dumps(_board_object(board)))
    else:
        for board in boards:
            typer.echo(puzzle_to_puzzlink(board.puzzle()))


@app.command()
def stats(
    start: str | None = typer.Option(None, "--start", help="First date (default: the first recorded)."),
    end: str | None = typer.Option(None, "--end", help="Last date, included (default: the last recorded)."),
) -> None:
    """Acceptance and rejection counts per slot over a range of dates."""
    _, engine = _open()
    first = parse_date(start, "--start") if start is not None else None
    last = parse_date(end, "--end") if end is not None else None
    if first is not None and last is not None:
        date_range(first, last)
    rows = store.slot_stats(engine, first, last)
    span = f"{first or 'first'}..{last or 'last'}"
    if not rows:
        typer.echo(f"no runs recorded for {span}")
        return
    _print_counters(rows, f"counters for {span}")
