"""The narrated solve path: numbered steps with their sentences, cost and running total, and the board after
the key steps (the hard ones, see experience.py, and the last one). Text for people, JSON for machines."""

from __future__ import annotations

from typing import Any

from ..puzzle import Cells, Puzzle, cells_to_coords
from ..render import render_board
from .config import GradingConfig
from .solver import Grade


def key_steps(grade: Grade, config: GradingConfig | None = None) -> set[int]:
    """0-based positions of the steps after which the walkthrough shows the board: every step costing at least
    half the hardest one (and more than a quick step), and the last."""
    config = config or GradingConfig()
    if not grade.steps:
        return set()
    quick = config.experience.queens_quick_cost if grade.game == "queens" else config.experience.quick_cost
    top = max(s.cost for s in grade.steps)
    keys = {i for i, s in enumerate(grade.steps) if s.cost > quick and s.cost >= config.experience.hard_fraction * top}
    keys.add(len(grade.steps) - 1)
    return keys


def walkthrough_text(puzzle: Puzzle, grade: Grade, config: GradingConfig | None = None, *, ascii: bool = False) -> str:
    """The walkthrough as text (``ascii=True``: boards drawn with ASCII characters only)."""
    title = puzzle.id or "puzzle"
    outcome = "solved" if grade.solved else "stuck"
    lines = [
        (
            f"{title}: {puzzle.size}x{puzzle.size} {puzzle.game}, {puzzle.stars} per unit; "
            f"{outcome} in {len(grade.steps)} steps, difficulty {grade.difficulty} ({grade.band}), "
            f"fun {grade.experience.fun:g}, solver {grade.version}"
        ),
        "",
        render_board(puzzle, ascii=ascii),
        "",
    ]
    keys = key_steps(grade, config)
    stars, empty, total = puzzle.given_stars, puzzle.given_empty, 0
    for i, step in enumerate(grade.steps):
        total += step.cost
        stars |= step.stars
        empty |= step.empties
        lines.append(f"{i + 1}. [{step.technique} ({step.code}), cost {step.cost}, total {total}] {step.sentence}.")
        if i in keys:
            lines += ["", render_board(puzzle, stars, empty, ascii=ascii), ""]
    if grade.contradiction:
        lines.append(f"The marks break the rules: {grade.contradiction}; the board has no solution.")
    elif not grade.solved:
        lines.append(f"Stuck: no technique applies; {grade.open.bit_count()} cells are still open.")
    return "\n".join(lines).rstrip() + "\n"


def walkthrough_json(puzzle: Puzzle, grade: Grade) -> dict[str, Any]:
    """The walkthrough as a JSON-ready dict: the grade's summary and one record per step."""
    n = puzzle.size

    def coords(mask: Cells) -> list[list[int]]:
        return [list(rc) for rc in cells_to_coords(mask, n)]

    total = 0
    records = []
    for i, step in enumerate(grade.steps):
        total += step.cost
        records.append(
            {
                "n": i + 1,
                "technique": step.technique,
                "code": step.code,
                "cost": step.cost,
                "total": total,
                "stars": coords(step.stars),
                "empties": coords(step.empties),
                "units": list(step.units),
                "sentence": step.sentence,
            }
        )
    return {
        "id": puzzle.id,
        "game": puzzle.game,
        "size": n,
        "stars": puzzle.stars,
        "solved": grade.solved,
        "difficulty": grade.difficulty,
        "band": grade.band,
        "version": grade.version,
        "steps": records,
        "open": coords(grade.open),
    }
