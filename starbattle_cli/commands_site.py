"""What leaves the pipeline for players: `publish` (the static daily site) and `hint` (the next step for a board
a player is solving)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from flows import site as site_files
from flows import store
from flows.dates import parse_date, today
from flows.db import open_database
from flows.settings import PROJECT, load_settings
from starbattle_core.formats import puzzle_from_json
from starbattle_core.grader.hint import Hint, marks_from_json
from starbattle_core.grader.hint import hint as next_hint
from starbattle_core.puzzle import InputError, Puzzle, PuzzleError, cells_to_coords

from .puzzle_input import puzzle_label

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()

DEFAULT_SITE = "data/site"
HINT_PATH_HELP = (
    'A board as JSON (the project\'s puzzle object plus "marks": {"stars": [[r, c]], "empties": [[r, c]]}), '
    "JSON Lines or a JSON array of them, or - for standard input."
)


def _read_text(path: str) -> tuple[str, str]:
    if path == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        content: str | bytes = stream.read()
        name = "<stdin>"
    else:
        try:
            content = Path(path).read_bytes()
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror or error}") from None
        name = path
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise PuzzleError(f"{name}: not UTF-8 text (byte {error.start + 1})") from None
    return content, name


def _player_boards(path: str) -> list[tuple[Puzzle, int, int]]:
    """Every board of the input with the player's star and empty masks; bad input is one InputError naming where."""
    content, name = _read_text(path)
    if not content.strip():
        raise PuzzleError(f"{name}: no board in it (the input is empty)")
    objects: list[tuple[str, Any]]
    try:
        whole = json.loads(content)
    except ValueError:
        objects = []
        for number, line in enumerate(content.splitlines(), 1):
            if line.strip():
                try:
                    objects.append((f"{name} line {number}", json.loads(line)))
                except ValueError as error:
                    raise PuzzleError(f"{name} line {number}: not JSON ({error})") from None
    else:
        items = whole if isinstance(whole, list) else [whole]
        objects = [(f"{name} board {i + 1}" if isinstance(whole, list) else name, item) for i, item in enumerate(items)]
    if not objects:
        raise PuzzleError(f"{name}: no board in it")
    boards = []
    for where, obj in objects:
        puzzle = puzzle_from_json(obj, where=where)
        try:
            stars, empties = marks_from_json(obj.get("marks", {}), puzzle.size)
        except PuzzleError as error:
            raise PuzzleError(f"{where}: {error}") from None
        boards.append((puzzle, stars, empties))
    return boards


def _hint_record(puzzle: Puzzle, label: str, answer: Hint) -> dict[str, Any]:
    n = puzzle.size
    record: dict[str, Any] = {"id": label, "status": answer.status, "message": answer.message}
    step = answer.step
    if step is not None:
        record.update(
            technique=step.technique,
            code=step.code,
            cost=step.cost,
            stars=[list(rc) for rc in cells_to_coords(step.stars, n)],
            empties=[list(rc) for rc in cells_to_coords(step.empties, n)],
            units=list(step.units),
            sentence=step.sentence,
        )
    if answer.status == "wrong":
        record["wrong"] = {
            "stars": [list(rc) for rc in cells_to_coords(answer.wrong_stars, n)],
            "empties": [list(rc) for rc in cells_to_coords(answer.wrong_empties, n)],
        }
    return record


@commands.command()
def hint(
    path: str = typer.Argument(..., help=HINT_PATH_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per board."),
) -> None:
    """The next logical step from a player's marks: technique, cells and sentence; or which mark is wrong.

    Exit status: 0 when every board got a step (or is solved), 1 when a mark is wrong, a board has no unique
    solution or no technique applies, 2 on bad input.
    """
    boards = _player_boards(path)
    trouble = 0
    for index, (puzzle, stars, empties) in enumerate(boards, 1):
        answer = next_hint(puzzle, stars, empties)
        trouble += answer.status not in ("step", "solved")
        record = _hint_record(puzzle, puzzle_label(puzzle, index), answer)
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
