"""Grading commands: grade (difficulty, band, fun) and explain (the narrated solve path).

Both read any format `starbattle_core.formats.read_puzzles` knows, or standard input for `-`; the whole input is
read and checked first, so bad input stops with status 2 before any output. The band cutoffs and experience
weights come from the `grading:` section of the config file.
"""

from __future__ import annotations

import json

import typer

from starbattle_core.grader import Grade, GradingConfig, walkthrough_text
from starbattle_core.grader import grade as grade_puzzle

from .puzzle_input import (
    PATH_HELP,
    STARS_HELP,
    TIMEOUT_HELP,
    check_timeout,
    deadline,
    load_puzzles,
    plain_terminal,
    printable_puzzle,
    puzzle_label,
)
from .records import explain_record, grade_summary, graded

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()

# Seconds `grade` gives one puzzle unless told otherwise: the hardest real boards grade in a few seconds, while a
# board with many solutions can keep the grader busy for minutes (and a gigabyte) before it gets stuck anyway.
GRADE_TIMEOUT = 60.0


def _grading() -> GradingConfig:
    from flows.settings import load_settings  # the config loader lives with the pipeline; no Prefect import

    return load_settings().grading


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def fun_in_words(result: Grade) -> list[str]:
    """The fun score and what moves it, in words: a heading, the path measures a reader knows (climax, a-ha
    moments, follow-ups, grind), then the fitted model's parts, largest first (positive: reads as designed)."""
    fun = result.experience
    parts = sorted(fun.parts, key=lambda part: -abs(part[1]))
    return [
        f"fun {fun.fun:g} of 100 (50: the gate, set from designed boards):",
        (
            f"  the hardest step comes {fun.climax:.0%} of the way in; {_plural(fun.aha, 'a-ha moment')}; "
            f"{fun.follow_up:.0%} of the steps are quick follow-ups; the longest grind is "
            f"{_plural(fun.grind, 'hard step')} in a row"
        ),
        "  " + ", ".join(f"{name} {value:+.2f}" for name, value in parts),
    ]


@commands.command()
def grade(
    path: str = typer.Argument(..., help=PATH_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per puzzle."),
    max_cost: int | None = typer.Option(None, "--max-cost", min=1, help="Use only techniques costing at most this."),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
    timeout: float = typer.Option(GRADE_TIMEOUT, "--timeout", help=TIMEOUT_HELP),
) -> None:
    """Grade every puzzle: difficulty, band, solved or stuck, steps, the hardest step, and the fun score.

    Exit status: 0 when every puzzle was solved, 1 when some got stuck, 2 on bad input or a puzzle past --timeout.
    """
    check_timeout(timeout)
    puzzles = load_puzzles(path, stars)
    config = _grading()
    stuck = 0
    for index, puzzle in enumerate(puzzles, 1):
        label = puzzle_label(puzzle, index)
        with deadline(timeout, label):
            result = graded(puzzle, config, max_cost)
        stuck += not result.solved
        summary = grade_summary(puzzle, label, result)
        if as_json:
            print(json.dumps(summary))
            continue
        outcome = "solved" if result.solved else f"stuck with {summary['open']} open cells"
        if result.contradiction:
            outcome = f"no solution ({result.contradiction})"
        hardest = summary["hardest"]
        hardest_text = (
            "none"
            if hardest is None
            else f"{hardest['technique']} ({hardest['code']}, cost {hardest['cost']}) at step {hardest['step']}"
        )
        band = f"band {result.band}" if result.solved else "no band (not solved)"
        print(f"{summary['id']}: {puzzle.size}x{puzzle.size} {puzzle.game}, {puzzle.stars} per unit")
        print(f"  {outcome} in {len(result.steps)} steps; difficulty {result.difficulty}, {band}")
        print(f"  hardest: {hardest_text}, climax {result.experience.climax:.0%} of the way")
        for line in fun_in_words(result):
            print(f"  {line}")
    raise typer.Exit(1 if stuck else 0)


@commands.command()
def explain(
    path: str = typer.Argument(..., help=PATH_HELP),
    as_json: bool = typer.Option(False, "--json", help="The step records as JSON, one object per puzzle."),
    max_cost: int | None = typer.Option(None, "--max-cost", min=1, help="Use only techniques costing at most this."),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
) -> None:
    """Narrate the solve path of every puzzle: numbered steps, the board after the key ones, cost and total."""
    puzzles = load_puzzles(path, stars)
    config = _grading()
    ascii = plain_terminal()
    for index, puzzle in enumerate(puzzles, 1):
        if as_json:
            print(json.dumps(explain_record(puzzle, puzzle_label(puzzle, index), config, max_cost)))
            continue
        result = grade_puzzle(puzzle, config, max_cost=max_cost)
        if index > 1:
            print()
        print(walkthrough_text(printable_puzzle(puzzle), result, config, ascii=ascii), end="")
