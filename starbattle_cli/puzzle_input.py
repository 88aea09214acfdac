"""What every command that reads puzzles or draws boards shares: the path argument, loading, naming, the terminal."""

from __future__ import annotations

import sys

from starbattle_core.formats import read_puzzles
from starbattle_core.puzzle import InputError, Puzzle

PATH_HELP = "A puzzle file (JSON Lines, JSON, puzz.link URLs or text pictures), or - for standard input."
STARS_HELP = "Stars per unit for text pictures that do not say (a 'stars: K' line)."


def load_puzzles(path: str, stars: int | None) -> list[Puzzle]:
    puzzles = list(read_puzzles(path, stars=stars))
    if not puzzles:
        raise InputError(f"{path}: no puzzle in it")
    return puzzles


def puzzle_label(puzzle: Puzzle, index: int) -> str:
    # An id is printed on one line of its own, whatever whitespace it holds.
    return " ".join(puzzle.id.split()) if puzzle.id is not None else f"#{index}"


def plain_terminal() -> bool:
    """Whether standard output cannot show the box-drawing characters and the star."""
    try:
        "┃★·×".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return True
    return False
