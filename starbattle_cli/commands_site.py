"""What leaves the pipeline for players: `publish` (the static daily site) and `hint` (the next step for a board
a player is solving)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

import starbattle_store as store
from flows.dates import parse_date, today
from flows.settings import PROJECT, load_settings
from starbattle_core.grader.hint import hint as next_hint
from starbattle_core.puzzle import InputError
from starbattle_store.db import open_database
from starbattle_web import site as site_files

from .puzzle_input import STARS_HELP, player_boards, puzzle_label, read_text
from .records import hint_summary

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()

DEFAULT_SITE = "data/site"
HINT_PATH_HELP = (
    "A board in any format the other commands read, or - for standard input. As JSON (an object, JSON Lines or an "
    'array) each board may carry the player\'s marks: "marks" with "stars" and "empties", lists of '
    "(row, column) pairs counted from 0; in a text picture its 'given stars' and 'given empty' lines are the marks."
)


@commands.command()
def hint(
    path: str = typer.Argument(..., help=HINT_PATH_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per board."),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
) -> None:
    """The next logical step from a player's marks: technique, cells and sentence; or which mark is wrong.

    Exit status: 0 when every board got a step (or is solved), 1 when a mark is wrong, a board has no unique
    solution or no technique applies, 2 on bad input.
    """
    content, name = read_text(path)
    boards = player_boards(content, name, stars)
    trouble = 0
    for index, (puzzle, marked_stars, marked_empties) in enumerate(boards, 1):
        answer = next_hint(puzzle, marked_stars, marked_empties)
        trouble += answer.status not in ("step", "solved")
        record = hint_summary(puzzle, puzzle_label(puzzle, index), answer)
        if as_json:
            print(json.dumps(record))
        elif answer.step is not None:
            step = answer.step
            print(f"{record['id']}: {step.technique} ({step.code}, cost {step.cost}): {step.sentence}.")
        else:
            print(f"{record['id']}: {answer.message}")
    raise typer.Exit(1 if trouble else 0)


@commands.command()
def publish(
    date: str | None = typer.Option(
        None, "--date", help="A date as YYYY-MM-DD (default: today in the configured zone)."
    ),
    out: str | None = typer.Option(
        None, "--out", help="The site folder (default: pipeline.site_dir of the config, else data/site)."
    ),
) -> None:
    """Write a date's page (boards to play, their solve paths), its boards.json, and the archive and feeds."""
    settings = load_settings()
    day = parse_date(date, "--date") if date is not None else today(settings)
    folder = Path(out) if out is not None else settings.pipeline.resolved_site_dir() or PROJECT / DEFAULT_SITE
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder}: not a folder")
    engine = open_database(settings.pipeline.resolved_database_url())
    boards = store.day_boards(engine, day)
    if not boards:
        typer.echo(f"no boards scheduled for {day}", err=True)
        raise typer.Exit(1)
    try:
        written = site_files.publish_day(folder, day, boards)
    except OSError as error:
        raise InputError(f"cannot write the site in {folder}: {error.strerror or error}") from None
    page = folder / day.isoformat() / "index.html"
    typer.echo(f"{page}: {len(boards)} boards; {len(written)} files changed")
