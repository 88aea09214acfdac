"""Engine commands: verify, solve, layouts.

Every command that takes a file reads any format `starbattle_core.formats.read_puzzles` knows (JSON Lines, a JSON
object or array, puzz.link URLs one a line, text pictures), or standard input for `-`. The whole file is read and
checked before any puzzle is counted, so bad input stops with status 2 before any output.
"""

from __future__ import annotations

import itertools
import json
import time

import numpy as np
import typer

from starbattle_core.counter import Solutions
from starbattle_core.layouts import count_layouts, layout_to_cells, sample_layouts
from starbattle_core.puzzle import Cells, InputError
from starbattle_core.render import render_board
from starbattle_core.svg import PIECES, puzzle_game

from .puzzle_input import (
    PATH_HELP,
    STARS_HELP,
    TIMEOUT_HELP,
    check_timeout,
    deadline,
    load_puzzles,
    plain_terminal,
    puzzle_label,
)
from .records import coords, verify_record, write_solve_record

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()

# `layouts sample` draws this many layouts at a time from one generator: the same layouts as one call (numpy's
# bounded draws consume the generator in order), in bounded memory whatever -n is.
SAMPLE_CHUNK = 1 << 15

layouts_app = typer.Typer(help="Count or sample full star layouts (K per row and column, none touching).")
commands.add_typer(layouts_app, name="layouts")


@layouts_app.callback(invoke_without_command=True)
def _layouts(context: typer.Context) -> None:
    """Count or sample full star layouts (K per row and column, none touching)."""
    if context.invoked_subcommand is None:  # `starbattle layouts` alone: its help
        typer.echo(context.get_help())


def _count_phrase(count: int, exact: bool) -> str:
    if count == 0:
        return "no solution"
    noun = "solution" if count == 1 else "solutions"
    if exact:
        return f"{count} {noun}"
    return f"at least {count} {noun} (stopped at the limit)"


@commands.command()
def verify(
    path: str = typer.Argument(..., help=PATH_HELP),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per puzzle: id, count, exact, solution, ms, nodes."
    ),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
    timeout: float = typer.Option(0, "--timeout", help=TIMEOUT_HELP),
) -> None:
    """Prove whether every puzzle in the file has exactly one solution.

    Exit status: 0 when every puzzle is unique (and matches the file's solution), 1 otherwise, 2 on bad input or
    a puzzle past --timeout.
    """
    check_timeout(timeout)
    puzzles = load_puzzles(path, stars)
    failures = 0
    for index, puzzle in enumerate(puzzles, 1):
        label = puzzle_label(puzzle, index)
        with deadline(timeout, label):
            record = verify_record(puzzle, label)
        # A file's solution is checked against the rules on reading; a unique count must land on it.
        mismatch = record["matches_file"] is False
        failures += not record["unique"] or mismatch
        if as_json:
            typer.echo(json.dumps(record))
            continue
        if mismatch:
            verdict = "unique, but NOT the file's solution"
        elif record["unique"]:
            verdict = "unique"
        else:
            verdict = f"NOT unique: {_count_phrase(record['count'], record['exact'])}"
        typer.echo(f"{label}: {verdict} ({record['ms']:.1f} ms, {record['nodes']} nodes)")
    if not as_json:
        typer.echo(f"{len(puzzles) - failures} of {len(puzzles)} puzzles unique")
    raise typer.Exit(1 if failures else 0)


@commands.command()
def solve(
    path: str = typer.Argument(..., help=PATH_HELP),
    limit: int = typer.Option(2, "--limit", help="Stop after this many solutions (each printed as it is found)."),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per puzzle: id, solutions, count, exact, ms, nodes."
    ),
    letters: bool = typer.Option(False, "--letters", help="Show region letters in the cells without a star."),
    ascii_only: bool = typer.Option(False, "--ascii", help="Draw with ASCII characters only."),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
    timeout: float = typer.Option(0, "--timeout", help=TIMEOUT_HELP),
) -> None:
    """Solve every puzzle in the file: each solution drawn as it is found (up to --limit), the count and the time.

    The solutions stream: memory stays flat however large --limit is. Exit status 0 when every puzzle has a
    solution, 1 when some has none, 2 on bad input or a puzzle past --timeout.
    """
    if limit < 1:
        raise InputError(f"--limit must be at least 1, not {limit:,}")
    check_timeout(timeout)
    puzzles = load_puzzles(path, stars)
    plain = ascii_only or plain_terminal()
    unsolved = 0
    for index, puzzle in enumerate(puzzles, 1):
        label = puzzle_label(puzzle, index)
        if as_json:
            # One JSON object a line, written as the solutions come (records.py).
            with deadline(timeout, label):
                found = write_solve_record(puzzle, label, limit, lambda piece: typer.echo(piece, nl=False))
            typer.echo("")
            unsolved += found == 0
            continue
        solutions = Solutions(puzzle)
        found = 0
        start = time.perf_counter()
        piece = PIECES[puzzle_game(puzzle.game)][0]  # star, or queen on a Queens board
        per_unit = f"{puzzle.stars} {piece}{'s' if puzzle.stars > 1 else ''} per unit"
        typer.echo(f"{label}: {puzzle.game} {puzzle.size}x{puzzle.size}, {per_unit}")
        with deadline(timeout, label):
            for solution in itertools.islice(solutions, limit):
                typer.echo(render_board(puzzle, solution, puzzle.all_cells & ~solution, letters=letters, ascii=plain))
                found += 1
        ms = (time.perf_counter() - start) * 1000.0
        unsolved += found == 0
        if not found:
            typer.echo(render_board(puzzle, 0, 0, letters=letters, ascii=plain))
        typer.echo(f"{_count_phrase(found, found < limit)}; {ms:.1f} ms, {solutions.nodes} nodes\n")
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
    if seed < 0:
        raise InputError(f"--seed must be at least 0, not {seed}")
    if count_layouts(size, stars) == 0:
        raise InputError(f"no layout exists for a {size}x{size} board with {stars} stars per row and column")
    plain = ascii_only or plain_terminal()
    rng = np.random.default_rng(seed)
    for start in range(0, count, SAMPLE_CHUNK):
        for number, rows in enumerate(sample_layouts(size, stars, min(SAMPLE_CHUNK, count - start), rng), start + 1):
            cells = layout_to_cells(rows)
            if as_json:
                typer.echo(json.dumps({"size": size, "stars": stars, "seed": seed, "cells": coords(cells, size)}))
            else:
                typer.echo(("\n" if number > 1 else "") + _layout_picture(cells, size, plain))
