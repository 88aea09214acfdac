"""What the web server's worker processes run: one request's body in, the CLI's JSON object for it out.

Everything here is engine work (reading the board, counting, grading, drawing) and runs in a worker, never on the
server's event loop. The objects are the CLI's own (starbattle_cli/records.py), so `POST /api/verify` answers
what `starbattle verify --json` prints. Bad input is an InputError whose one line is what the CLI would print after
"error: ", with the board called "puzzle" where the CLI names its file.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import signal
from typing import Any, TypeVar

from starbattle_cli.picture_input import read_board_picture
from starbattle_cli.puzzle_input import player_board, player_boards, printable, puzzle_label
from starbattle_cli.records import explain_record, grade_record, hint_record, solve_record, verify_record
from starbattle_core.formats import parse_puzzles, puzzle_from_json, puzzle_to_json, puzzle_to_text
from starbattle_core.grader import GradingConfig
from starbattle_core.grader.hint import marks_from_json
from starbattle_core.puzzle import Cells, InputError, Puzzle, cells_to_coords
from starbattle_core.svg import PIECES, board_svg, puzzle_game

# The name a board's errors give it, where the CLI gives the file's.
NAME = "puzzle"
# The CLI's default for `solve --limit`: enough to tell one solution from several.
SOLVE_LIMIT = 2
# What each endpoint's body may hold beside the board.
KEYS = {
    "verify": ("puzzle", "stars"),
    "solve": ("puzzle", "stars"),
    "grade": ("puzzle", "stars"),
    "explain": ("puzzle", "stars"),
    "hint": ("puzzle", "stars", "marks"),
    "board": ("puzzle", "stars"),
}
Board = TypeVar("Board")
PUZZLE_HELP = "a string in any format the CLI reads (JSON, a puzz.link URL, a text picture) or a JSON object"

# The settings this worker was started with (start_worker).
_settings = {"grading": GradingConfig()}


def start_worker(grading: dict[str, Any]) -> None:
    """A worker's start: the grading settings the server read, and Ctrl-C left to the server (a terminal's Ctrl-C
    reaches every process of the job). Blocked, not only ignored: the counter's SAT solver (python-sat) installs its
    own SIGINT handler for each solve on a main thread, as a worker's task runs, and a blocked signal reaches none."""
    _settings["grading"] = GradingConfig.model_validate(grading)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def answer(command: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON object) for one request: 200 and the CLI's object, or 422 and {"error": line}."""
    try:
        return 200, _answer(command, body)
    except InputError as error:
        return 422, {"error": printable(str(error))}


def picture_answer(data: bytes, stars: int | None, game: str | None) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON object) for a picture: 200 and the board `starbattle from-image` prints, or 422 and
    {"error": line}."""
    try:
        return 200, puzzle_to_json(read_board_picture(data, stars, game, "the picture").puzzle)
    except InputError as error:
        return 422, {"error": printable(str(error))}


def _answer(command: str, body: dict[str, Any]) -> dict[str, Any]:
    allowed = KEYS[command]
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise InputError(f"the body has unknown key {unknown[0][:40]!r}: /api/{command} takes {', '.join(allowed)}")
    if "puzzle" not in body:
        raise InputError(f"the body has no 'puzzle': give the board as {PUZZLE_HELP}")
    stars = body.get("stars")
    if stars is not None and (not isinstance(stars, int) or isinstance(stars, bool) or stars < 1):
        raise InputError(f"'stars' must be a whole number of at least 1, not {json.dumps(stars)[:40]}")
    if command == "hint":
        puzzle, marked_stars, marked_empties = _player_board(body["puzzle"], stars, body.get("marks"))
        return hint_record(puzzle, puzzle_label(puzzle, 1), marked_stars, marked_empties)
    puzzle = _board(body["puzzle"], stars)
    label = puzzle_label(puzzle, 1)
    if command == "verify":
        return verify_record(puzzle, label)
    if command == "solve":
        return solve_record(puzzle, label, SOLVE_LIMIT)
    if command == "grade":
        return grade_record(puzzle, label, _settings["grading"])
    if command == "explain":
        return explain_record(puzzle, label, _settings["grading"])
    return board_record(puzzle)


def _board(value: Any, stars: int | None) -> Puzzle:
    if isinstance(value, dict):
        return puzzle_from_json(value, where=NAME)
    if isinstance(value, str):
        return _one(list(itertools.islice(parse_puzzles(value, NAME, stars=stars), 2)))
    raise InputError(f"'puzzle' must be {PUZZLE_HELP}, not {type(value).__name__}")


def _player_board(value: Any, stars: int | None, marks: Any) -> tuple[Puzzle, Cells, Cells]:
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:  # one JSON object in a string is read as the object itself; anything else as the CLI reads a file
            whole = json.loads(value)
        except (ValueError, RecursionError):
            whole = None
        value = whole if isinstance(whole, dict) else value
    if isinstance(value, dict):
        return player_board(value, NAME, marks)
    if not isinstance(value, str):
        raise InputError(f"'puzzle' must be {PUZZLE_HELP}, not {type(value).__name__}")
    puzzle, marked_stars, marked_empties = _one(player_boards(value, NAME, stars))
    if marks is None:
        return puzzle, marked_stars, marked_empties
    if marked_stars or marked_empties:
        raise InputError(f"{NAME}: marks given twice (in the board and beside it): give them once")
    try:
        marked_stars, marked_empties = marks_from_json(marks, puzzle.size)
    except InputError as error:
        raise InputError(f"{NAME}: {error}") from None
    return puzzle, marked_stars, marked_empties


def _one(boards: list[Board]) -> Board:
    if len(boards) > 1:
        raise InputError(f"{NAME}: holds more than one board; the API answers for one board a request")
    return boards[0]


def board_record(puzzle: Puzzle) -> dict[str, Any]:
    """What the solver page needs to show a board: the renderer's picture and the board as a text picture (the form
    the page sends back with each request), with the piece's name for the page's sentences."""
    n = puzzle.size
    return {
        "game": puzzle.game,
        "size": n,
        "stars": puzzle.stars,
        "piece": PIECES[puzzle_game(puzzle.game)][0],
        "given_stars": [list(rc) for rc in cells_to_coords(puzzle.given_stars, n)],
        "given_empty": [list(rc) for rc in cells_to_coords(puzzle.given_empty, n)],
        # without its solution: the page puts the text in its address, for all to see
        "text": puzzle_to_text(dataclasses.replace(puzzle, solution=None)),
        "svg": board_svg(puzzle, id_prefix="solve"),
    }
