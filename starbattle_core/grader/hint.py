"""A hint for a player's board: the next logical step from the marks they have made, or why there is none.

The player's marks are checked against the board's unique solution first (counted, never taken on trust from the
input): a star where the solution has none, or a dot on a solution star, is named, because no honest deduction can
start from a wrong mark. From right marks the step is the one the grader itself would take next (the cheapest
technique that decides an open cell, found on the board's canonical form as `grade` does, then read back onto the
player's board), so a hint and the stored solve path speak the same language.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..counter import count_solutions
from ..puzzle import Cells, Puzzle, PuzzleError, coords_to_cells
from .canonical import canonical_form
from .chains import broken_rule
from .geometry import Geometry, State
from .solver import next_step, on_player_board
from .step import Step
from .table import techniques_for


@dataclass(frozen=True)
class Hint:
    """The answer to "what next?" for one board and its marks.

    `status` is one of: "step" (`step` holds the next deduction), "solved" (every star is placed), "wrong"
    (`wrong_stars` / `wrong_empties` hold the marks that contradict the solution), "no_solution", "not_unique",
    "stuck" (the marks are right but no technique applies: the grader could not go on from here either). `message`
    says it in a sentence."""

    status: str
    message: str
    step: Step | None = None
    wrong_stars: Cells = 0
    wrong_empties: Cells = 0


def hint(puzzle: Puzzle, stars: Cells = 0, empties: Cells = 0) -> Hint:
    """The next step for `puzzle` with the player's `stars` and `empties` (the puzzle's givens count as marks)."""
    n = puzzle.size
    geometry = Geometry(puzzle)
    words = geometry.words
    both = stars & empties
    if both:
        return Hint(
            "wrong", f"{geometry.names(both)} marked both {words.star} and dot", wrong_stars=both, wrong_empties=both
        )
    found = count_solutions(puzzle, 2)
    if found.count == 0:
        return Hint("no_solution", "the board has no solution, so no step can be deduced")
    if found.count > 1:
        return Hint("not_unique", "the board has more than one solution, so a step cannot be deduced from the rules")
    solution = found.solutions[0]
    wrong_stars = stars & ~solution
    wrong_empties = empties & solution
    if wrong_stars or wrong_empties:
        parts = []
        if wrong_stars:
            parts.append(f"no {words.star} belongs on {geometry.names(wrong_stars)}")
        if wrong_empties:
            parts.append(f"{geometry.names(wrong_empties)} holds a {words.star}, not a dot")
        return Hint(
            "wrong", "a mark is wrong: " + "; ".join(parts), wrong_stars=wrong_stars, wrong_empties=wrong_empties
        )
    if (puzzle.given_stars | stars) & solution == solution:
        return Hint("solved", f"solved: all {puzzle.stars * n} {words.stars} are placed")
    canonical, view = canonical_form(puzzle)
    board = Geometry(canonical, view)
    state = State(view.to_canonical(puzzle.given_stars | stars), view.to_canonical(puzzle.given_empty | empties))
    problem = broken_rule(board, state)
    if problem is not None:  # right marks cannot break a rule; kept as a guard against a counter/grader mismatch
        raise RuntimeError(f"marks agreeing with the solution break a rule: {problem}")
    step = next_step(board, state, list(techniques_for(puzzle.game)), chains=True)
    if step is None:
        open_cells = board.open_cells(state).bit_count()
        return Hint("stuck", f"no technique applies from these marks ({open_cells} cells open)")
    return Hint("step", step.sentence, step=on_player_board(step, view))


def marks_from_json(value: object, size: int, where: str = "marks") -> tuple[Cells, Cells]:
    """The player's marks from `{"stars": [[r, c], ...], "empties": [[r, c], ...]}` (either list may be missing)."""
    if not isinstance(value, dict):
        raise PuzzleError(f"'{where}' must be an object with 'stars' and 'empties' lists of [row, col] cells")
    unknown = set(value) - {"stars", "empties"}
    if unknown:
        raise PuzzleError(f"'{where}' has unknown key {min(unknown)!r}: expected 'stars' and 'empties'")
    masks = []
    for key in ("stars", "empties"):
        cells = value.get(key, [])
        if not isinstance(cells, list) or not all(
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
            for pair in cells
        ):
            raise PuzzleError(f"'{where}.{key}' must be a list of [row, col] pairs of whole numbers")
        masks.append(coords_to_cells(cells, size, f"'{where}.{key}' cell"))
    return masks[0], masks[1]
