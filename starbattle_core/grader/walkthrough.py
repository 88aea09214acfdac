"""The narrated solve path: numbered steps with their sentences, cost and running total, the chain of every
hypothetical step (the assumption, each forced consequence with its technique, the ending), and the board after
the key steps (the hard ones, see experience.py, and the last one) with row and column numbers. Text for people,
JSON for machines. Cells and units are named on the board as the player holds it, regions by the player's
letters."""

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


def labelled_board(puzzle: Puzzle, stars: Cells = 0, empty: Cells = 0, *, ascii: bool = False) -> str:
    """The board drawn by `render_board`, with column numbers above it and row numbers on its left, so that a
    sentence's R3C5 can be found at a glance."""
    drawing = render_board(puzzle, stars, empty, ascii=ascii).split("\n")
    width = len(str(puzzle.size))
    # Each cell is four characters wide (a border then three), so column c's middle is at 4c + 2.
    header = "".join(f"{c + 1:^4}" for c in range(puzzle.size)).rstrip()
    lines = [" " * (width + 1) + " " + header]
    for i, line in enumerate(drawing):
        label = str(i // 2 + 1) if i % 2 else ""
        lines.append(f"{label:>{width}} {line}")
    return "\n".join(lines)


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
        labelled_board(puzzle, ascii=ascii),
        "",
    ]
    keys = key_steps(grade, config)
    stars, empty, total = puzzle.given_stars, puzzle.given_empty, 0
    for i, step in enumerate(grade.steps):
        total += step.cost
        stars |= step.stars
        empty |= step.empties
        lines.append(f"{i + 1}. [{step.technique} ({step.code}), cost {step.cost}, total {total}] {step.sentence}.")
        for link in step.chain:
            indent = "     " if link.code in ("ASSUME", "CASE") else "       "
            code = "" if link.code in ("ASSUME", "CASE", "CONTRADICTION", "END") else f"[{link.code}] "
            lines.append(f"{indent}{code}{link.sentence}")
        if i in keys:
            lines += ["", labelled_board(puzzle, stars, empty, ascii=ascii), ""]
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
                **(
                    {
                        "chain": [
                            {
                                "code": link.code,
                                "stars": coords(link.stars),
                                "empties": coords(link.empties),
                                "sentence": link.sentence,
                            }
                            for link in step.chain
                        ]
                    }
                    if step.chain
                    else {}
                ),
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
        "solver_version": grade.version,  # as generate/show --json name it (their `version` is the generator's)
        "steps": records,
        "open": coords(grade.open),
    }
