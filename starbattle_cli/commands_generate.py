"""`starbattle generate`: make one board for a game, size, stars and band, and show it with its scores."""

from __future__ import annotations

import json
from typing import Any

import typer

from starbattle_core.generator import Generation, GeneratorConfig, Slot, board_to_json, generate
from starbattle_core.puzzle import InputError
from starbattle_core.render import render_board

from .puzzle_input import plain_terminal

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()


def _counters_line(generation: Generation) -> str:
    counters = generation.counters
    rejected = ", ".join(f"{reason} {n}" for reason, n in counters.rejections.items() if n) or "none"
    seconds = ", ".join(f"{stage} {value:.2f}" for stage, value in counters.seconds.items() if value >= 0.005)
    return (
        f"candidates {counters.candidates}; rejected: {rejected}; repair rounds {counters.repair_rounds}; "
        f"seconds: {seconds or 'none'}"
    )


def _limit(config: GeneratorConfig) -> str:
    return f" or {config.max_candidates} candidates" if config.max_candidates is not None else ""


@commands.command("generate")
def generate_command(
    game: str = typer.Option(None, "--game", help="starbattle or queens (default: starbattle)."),
    size: int = typer.Option(None, "--size", help="Board size N (N x N; default: 10)."),
    stars: int = typer.Option(None, "--stars", help="Stars per unit (default: 2 for Star Battle, 1 for Queens)."),
    band: str = typer.Option(
        None, "--band", help="easy, medium, hard or expert (Queens: up to hard; default: medium)."
    ),
    slot_name: str = typer.Option(
        None,
        "--slot",
        help="A slot of the config by name (pipeline.slots or pipeline.extra_slots): its board and budgets.",
    ),
    seed: int = typer.Option(0, "--seed", help="The same seed, slot and config give the same board."),
    budget: float = typer.Option(
        None, "--budget", help="Seconds to search before giving up (default: 60, or the slot's).", min=0.0
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: the puzzle, its scores, counters."),
    ascii_only: bool = typer.Option(False, "--ascii", help="Draw with ASCII characters only."),
    show_solution: bool = typer.Option(False, "--solution", help="Draw the board with its solution's stars."),
) -> None:
    """Generate one board: regions grown around a random star layout, repaired until unique, graded into the
    band, over the fun and looks gates. Exit status 1 when the budget runs out first."""
    from flows.settings import load_settings  # the config loader lives with the pipeline; no Prefect import

    settings = load_settings()
    config = settings.generator
    if slot_name is not None:
        given = [
            flag
            for flag, value in (("--game", game), ("--size", size), ("--stars", stars), ("--band", band))
            if value is not None
        ]
        if given:
            raise InputError(f"--slot {slot_name!r} names the board: leave out {', '.join(given)}")
        pipeline = settings.pipeline
        named = pipeline.named_slot(slot_name)
        game, size, stars, band = named.game, named.size, named.stars, named.band
        config = config.model_copy(update={"max_candidates": pipeline.slot_candidates(named)})
        if budget is None:
            budget = pipeline.slot_budget(named)
    # `is None`, not `or`: a --size 0 is bad input for Slot to name, not a request for the default.
    game = "starbattle" if game is None else game
    size = 10 if size is None else size
    band = "medium" if band is None else band
    if stars is None:
        stars = 1 if game == "queens" else 2
    if budget is None:
        budget = 60.0
    slot = Slot(game, size, stars, band)
    generation = generate(slot, seed, budget, config, settings.grading)
    board = generation.board
    if as_json:
        if board is None:
            obj: dict[str, Any] = {
                "game": game,
                "size": size,
                "stars": stars,
                "band": band,
                "seed": seed,
                "board": None,
            }
            obj["counters"] = generation.counters.to_json()
        else:
            obj = board_to_json(board, generation.counters)
        typer.echo(json.dumps(obj))
    elif board is None:
        typer.echo(f"no {band} {game} {size}x{size} board within {budget:g} s (seed {seed}){_limit(config)}")
        typer.echo(_counters_line(generation))
    else:
        plain = ascii_only or plain_terminal()
        shown = (board.puzzle.solution or 0) if show_solution else 0
        typer.echo(render_board(board.puzzle, shown, ascii=plain))
        hardest = board.grade.hardest
        typer.echo(
            f"{game} {size}x{size} {stars}-star, seed {seed}: {board.band}, difficulty {board.difficulty}, "
            f"fun {board.fun:g}, looks {board.looks:g}, {len(board.grade.steps)} steps"
            + (f", hardest {hardest.technique} (cost {hardest.cost})" if hardest else "")
        )
        typer.echo(
            f"repair rounds {board.repair_rounds}, tuning nudges kept {board.tune_rounds}, solver {board.version}"
        )
        typer.echo(_counters_line(generation))
    if board is None:
        raise typer.Exit(1)
