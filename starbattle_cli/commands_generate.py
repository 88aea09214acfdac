"""`starbattle generate`: make one board for a game, size, stars and band, and show it with its scores."""

from __future__ import annotations

import json

import typer

from starbattle_core.generator import Generation, Slot, board_to_json, generate
from starbattle_core.render import render_board

from .app import app
from .puzzle_input import plain_terminal


def _counters_line(generation: Generation) -> str:
    counters = generation.counters
    rejected = ", ".join(f"{reason} {n}" for reason, n in counters.rejections.items() if n) or "none"
    seconds = ", ".join(f"{stage} {value:.2f}" for stage, value in counters.seconds.items() if value >= 0.005)
    return (
        f"candidates {counters.candidates}; rejected: {rejected}; repair rounds {counters.repair_rounds}; "
        f"seconds: {seconds or 'none'}"
    )


@app.command("generate")
def generate_command(
    game: str = typer.Option("starbattle", "--game", help="starbattle or queens."),
    size: int = typer.Option(10, "--size", help="Board size N (N x N)."),
    stars: int = typer.Option(None, "--stars", help="Stars per unit (default: 2 for Star Battle, 1 for Queens)."),
    band: str = typer.Option("medium", "--band", help="easy, medium, hard or expert (Queens: up to hard)."),
    seed: int = typer.Option(0, "--seed", help="The same seed, slot and config give the same board."),
    budget: float = typer.Option(60.0, "--budget", help="Seconds to search before giving up.", min=0.0),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: the puzzle, its scores, counters."),
    ascii_only: bool = typer.Option(False, "--ascii", help="Draw with ASCII characters only."),
    show_solution: bool = typer.Option(False, "--solution", help="Draw the board with its solution's stars."),
) -> None:
    """Generate one board: regions grown around a random star layout, repaired until unique, graded into the
    band, over the fun and looks gates. Exit status 1 when the budget runs out first."""
    from flows.settings import load_settings  # the config loader lives with the pipeline; no Prefect import

    if stars is None:
        stars = 1 if game == "queens" else 2
    slot = Slot(game, size, stars, band)
    settings = load_settings()
    generation = generate(slot, seed, budget, settings.generator, settings.grading)
    board = generation.board
    if as_json:
        if board is None:
            obj = {"game": game, "size": size, "stars": stars, "band": band, "seed": seed, "board": None}
            obj["counters"] = generation.counters.to_json()
        else:
            obj = board_to_json(board, generation.counters)
        typer.echo(json.dumps(obj))
    elif board is None:
        typer.echo(f"no {band} {game} {size}x{size} board within {budget:g} s (seed {seed})")
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
