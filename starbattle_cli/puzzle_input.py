"""What every command that reads puzzles or draws boards shares: the path argument, loading, naming, the terminal."""

from __future__ import annotations

import dataclasses
import itertools
import json
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from starbattle_core.formats import MAX_INPUT_BYTES, parse_puzzles, puzzle_from_json, read_puzzles, read_source
from starbattle_core.grader.hint import marks_from_json
from starbattle_core.puzzle import Cells, InputError, Puzzle, PuzzleError

PATH_HELP = "A puzzle file (JSON Lines, JSON, puzz.link URLs or text pictures), or - for standard input."
STARS_HELP = "Stars per unit for text pictures that do not say (a 'stars: K' line)."
# The commands hold every puzzle of a file in memory (about 1 KB each) so that bad input stops them before any
# output; the shared data's largest file has 1,020.
MAX_PUZZLES = 100_000
TIMEOUT_HELP = "Seconds allowed per puzzle; past them the command stops with one line and status 2 (0: no limit)."


def printable(text: str) -> str:
    """Text safe to print on a terminal: control characters (an escape sequence in a puzzle's id could clear the
    screen or set the title) are shown as escapes, and all whitespace becomes single spaces."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in " ".join(text.split()))


class OutOfTime(BaseException):
    """A puzzle that takes longer than the command's --timeout; the CLI prints the line and exits with status 2.

    Not an Exception, for the reason KeyboardInterrupt is not one: the timer raises it at whatever line the work has
    reached, and libraries wrap lookups they can do without in `except Exception` (click's echo does, once per
    printed solution), which would drop it and let the work run on."""


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Stop the work inside the block after `seconds` (0: no limit) with OutOfTime naming `what`.

    A SIGALRM timer: the solver and the grader are plain Python loops, which the signal interrupts between two
    steps, so nothing in the engine has to poll a clock."""
    if seconds <= 0:
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise OutOfTime(f"{what}: not finished within {seconds:g} s (--timeout)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_timeout(seconds: float) -> float:
    if seconds < 0:
        raise InputError(f"--timeout must be at least 0 (0: no limit), not {seconds:g}")
    return seconds


def load_puzzles(path: str, stars: int | None) -> list[Puzzle]:
    """Every puzzle of the file, all read and checked before any is worked on; at most MAX_PUZZLES of them."""
    puzzles = list(itertools.islice(read_puzzles(path, stars=stars), MAX_PUZZLES + 1))
    if not puzzles:
        raise InputError(f"{path}: no puzzle in it")
    if len(puzzles) > MAX_PUZZLES:
        raise InputError(f"{path}: more than {MAX_PUZZLES:,} puzzles, the most one command reads (split the file)")
    return puzzles


def puzzle_label(puzzle: Puzzle, index: int) -> str:
    """How output names a puzzle: its id on one line, control characters escaped (an escape sequence in an id
    would otherwise clear the screen or set the terminal's title, even through a pipe), or #N."""
    return printable(puzzle.id) if puzzle.id is not None else f"#{index}"


def printable_puzzle(puzzle: Puzzle) -> Puzzle:
    """The puzzle with its id made safe to print, for code that prints `puzzle.id` itself (the walkthrough)."""
    return puzzle if puzzle.id is None else dataclasses.replace(puzzle, id=printable(puzzle.id))


def plain_terminal() -> bool:
    """Whether standard output cannot show the box-drawing characters and the star."""
    try:
        "┃★·×".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def read_text(path: str) -> tuple[str, str]:
    """The text of a file (or of standard input for `-`) and the name errors give it."""
    content, name = read_source(path, MAX_INPUT_BYTES)
    if len(content) > MAX_INPUT_BYTES:
        raise InputError(f"{name}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB, the limit for a puzzle file")
    try:
        return content.decode("utf-8-sig"), name
    except UnicodeDecodeError as error:
        raise PuzzleError(f"{name}: not UTF-8 text (byte {error.start + 1})") from None


def player_boards(content: str, name: str, stars: int | None = None) -> list[tuple[Puzzle, Cells, Cells]]:
    """Every board of a text with the player's star and empty masks (what `hint` reads): JSON (one object, an array,
    or JSON Lines) whose objects may carry "marks"; any other format `parse_puzzles` reads (puzz.link URLs, text
    pictures), with no marks beyond the board's givens. Bad input is one InputError naming where."""
    if not content.strip():
        raise PuzzleError(f"{name}: no board in it (the input is empty)")
    if not content.lstrip().startswith(("{", "[")):
        boards = [(puzzle, 0, 0) for puzzle in itertools.islice(parse_puzzles(content, name, stars=stars), MAX_PUZZLES)]
        if not boards:
            raise PuzzleError(f"{name}: no board in it")
        return boards
    objects: list[tuple[str, Any]]
    try:
        whole = json.loads(content)
    except (ValueError, RecursionError):
        objects = []
        for number, line in enumerate(content.splitlines(), 1):
            if line.strip():
                try:
                    objects.append((f"{name} line {number}", json.loads(line)))
                except (ValueError, RecursionError) as error:
                    raise PuzzleError(f"{name} line {number}: not JSON ({error})") from None
    else:
        items = whole if isinstance(whole, list) else [whole]
        objects = [(f"{name} board {i + 1}" if isinstance(whole, list) else name, item) for i, item in enumerate(items)]
    if not objects:
        raise PuzzleError(f"{name}: no board in it")
    return [player_board(obj, where) for where, obj in objects[: MAX_PUZZLES + 1]]


def player_board(obj: Any, where: str, marks: Any = None) -> tuple[Puzzle, Cells, Cells]:
    """One board from its JSON object with the player's marks: the object's own "marks", or `marks` given beside it
    (not both)."""
    puzzle = puzzle_from_json(obj, where=where)
    if "marks" in obj and marks is not None:
        raise PuzzleError(f"{where}: marks given twice (in the board and beside it): give them once")
    try:
        stars, empties = marks_from_json(obj.get("marks", {}) if marks is None else marks, puzzle.size)
    except PuzzleError as error:
        raise PuzzleError(f"{where}: {error}") from None
    return puzzle, stars, empties
