"""Engine commands: verify, solve, layouts.

Every command that takes a file reads any format `starbattle_core.formats.read_puzzles` knows (JSON Lines, a JSON
object or array, puzz.link URLs one a line, text pictures), or standard input for `-`. The whole file is read and
checked before any puzzle is counted, so bad input stops with status 2 before any output.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from starbattle_core.counter import CountResult, count_solutions
from starbattle_core.layouts import count_layouts, layout_to_cells, sample_layouts
from starbattle_core.puzzle import Cells, InputError, cells_to_coords
from starbattle_core.render import render_board

from .app import app
from .puzzle_input import PATH_HELP, STARS_HELP, load_puzzles, plain_terminal, puzzle_label

layouts_app = typer.Typer(
    help="Count or sample full star layouts (K per row and column, none touching).", no_args_is_help=True
)
app.add_typer(layouts_app, name="layouts")


def _coords(mask: Cells, size: int) -> list[list[int]]:
    return [list(rc) for rc in cells_to_coords(mask, size)]


def _count_phrase(result: CountResult) -> str:
    if result.count == 0:
        return "no solution"
    noun = "solution" if result.count == 1 else "solutions"
    if result.exact:
        return f"{result.count} {noun}"
    return f"at least {result.count} {noun} (stopped at the limit)"


@app.command()
def verify(
    path: str = typer.Argument(..., help=PATH_HELP),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per puzzle: id, count, exact, solution, ms, nodes."
    ),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
) -> None:
    """Prove whether every puzzle in the file has exactly one solution.

    Exit status: 0 when every puzzle is unique (and matches the file's solution), 1 otherwise, 2 on bad input.
    """
    puzzles = load_puzzles(path, stars)
    failures = 0
    for index, puzzle in enumerate(puzzles, 1):
        result = count_solutions(puzzle, limit=2)
        unique = result.count == 1 and result.exact
        found = result.solutions[0] if result.solutions else None
        # A file's solution is checked against the rules on reading; a unique count must land on it.
        mismatch = unique and puzzle.solution is not None and found != puzzle.solution
        failures += not unique or mismatch
        if as_json:
            record: dict[str, Any] = {
                "id": puzzle_label(puzzle, index),
                "count": result.count,
                "exact": result.exact,
                "solution": None if found is None else _coords(found, puzzle.size),
                "ms": round(result.ms, 3),
                "nodes": result.nodes,
                "unique": unique,
                "matches_file": None if puzzle.solution is None or found is None else found == puzzle.solution,
            }
            typer.echo(json.dumps(record))
            continue
        if mismatch:
            verdict = "unique, but NOT the file's solution"
        elif unique:
            verdict = "unique"
        else:
            verdict = f"NOT unique: {_count_phrase(result)}"
        typer.echo(f"{puzzle_label(puzzle, index)}: {verdict} ({result.ms:.1f} ms, {result.nodes} nodes)")
    if not as_json:
        typer.echo(f"{len(puzzles) - failures} of {len(puzzles)} puzzles unique")
    raise typer.Exit(1 if failures else 0)


@app.command()
def solve(
    path: str = typer.Argument(..., help=PATH_HELP),
    limit: int = typer.Option(2, "--limit", help="Stop counting after this many solutions."),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per puzzle: id, count, exact, solutions, ms, nodes."
    ),
    letters: bool = typer.Option(False, "--letters", help="Show region letters in the cells without a star."),
    ascii_only: bool = typer.Option(False, "--ascii", help="Draw with ASCII characters only."),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
) -> None:
    """Solve every puzzle in the file: the board with its stars, the solution count and the time.

    Exit status 0 when every puzzle has a solution, 1 when some has none, 2 on bad input.
    """
    if limit < 1:
        raise InputError(f"--limit must be at least 1, not {limit}")
    puzzles = load_puzzles(path, stars)
    plain = ascii_only or plain_terminal()
    unsolved = 0
    for index, puzzle in enumerate(puzzles, 1):
        result = count_solutions(puzzle, limit=limit)
        unsolved += result.count == 0
        if as_json:
            record = {
                "id": puzzle_label(puzzle, index),
                "count": result.count,
                "exact": result.exact,
                "solutions": [_coords(found, puzzle.size) for found in result.solutions],
                "ms": round(result.ms, 3),
                "nodes": result.nodes,
            }
            typer.echo(json.dumps(record))
            continue
        shown = result.solutions[0] if result.solutions else 0
        empty = puzzle.all_cells & ~shown if result.solutions else 0
        per_unit = f"{puzzle.stars} star{'s' if puzzle.stars > 1 else ''} per unit"
        typer.echo(f"{puzzle_label(puzzle, index)}: {puzzle.game} {puzzle.size}x{puzzle.size}, {per_unit}")
        typer.echo(render_board(puzzle, shown, empty, letters=letters, ascii=plain))
        more = ", the first shown" if result.count > 1 else ""
        typer.echo(f"{_count_phrase(result)}{more}; {result.ms:.1f} ms, {result.nodes} nodes\n")
    raise typer.Exit(1 if unsolved else 0)


def _layout_picture(cells: Cells, size: int, plain: bool) -> str:
    star, blank = ("*", ".") if plain else ("★", "·")
    return "\n".join(" ".join(star if cells >> (r * size + c) & 1 else blank for c in range(size)) for r in range(size))


@layouts_app.command("count")
def layouts_count(
    size: int = typer.Option(..., "--size", help="Board size N."),
    stars: int = typer.Option(..., "--stars", help="Stars K per row and column."),
    as_json: bool = typer.Option(False, "--json", help="Print {size, stars, count}."),
) -> None:
    """The exact number of layouts of an N x N board with K stars per row and column, none touching."""
    total = count_layouts(size, stars)
    typer.echo(json.dumps({"size": size, "stars": stars, "count": total}) if as_json else str(total))


@layouts_app.command("sample")
def layouts_sample(
    size: int = typer.Option(..., "--size", help="Board size N."),
    stars: int = typer.Option(..., "--stars", help="Stars K per row and column."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random draw: the same seed gives the same layouts."),
    count: int = typer.Option(1, "-n", "--count", help="How many layouts to draw (uniformly, with replacement)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per layout: size, stars, seed, cells."),
    ascii_only: bool = typer.Option(False, "--ascii", help="Draw with ASCII characters only."),
) -> None:
    """Draw layouts exactly uniformly at random, seeded, and show each as a small star picture."""
    if count < 0:
        raise InputError(f"-n must be at least 0, not {count}")
    if count_layouts(size, stars) == 0:
        raise InputError(f"no layout exists for a {size}x{size} board with {stars} stars per row and column")
    plain = ascii_only or plain_terminal()
    for number, rows in enumerate(sample_layouts(size, stars, count, seed), 1):
        cells = layout_to_cells(rows)
        if as_json:
            typer.echo(json.dumps({"size": size, "stars": stars, "seed": seed, "cells": _coords(cells, size)}))
        else:
            typer.echo(("\n" if number > 1 else "") + _layout_picture(cells, size, plain))
