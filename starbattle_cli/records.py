"""The JSON object each engine command prints with --json for one puzzle, built here once: the CLI's commands and the
web API (`starbattle web`, starbattle_web/) both call these, so they answer alike field for field.

No Typer, no printing: plain functions of a puzzle (and its label, as `puzzle_label` gives it) to a dict.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from starbattle_core.counter import Solutions, count_solutions
from starbattle_core.grader import Grade, GradingConfig, walkthrough_json
from starbattle_core.grader import grade as grade_puzzle
from starbattle_core.grader.hint import Hint
from starbattle_core.grader.hint import hint as next_hint
from starbattle_core.puzzle import Cells, Puzzle, cells_to_coords


def coords(mask: Cells, size: int) -> list[list[int]]:
    return [list(rc) for rc in cells_to_coords(mask, size)]


def verify_record(puzzle: Puzzle, label: str) -> dict[str, Any]:
    """`verify --json`: whether the puzzle has exactly one solution (counted to two), and whether it is the file's."""
    result = count_solutions(puzzle, limit=2)
    unique = result.count == 1 and result.exact
    found = result.solutions[0] if result.solutions else None
    return {
        "id": label,
        "count": result.count,
        "exact": result.exact,
        "solution": None if found is None else coords(found, puzzle.size),
        "ms": round(result.ms, 3),
        "nodes": result.nodes,
        "unique": unique,
        "matches_file": None if puzzle.solution is None or found is None else found == puzzle.solution,
    }


def write_solve_record(puzzle: Puzzle, label: str, limit: int, write: Callable[[str], None]) -> int:
    """`solve --json`'s line for one puzzle, handed to `write` in pieces as the solutions are found (the list is never
    held, so memory stays flat however large `limit` is); returns how many solutions were found."""
    solutions = Solutions(puzzle)
    start = time.perf_counter()
    write(f'{{"id": {json.dumps(label)}, "solutions": [')
    found = 0
    for solution in itertools.islice(solutions, limit):
        write(("" if not found else ", ") + json.dumps(coords(solution, puzzle.size)))
        found += 1
    ms = (time.perf_counter() - start) * 1000.0
    # exact as a count says it: stopped at the limit, there may be more
    tail = {"count": found, "exact": found < limit, "ms": round(ms, 3), "nodes": solutions.nodes}
    write("], " + json.dumps(tail)[1:])
    return found


def solve_record(puzzle: Puzzle, label: str, limit: int) -> dict[str, Any]:
    """`solve --json`'s object for one puzzle, whole."""
    pieces: list[str] = []
    write_solve_record(puzzle, label, limit, pieces.append)
    record: dict[str, Any] = json.loads("".join(pieces))
    return record


def graded(puzzle: Puzzle, config: GradingConfig, max_cost: int | None = None) -> Grade:
    """The grade `grade` reports. No chains: its summary reads none of them, and building them is about a third of a
    14x14 grade (the steps, difficulty, band and scores are the same; `explain` and `hint` keep them)."""
    return grade_puzzle(puzzle, config, max_cost=max_cost, chains=False)


def grade_summary(puzzle: Puzzle, label: str, result: Grade) -> dict[str, Any]:
    """`grade --json`'s object for one puzzle and its grade."""
    hardest = result.hardest
    fun = result.experience
    return {
        "id": label,
        "game": puzzle.game,
        "size": puzzle.size,
        "stars": puzzle.stars,
        "solved": result.solved,
        "difficulty": result.difficulty,
        # A board the grader could not solve has no band: its difficulty is only where the grader stopped.
        "band": result.band if result.solved else None,
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
            "features": dict(fun.features),
            "parts": dict(fun.parts),
        },
        "open": result.open.bit_count(),
        "contradiction": result.contradiction,
        # the solver's version under both names: `version` for scripts that read it, `solver_version` as in
        # `generate --json` and `show --json`, where `version` is the generator's
        "version": result.version,
        "solver_version": result.version,
    }


def grade_record(puzzle: Puzzle, label: str, config: GradingConfig, max_cost: int | None = None) -> dict[str, Any]:
    return grade_summary(puzzle, label, graded(puzzle, config, max_cost))


def explain_record(puzzle: Puzzle, label: str, config: GradingConfig, max_cost: int | None = None) -> dict[str, Any]:
    """`explain --json`'s object for one puzzle: the walkthrough's summary and step records, chains included."""
    record = walkthrough_json(puzzle, grade_puzzle(puzzle, config, max_cost=max_cost))
    record["id"] = label
    return record


def hint_summary(puzzle: Puzzle, label: str, answer: Hint) -> dict[str, Any]:
    """`hint --json`'s object for one board and the hint found for it."""
    n = puzzle.size
    record: dict[str, Any] = {"id": label, "status": answer.status, "message": answer.message}
    step = answer.step
    if step is not None:
        record.update(
            technique=step.technique,
            code=step.code,
            cost=step.cost,
            stars=coords(step.stars, n),
            empties=coords(step.empties, n),
            units=list(step.units),
            sentence=step.sentence,
        )
    if answer.status == "wrong":
        record["wrong"] = {"stars": coords(answer.wrong_stars, n), "empties": coords(answer.wrong_empties, n)}
    return record


def hint_record(puzzle: Puzzle, label: str, stars: Cells, empties: Cells) -> dict[str, Any]:
    return hint_summary(puzzle, label, next_hint(puzzle, stars, empties))
