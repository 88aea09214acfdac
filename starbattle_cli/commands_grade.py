"""Grading commands: grade (difficulty, band, fun) and explain (the narrated solve path).

Both read any format `starbattle_core.formats.read_puzzles` knows, or standard input for `-`; the whole input is
read and checked first, so bad input stops with status 2 before any output. The band cutoffs and experience
weights come from the `grading:` section of the config file.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from starbattle_core.grader import Grade, GradingConfig, walkthrough_json, walkthrough_text
from starbattle_core.grader import grade as grade_puzzle
from starbattle_core.puzzle import Puzzle

from .app import app
from .puzzle_input import PATH_HELP, STARS_HELP, load_puzzles, plain_terminal, puzzle_label


def _grading() -> GradingConfig:
    from flows.settings import load_settings  # the config loader lives with the pipeline; no Prefect import

    return load_settings().grading


def _summary(puzzle: Puzzle, index: int, result: Grade) -> dict[str, Any]:
    hardest = result.hardest
    fun = result.experience
    return {
        "id": puzzle_label(puzzle, index),
        "game": puzzle.game,
        "size": puzzle.size,
        "stars": puzzle.stars,
        "solved": result.solved,
        "difficulty": result.difficulty,
        "band": result.band,
        "steps": len(result.steps),
        "hardest": None
        if hardest is None
        else {
            "technique": hardest.technique,
            "code": hardest.code,
            "cost": hardest.cost,
            "step": result.hardest_position,
        },
        "climax": fun.climax,
        "fun": fun.fun,
        "experience": {
            "climax": fun.climax,
            "aha": fun.aha,
            "follow_up": fun.follow_up,
            "grind": fun.grind,
            "points": {
                "climax": fun.climax_points,
                "aha": fun.aha_points,
                "follow_up": fun.follow_up_points,
                "grind": fun.grind_points,
            },
        },
        "open": result.open.bit_count(),
        "contradiction": result.contradiction,
        "version": result.version,
    }


@app.command()
def grade(
    path: str = typer.Argument(..., help=PATH_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per puzzle."),
    max_cost: int | None = typer.Option(None, "--max-cost", min=1, help="Use only techniques costing at most this."),
    stars: int | None = typer.Option(None, "--stars", help=STARS_HELP),
) -> None:
    """Grade every puzzle: difficulty, band, solved or stuck, steps, the hardest step, and the fun score.

    Exit status: 0 when every puzzle was solved, 1 when some got stuck, 2 on bad input.
    """
    puzzles = load_puzzles(path, stars)
    config = _grading()
    stuck = 0
    for index, puzzle in enumerate(puzzles, 1):
        result = grade_puzzle(puzzle, config, max_cost=max_cost)
        stuck += not result.solved
        summary = _summary(puzzle, index, result)
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
        fun = result.experience
        print(f"{summary['id']}: {puzzle.size}x{puzzle.size} {puzzle.game}, {puzzle.stars} per unit")
        print(f"  {outcome} in {len(result.steps)} steps; difficulty {result.difficulty}, band {result.band}")
        print(f"  hardest: {hardest_text}, climax {fun.climax:.0%} of the way")
        print(
            f"  fun {fun.fun:g}/100: climax {fun.climax_points:g}, a-ha x{fun.aha} {fun.aha_points:g}, "
            f"follow-ups {fun.follow_up:.0%} {fun.follow_up_points:g}, grind {fun.grind} {fun.grind_points:g}"
        )
    raise typer.Exit(1 if stuck else 0)


@app.command()
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
        result = grade_puzzle(puzzle, config, max_cost=max_cost)
        if as_json:
            record = walkthrough_json(puzzle, result)
            record["id"] = puzzle_label(puzzle, index)
            print(json.dumps(record))
        else:
            if index > 1:
                print()
            print(walkthrough_text(puzzle, result, config, ascii=ascii), end="")
