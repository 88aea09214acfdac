"""`starbattle from-image`: a board from a picture (a screenshot, a scan), printed as one JSON line.

The line is the shared data's form, so it pipes into every other command (`starbattle from-image shot.png |
starbattle explain -`). Standard error gets one line saying what was read and the board's solution count, so a
misread shows itself; a picture with no readable board is refused with one line and status 2.
"""

from __future__ import annotations

import json

import typer

from starbattle_core.formats import puzzle_to_json, read_source

from .picture_input import MAX_PICTURE_BYTES, read_board_picture

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()


@commands.command("from-image")
def from_image(
    path: str = typer.Argument(..., help="A PNG, JPEG or WebP picture of a board, or - for standard input."),
    stars: int | None = typer.Option(
        None, "--stars", help="Stars per row, column and region (default: the usual for the board's size)."
    ),
    game: str | None = typer.Option(
        None, "--game", help="starbattle or queens (default: queens for a board read from colours alone)."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Say what was read on standard error as a JSON object instead of a sentence."
    ),
) -> None:
    """Read a board from a picture and print it as one JSON line: {"game", "size", "stars", "regions"}."""
    data, name = read_source(path, MAX_PICTURE_BYTES)
    board = read_board_picture(data, stars, game, name)
    typer.echo(json.dumps(puzzle_to_json(board.puzzle)))
    if as_json:
        read = board.read
        report = {
            "picture": name,
            "size": board.puzzle.size,
            "regions_from": read.regions_from,
            "game": board.puzzle.game,
            "game_given": read.game_given,
            "stars": board.puzzle.stars,
            "stars_given": read.stars_given,
            "solutions": board.solutions,
            "exact": board.exact,
        }
        typer.echo(json.dumps(report), err=True)
    else:
        typer.echo(board.description, err=True)
