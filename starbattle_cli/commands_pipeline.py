"""Pipeline commands: daily, backfill, serve, ui, show, export, stats, regrade, enumerate-layouts.

Everything a command can check before Prefect starts (the config, the database, the dates) is checked first, so a
mistake costs no server start and writes nothing: one line, exit status 2. The commands parse, call and print:
running flows and serving deployments is flows/runner.py's work, which imports Prefect only after pointing it at the
project's Prefect home.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

from .puzzle_input import plain_terminal

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from flows.settings import Settings
    from starbattle_store import ScheduledBoard, SlotStats

# The engine commands (verify, grade, explain, generate) share this process's start-up: everything of the pipeline
# (pydantic settings, SQLAlchemy, rich's tables, Prefect) is imported inside the commands that need it.

DATE_HELP = "A date as YYYY-MM-DD (default: today in the configured time zone)."
DASK_HELP = "Generate on the Dask cluster at tcp://HOST:PORT (default: pipeline.dask_address)."
FORMATS = ("json", "jsonl", "puzzlink")


def _open(settings: Settings | None = None) -> tuple[Settings, Engine]:
    """The settings and the database, both checked before anything else happens."""
    from flows.settings import load_settings
    from starbattle_store.db import open_database

    settings = settings or load_settings()
    return settings, open_database(settings.pipeline.resolved_database_url())


def _date(settings: Settings, text: str | None, option: str = "--date") -> dt.date:
    from flows.dates import parse_date, today

    return parse_date(text, option) if text is not None else today(settings)


# --- running flows -----------------------------------------------------------------------------------------------


@contextmanager
def _progress(label: str, total: int, filled: Callable[[], int]) -> Iterator[None]:
    """A progress bar on standard error, fed by polling how many of `total` boards the database holds."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        # None when stderr is a file or a pipe: a bar is for a person, and rich before 15 ends even a disabled one
        # with an empty line there.
        yield
        return
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


def _run_flow(settings: Settings, kind: str, call: Callable[[], Any]) -> tuple[Any, str | None]:
    """The flow's result, and None or, when the run failed or crashed, its message (say it with `_say_failure`
    once any progress bar is gone). A failed run's result is what it returned with its failure (a daily or
    backfill's summary, with the slots it left without a board), or None."""
    from flows.runner import run_flow

    state = run_flow(settings, kind, call)
    if not (state.is_failed() or state.is_crashed()):
        return state.result(), None
    try:
        returned = state.result(raise_on_failure=False)
    except Exception:  # a crashed run has no result to read
        returned = None
    return (returned if isinstance(returned, dict) else None), state.message or "no message"


def _say_failure(failure: str | None) -> None:
    """One line on standard error and exit status 1 for a run that failed; nothing for one that did not."""
    if failure is not None:
        typer.echo(f"run failed: {failure}", err=True)
        raise typer.Exit(1)


def _check_dask(settings: Settings, dask: str | None) -> None:
    """A cluster run's address, extra and scheduler, checked before anything is written or Prefect starts."""
    from flows.cluster import check_dask_address

    address, where = (dask, "--dask") if dask else (settings.pipeline.dask_address, "pipeline.dask_address")
    if address:
        check_dask_address(address, where)


def _slot_count(engine: Engine, dates: list[dt.date], settings: Settings) -> Callable[[], int]:
    import starbattle_store as store

    names = {slot.name for slot in settings.pipeline.slots}

    def filled() -> int:
        return sum(len(store.scheduled_slots(engine, date) & names) for date in dates)

    return filled


@commands.command()
def daily(
    date: str | None = typer.Option(None, "--date", help=DATE_HELP),
    force: bool = typer.Option(False, "--force", help="Make the date's boards again even when it is complete."),
    dask: str | None = typer.Option(None, "--dask", help=DASK_HELP),
) -> None:
    """Fill the daily slots of a date and print its boards and counters."""
    import starbattle_store as store
    from flows.settings import load_settings

    settings = load_settings()
    day = _date(settings, date)
    _check_dask(settings, dask)
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
        result, failure = _run_flow(
            settings,
            "manual",
            lambda: _flows().daily(
                date=day.isoformat(), force=force, kind="manual", dask_address=dask, return_state=True
            ),
        )
    _print_day(engine, day)
    if result is not None:
        _print_counters(store.slot_stats(engine, run_id=result["run_id"]), "this run's counters")
    _print_where(settings, day)
    _say_failure(failure)


def _print_where(settings: Settings, day: dt.date) -> None:
    """Where the boards went and the three ways to look at them, as commands that work in a new shell (`uv run`
    needs no activated virtual environment). A run pointed at a server by PREFECT_API_URL is on that server's UI."""
    from flows.server import dashboard_url
    from starbattle_store.db import shown_url

    api = os.environ.get("PREFECT_API_URL")
    dashboard = api.rstrip("/").removesuffix("/api") if api else f"uv run starbattle ui, then {dashboard_url(settings)}"
    typer.echo(
        f"boards stored in {shown_url(settings.pipeline.resolved_database_url())}\n"
        f"see them: uv run starbattle show --date {day} (--solved for the stars; export for other tools)\n"
        f"dashboard: {dashboard} (runs, stage tasks, funnel, pictures)"
    )


@commands.command()
def backfill(
    start: str = typer.Option(..., "--start", help="First date (YYYY-MM-DD)."),
    end: str = typer.Option(..., "--end", help="Last date (YYYY-MM-DD), included."),
    force: bool = typer.Option(False, "--force", help="Make complete dates again too."),
    dask: str | None = typer.Option(None, "--dask", help=DASK_HELP),
) -> None:
    """Fill every date of a range on both cores (or a Dask cluster), skipping dates that are already complete."""
    from rich.console import Console

    import starbattle_store as store
    from flows.dates import date_range, parse_date
    from flows.settings import load_settings

    settings = load_settings()
    dates = date_range(parse_date(start, "--start"), parse_date(end, "--end"))
    _check_dask(settings, dask)
    settings, engine = _open(settings)
    names = [slot.name for slot in settings.pipeline.slots]
    if not force and len(store.complete_dates(engine, dates, names)) == len(dates):
        typer.echo(f"every date of {dates[0]}..{dates[-1]} is complete (--force makes them again)")
        return
    total = len(dates) * len(names)
    filled = (lambda: 0) if force else _slot_count(engine, dates, settings)
    with _progress(f"backfill {dates[0]}..{dates[-1]}", total, filled):
        result, failure = _run_flow(
            settings,
            "backfill",
            lambda: _flows().backfill(
                start=dates[0].isoformat(), end=dates[-1].isoformat(), force=force, dask_address=dask, return_state=True
            ),
        )
    if result is None:
        _say_failure(failure)
    console = Console()
    console.print(
        f"backfill {dates[0]}..{dates[-1]}: {result['published']} boards published, "
        f"{len(result['skipped'])} of {len(dates)} dates already complete"
    )
    _print_counters(store.slot_stats(engine, run_id=result["run_id"]), "this run's counters")
    if result["unfilled"]:
        console.print("unfilled: " + ", ".join(f"{d} {s}" for d, s in result["unfilled"]))
    _say_failure(failure)


@commands.command()
def replace(
    date: str = typer.Option(..., "--date", help="The date whose board is replaced (YYYY-MM-DD)."),
    slot: str = typer.Option(..., "--slot", help="The daily slot whose board is replaced."),
    reason: str = typer.Option("", "--reason", help="Why, kept with the replaced board."),
) -> None:
    """Make one published board again with the slot's next attempt's seed; the replaced board stays in the database,
    marked replaced, and the date's page and the feeds are published again."""
    import starbattle_store as store
    from flows.dates import parse_date
    from flows.settings import load_settings
    from starbattle_core.puzzle import InputError

    settings = load_settings()
    day = parse_date(date, "--date")
    names = [entry.name for entry in settings.pipeline.slots]
    if slot not in names:
        raise InputError(f"--slot {slot!r}: not a daily slot (have {', '.join(names)})")
    settings, engine = _open(settings)
    if slot not in store.scheduled_slots(engine, day):
        raise InputError(f"--slot {slot!r}: {day} has no board in it to replace (starbattle daily --date {day})")

    def call() -> Any:
        return _flows().replace(date=day.isoformat(), slot=slot, reason=reason, return_state=True)

    with _progress(f"replace {day} {slot}", 1, lambda: 0):
        result, failure = _run_flow(settings, "replace", call)
    _print_day(engine, day)
    if result is not None:
        _print_counters(store.slot_stats(engine, run_id=result["run_id"]), "this run's counters")
    _say_failure(failure)


@commands.command()
def regrade() -> None:
    """Recompute the solve paths stored under an older solver version."""
    settings, _engine = _open()

    def call() -> Any:
        from flows.maintenance import regrade as regrade_flow

        return regrade_flow(return_state=True)

    result, failure = _run_flow(settings, "manual", call)
    _say_failure(failure)
    typer.echo(f"solver {result['solver_version']}: {result['regraded']} of {result['stale']} stale boards regraded")


@commands.command("enumerate-layouts")
def enumerate_layouts(
    size: int = typer.Option(..., "--size", help="Board size N."),
    stars: int = typer.Option(..., "--stars", help="Stars per unit K."),
) -> None:
    """Store every valid layout of (size, stars) in the database's layout bank."""
    from starbattle_core.layouts import MAX_BANK, count_layouts
    from starbattle_core.puzzle import InputError, layouts_exist

    settings, _engine = _open()
    if not layouts_exist(size, stars):
        raise InputError(f"no layout exists for a {size}x{size} board with {stars} stars per unit")
    if count_layouts(size, stars) > MAX_BANK:
        raise InputError(f"{size}x{size} with {stars} stars has more than {MAX_BANK:,} layouts: sample it instead")

    def call() -> Any:
        from flows.maintenance import enumerate_layouts as enumerate_flow

        return enumerate_flow(size=size, stars=stars, return_state=True)

    result, failure = _run_flow(settings, "manual", call)
    _say_failure(failure)
    typer.echo(f"layout bank {size}x{size} {stars}-star: {result:,} layouts")


# --- serving and the dashboard -------------------------------------------------------------------------------------


@commands.command()
def serve() -> None:
    """Serve the nightly deployment (cron and time zone from the config, with its overdue automation) plus
    on-demand backfill and regrade deployments. The schedule stays active when this process stops."""
    from flows.runner import serve as serve_deployments

    settings, _engine = _open()
    serve_deployments(settings, typer.echo)


@commands.command()
def ui() -> None:
    """Start the Prefect UI on 127.0.0.1 with the project's Prefect home (runs past and present)."""
    from flows.environment import prepare_prefect
    from flows.server import run_dashboard
    from flows.settings import load_settings

    settings = load_settings()
    prepare_prefect(settings, quiet=False)
    run_dashboard(settings, typer.echo)


# --- reading the database ----------------------------------------------------------------------------------------


def _flows() -> Any:
    """The daily and backfill flows, imported only once Prefect is set up (flows/runner.py)."""
    import flows.daily

    return flows.daily


def _board_object(board: ScheduledBoard) -> dict[str, Any]:
    return {**board.board_json(), "date": board.date.isoformat(), "slot": board.slot}


def _print_day(engine: Engine, day: dt.date) -> None:
    from rich.console import Console
    from rich.table import Table

    import starbattle_store as store
    from flows.report import board_rows

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
        # Slot names are never cut (a narrow terminal wraps the other columns instead).
        table.add_column(
            heading, justify="left" if column in ("slot", "size", "band") else "right", no_wrap=column == "slot"
        )
    for row in board_rows(boards):
        table.add_row(*(str(row[column]) for column in columns))
    Console().print(table)


def _print_counters(stats: list[SlotStats], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from flows.report import rejection_summary

    if not stats:
        return
    table = Table(title=title)
    for column in ("slot", "attempts", "accepted", "candidates", "rejections", "seconds"):
        table.add_column(
            column, justify="left" if column in ("slot", "rejections") else "right", no_wrap=column == "slot"
        )
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


def _scheduled_boards(date: str | None) -> list[ScheduledBoard]:
    """The boards of a date (default today); exit status 1 when none is scheduled."""
    import starbattle_store as store

    settings, engine = _open()
    day = _date(settings, date)
    boards = store.day_boards(engine, day)
    if not boards:
        typer.echo(f"no boards scheduled for {day}", err=True)
        raise typer.Exit(1)
    return boards


@commands.command()
def show(
    date: str | None = typer.Option(None, "--date", help=DATE_HELP),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per board (the generator's board + date, slot)."
    ),
    solved: bool = typer.Option(False, "--solved", help="Draw the stars of the solution too."),
    svg: str | None = typer.Option(None, "--svg", help="Write each board as DIR/DATE-SLOT.svg; print the paths."),
) -> None:
    """The boards of a date as pictures with their scores."""
    from flows.report import board_picture, board_title

    boards = _scheduled_boards(date)
    if svg is not None:
        from pathlib import Path

        from starbattle_web import site

        for path in site.board_picture_files(boards, Path(svg), solved=solved):
            typer.echo(path)
        return
    for board in boards:
        if as_json:
            typer.echo(json.dumps(_board_object(board)))
        else:
            typer.echo(board_title(board))
            typer.echo(board_picture(board, solved=solved, ascii=plain_terminal()))
            typer.echo("")


@commands.command()
def export(
    date: str | None = typer.Option(None, "--date", help=DATE_HELP),
    output_format: str = typer.Option(
        "jsonl", "--format", help="json (one array), jsonl (one board a line) or puzzlink."
    ),
    with_path: bool = typer.Option(
        False, "--with-path", help="Add each board's solve path (`steps` as explain --json gives them) to json, jsonl."
    ),
) -> None:
    """Print a date's boards for other tools: JSON, JSON Lines, or puzz.link URLs."""
    from starbattle_core.formats import puzzle_to_puzzlink
    from starbattle_core.puzzle import InputError

    if output_format not in FORMATS:
        raise InputError(f"--format {output_format!r}: expected one of {', '.join(FORMATS)}")
    if with_path and output_format == "puzzlink":
        raise InputError("--with-path: a puzz.link URL has no place for the solve path (use --format json or jsonl)")
    boards = _scheduled_boards(date)

    from starbattle_web import site

    def record(board: ScheduledBoard) -> dict[str, Any]:
        return {**_board_object(board), **(site.solve_path(board) if with_path else {})}

    if output_format == "json":
        typer.echo(json.dumps([record(board) for board in boards], indent=1))
    elif output_format == "jsonl":
        for board in boards:
            typer.echo(json.dumps(record(board)))
    else:
        for board in boards:
            typer.echo(puzzle_to_puzzlink(board.puzzle()))


@commands.command()
def stats(
    start: str | None = typer.Option(None, "--start", help="First date (default: the first recorded)."),
    end: str | None = typer.Option(None, "--end", help="Last date, included (default: the last recorded)."),
) -> None:
    """Acceptance and rejection counts per slot over a range of dates."""
    import starbattle_store as store
    from flows.dates import date_range, parse_date

    _settings, engine = _open()
    first = parse_date(start, "--start") if start is not None else None
    last = parse_date(end, "--end") if end is not None else None
    if first is not None and last is not None:
        date_range(first, last)
    rows = store.slot_stats(engine, first, last)
    span = f"{first or 'first'}..{last or 'last'}"
    runs = store.run_counts(engine)
    if runs:
        # A run killed mid-way is marked crashed by the next run (flows/liveness.py), so "running" means running.
        typer.echo("runs: " + ", ".join(f"{count} {status}" for status, count in runs.items()))
    if not rows:
        typer.echo(f"no runs recorded for {span}")
        return
    _print_counters(rows, f"counters for {span}")
