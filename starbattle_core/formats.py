"""Reading and writing puzzles.

Formats:

- the JSON object of the shared data: ``size``, ``stars``, ``regions`` (rows of symbols, or lists of ints),
  ``solution`` as ``[[r, c], ...]``, ``game``, ``id``; optional givens ``given_stars`` / ``given_empty``;
- the Meowdoku solver's JSON: ``regions`` or ``regionMap`` (number[][], rows of digit strings or a flat
  array), ``cats`` / ``givenCats`` and ``crosses`` / ``givenCrosses`` as ``[r, c]`` or ``{"r", "c"}``, ``size``
  optional, ``solution`` as the column of each row;
- a plain text picture (see ``text_picture.py``) and puzz.link URLs (see ``puzzlink.py``);
- a file of many puzzles: JSON Lines, one JSON array, URLs one a line, or text pictures separated by blank lines.

Whatever symbols or ints the input uses, regions are numbered 0..N-1 in reading order of their first cell (the
shared data's letters already are), so equal boards read from different formats are equal Puzzles.

Every reader raises PuzzleError with a one-line message that says where the problem is (the line of the file,
the row and column of the grid, the region's own symbol). Nothing is guessed: a JSON key the reader does not know is
an error naming the closest known key, and a board must say its star count (``stars``), except the Meowdoku form
and Queens boards (``"game": "queens"``), which have one star per unit by definition. The Meowdoku form (``regionMap``,
``cats``/``crosses``, a flat region list or a solution given as one column per row) is a Queens board unless it says
otherwise. Inputs are bounded: a file larger than MAX_INPUT_BYTES is refused before it is parsed.
"""

from __future__ import annotations

import difflib
import io
import itertools
import json
import math
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TypeGuard

from .puzzle import GAMES, Cells, InputError, Puzzle, PuzzleError, cell_name, cells_to_coords, solution_problems
from .puzzlink import puzzle_from_puzzlink, puzzle_to_puzzlink
from .region_map import puzzle_from_symbols
from .text_picture import puzzle_from_text, puzzle_to_text, puzzles_from_text

__all__ = [
    "parse_puzzles",
    "puzzle_from_json",
    "puzzle_from_puzzlink",
    "puzzle_from_text",
    "puzzle_to_json",
    "puzzle_to_puzzlink",
    "puzzle_to_text",
    "read_jsonl",
    "read_puzzles",
]

REGION_KEYS = ("regions", "regionMap")
STAR_GIVEN_KEYS = ("given_stars", "cats", "givenCats")
EMPTY_GIVEN_KEYS = ("given_empty", "crosses", "givenCrosses")
MEOWDOKU_KEYS = ("regionMap", "cats", "givenCats", "crosses", "givenCrosses")
PUZZLE_KEYS = ("id", "name", "game", "size", "stars", "solution", *REGION_KEYS, *STAR_GIVEN_KEYS, *EMPTY_GIVEN_KEYS)
# What the shared data and this project's own output (generate --json, show --json, export) write beside the board:
# read and set aside, so a board printed by one command can be read by the next.
DESCRIPTION_KEYS = (
    "label",
    "source",
    "license",
    "band",
    "difficulty",
    "fun",
    "looks",
    "seed",
    "version",
    "solver_version",
    "generator_version",
    "repair_rounds",
    "tune_rounds",
    "counters",
    "date",
    "slot",
)
# A player's marks on the board (`hint` reads them; the other commands judge the bare board).
PLAYER_KEYS = ("marks",)
KNOWN_KEYS = (*PUZZLE_KEYS, *DESCRIPTION_KEYS, *PLAYER_KEYS)
# A puzzle file is at most this big: every board the project reads is far smaller (the largest shared file is under
# 1 MB), and reading costs several times the input's size in memory and a minute or more for the biggest.
MAX_INPUT_BYTES = 8 * 1024 * 1024


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _whole_number(value: Any, what: str) -> int:
    if not _is_int(value):
        raise PuzzleError(f"{what} {_show(value)} is not a whole number")
    return value


def _show(value: Any) -> str:
    """A JSON value, shortened for a one-line message."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_keys(obj: dict[str, Any]) -> None:
    for key in obj:
        if key not in KNOWN_KEYS:
            # Compared without case, so "Game" points to "game" rather than to "name".
            lowered = {known.lower(): known for known in KNOWN_KEYS}
            close = difflib.get_close_matches(str(key).lower(), lowered, n=1, cutoff=0.6)
            hint = f" (did you mean {lowered[close[0]]!r}?)" if close else f" (known: {', '.join(PUZZLE_KEYS)})"
            raise PuzzleError(f"unknown key {_show(key)}{hint}")


def _is_meowdoku(obj: dict[str, Any]) -> bool:
    """Whether the object is in the Meowdoku solver's form, whose boards are Queens boards (one cat per unit)."""
    regions = obj.get("regions")
    solution = obj.get("solution")
    return (
        any(key in obj for key in MEOWDOKU_KEYS)
        or (isinstance(regions, list) and bool(regions) and all(_is_int(x) for x in regions))
        or (isinstance(solution, list) and bool(solution) and all(_is_int(x) for x in solution))
    )


def _one_of(obj: dict[str, Any], keys: Sequence[str]) -> tuple[str | None, Any]:
    present = [key for key in keys if key in obj]
    if len(present) > 1:
        raise PuzzleError(f"both {present[0]!r} and {present[1]!r} are given: use one")
    return (present[0], obj[present[0]]) if present else (None, None)


def _region_grid(value: Any, key: str, size: int | None) -> list[list[Any]]:
    """Rows of region symbols from rows of strings, rows of lists, or a flat list of ints."""
    if not isinstance(value, list) or not value:
        raise PuzzleError(f"'{key}' must be a non-empty list of rows")
    if all(_is_int(x) for x in value):
        # The Meowdoku flat form: size * size ints in reading order.
        n = size if size is not None else math.isqrt(len(value))
        if n * n != len(value):
            needs = "not a square number" if size is None else f"a {size}x{size} board needs {size * size}"
            raise PuzzleError(f"flat '{key}' has {len(value)} cells, {needs}")
        return [value[r * n : (r + 1) * n] for r in range(n)]
    grid = []
    for r, row in enumerate(value):
        if isinstance(row, str):
            grid.append(list(row))
        elif isinstance(row, list):
            for c, symbol in enumerate(row):
                if isinstance(symbol, bool) or not isinstance(symbol, (int, str)):
                    raise PuzzleError(f"'{key}' row {r + 1}, column {c + 1}: unknown symbol {_show(symbol)}")
            grid.append(list(row))
        else:
            raise PuzzleError(f"'{key}' row {r + 1} is {_show(row)}, neither a string nor a list")
    return grid


def _coords(value: Any, key: str, size: int) -> list[tuple[int, int]]:
    """Cells given as [r, c] pairs or {"r": r, "c": c} objects; one off the board is an error naming it."""
    if not isinstance(value, list):
        raise PuzzleError(f"'{key}' must be a list of [row, col] cells")
    coords = []
    for i, item in enumerate(value):
        if isinstance(item, dict) and set(item) == {"r", "c"}:
            pair = [item["r"], item["c"]]
        elif isinstance(item, list) and len(item) == 2:
            pair = item
        else:
            raise PuzzleError(f'\'{key}\' item {i + 1} is {_show(item)}, not [row, col] or {{"r", "c"}}')
        r, c = (_whole_number(x, f"'{key}' item {i + 1}: coordinate") for x in pair)
        if not (0 <= r < size and 0 <= c < size):
            raise PuzzleError(f"'{key}' item {i + 1}: [{r}, {c}] is off the {size}x{size} board")
        coords.append((r, c))
    return coords


def _mask(coords: list[tuple[int, int]], size: int) -> Cells:
    mask = 0
    for r, c in coords:
        mask |= 1 << (r * size + c)
    return mask


def _given(obj: dict[str, Any], keys: Sequence[str], size: int) -> Cells:
    key, value = _one_of(obj, keys)
    return 0 if key is None else _mask(_coords(value, key, size), size)


def _solution(value: Any, size: int, stars: int) -> Cells:
    """The published answer, in whichever form the input uses: [[r, c], ...] (or {r, c} objects), the column of
    each row (one star: [4, 8, 1, ...]) or the columns of each row (K stars: [[1, 5], [3, 8], ...]).

    The forms cannot be confused: cell pairs number size * stars, column lists number size, and with one star
    the column form holds plain ints."""
    coords: list[tuple[int, int]] | None = None
    if isinstance(value, list) and len(value) == size:
        if stars == 1 and all(_is_int(x) for x in value):
            coords = _coords([[r, c] for r, c in enumerate(value)], "solution", size)
        elif stars > 1 and all(isinstance(x, list) and len(x) == stars and all(_is_int(c) for c in x) for x in value):
            coords = _coords([[r, c] for r, row in enumerate(value) for c in row], "solution", size)
    if coords is None:
        coords = _coords(value, "solution", size)
    first: dict[tuple[int, int], int] = {}
    for i, rc in enumerate(coords):
        if rc in first:
            # A star listed twice would vanish into the set of cells and let a short list pass as complete.
            raise PuzzleError(
                f"the solution lists {cell_name(rc[0] * size + rc[1], size)} twice (items {first[rc] + 1} and {i + 1})"
            )
        first[rc] = i
    return _mask(coords, size)


def puzzle_from_json(obj: Any, where: str = "") -> Puzzle:
    """A puzzle from a decoded JSON object in the shared-data or the Meowdoku form (see the module docstring).

    ``where`` (for example ``"line 3"``) starts every error message.

    >>> board = puzzle_from_json({"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]})
    >>> board.size, board.stars, board.game, board.region_rows()[2]
    (5, 1, 'starbattle', 'AADBC')

    The Meowdoku form numbers its regions and gives the solution as each row's column; the regions come out
    numbered in reading order whatever the input used, so the two forms read to equal puzzles:

    >>> meowdoku = puzzle_from_json({"regionMap": [[7, 7, 7, 2, 9], [7, 7, 7, 2, 9], [7, 7, 4, 2, 9],
    ...                                            [7, 5, 4, 2, 9], [7, 5, 5, 2, 2]], "solution": [3, 0, 2, 4, 1]})
    >>> meowdoku.regions == board.regions, meowdoku.solution is not None
    (True, True)
    >>> puzzle_from_json({"size": 5, "regions": ["AAABC"]}, where="line 3")
    Traceback (most recent call last):
    ...
    starbattle_core.puzzle.PuzzleError: line 3: size 5 disagrees with 'regions', which has 1 rows
    """
    try:
        if not isinstance(obj, dict):
            raise PuzzleError(f"expected a JSON object with 'regions', got {_show(obj)}")
        _check_keys(obj)
        size_value = obj.get("size")
        size = None if size_value is None else _whole_number(size_value, "size")
        key, value = _one_of(obj, REGION_KEYS)
        if key is None:
            raise PuzzleError("missing 'regions' (or 'regionMap')")
        grid = _region_grid(value, key, size)
        n = len(grid)
        if size is not None and size != n:
            raise PuzzleError(f"size {size} disagrees with '{key}', which has {n} rows")
        stars_value = obj.get("stars")
        meowdoku = _is_meowdoku(obj)
        game = obj.get("game", "queens" if meowdoku and stars_value in (None, 1) else "starbattle")
        if not isinstance(game, str):
            raise PuzzleError(f"game {_show(game)} is not a name")
        if game not in GAMES:
            raise PuzzleError(f"unknown game {game[:30]!r}: expected one of {', '.join(GAMES)}")
        if stars_value is None and game != "queens":
            raise PuzzleError(
                'missing \'stars\' (stars per row, column and region; a Queens board says "game": "queens")'
            )
        stars = 1 if stars_value is None else _whole_number(stars_value, "stars")
        ident = obj.get("id", obj.get("name"))
        if ident is not None and not isinstance(ident, str) and not _is_int(ident):
            raise PuzzleError(f"id {_show(ident)} is neither a text nor a whole number")
        given_stars, given_empty = (_given(obj, keys, n) for keys in (STAR_GIVEN_KEYS, EMPTY_GIVEN_KEYS))
        solution = None if obj.get("solution") is None else _solution(obj["solution"], n, stars)
        puzzle = puzzle_from_symbols(
            grid,
            stars,
            game,
            locate=lambda r, c: f"'{key}' row {r + 1}, column {c + 1}",
            id=None if ident is None else str(ident),
            given_stars=given_stars,
            given_empty=given_empty,
            solution=solution,
        )
        if solution is not None:
            problems = solution_problems(puzzle, solution)
            if problems:
                raise PuzzleError(f"the solution does not fit: {problems[0]}")
        return puzzle
    except RecursionError:
        # json.loads accepts nesting deeper than the checks here can walk (a message showing the value recurses).
        error = PuzzleError("a value is nested too deeply")
        raise PuzzleError(f"{where}: {error}" if where else str(error)) from None
    except PuzzleError as error:
        raise PuzzleError(f"{where}: {error}" if where else str(error)) from None


def puzzle_to_json(puzzle: Puzzle, solution: Cells | None = None) -> dict[str, Any]:
    """The shared data's JSON object for a puzzle, with `solution` when one is given or known, and the givens
    (`given_stars`, `given_empty` as [[r, c], ...]) when the puzzle has any."""
    obj: dict[str, Any] = {"game": puzzle.game, "size": puzzle.size, "stars": puzzle.stars}
    if puzzle.id is not None:
        obj = {"id": puzzle.id, **obj}
    obj["regions"] = puzzle.region_rows()
    if puzzle.given_stars:
        obj["given_stars"] = [list(rc) for rc in cells_to_coords(puzzle.given_stars, puzzle.size)]
    if puzzle.given_empty:
        obj["given_empty"] = [list(rc) for rc in cells_to_coords(puzzle.given_empty, puzzle.size)]
    if solution is None:
        solution = puzzle.solution
    if solution is not None:
        obj["solution"] = [list(rc) for rc in cells_to_coords(solution, puzzle.size)]
    return obj


def _json_value(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise PuzzleError(f"{where}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except (ValueError, RecursionError) as error:  # e.g. a number too long to convert, or absurd nesting
        raise PuzzleError(f"{where}: not usable JSON ({type(error).__name__})") from None


def _is_url(line: str) -> bool:
    """A line that can only be meant as a URL: no spaces, and a scheme or a query mark (a picture has neither)."""
    return not any(ch.isspace() for ch in line) and ("://" in line or "?" in line)


def parse_puzzles(content: str | bytes, name: str = "input", *, stars: int | None = None) -> Iterator[Puzzle]:
    """Every puzzle in the text of a file, whatever its format: JSON Lines, one JSON object, one JSON array of
    objects, puzz.link URLs one a line, or text pictures separated by blank lines (``stars`` is the star count
    for pictures that do not state their own). Errors start with ``name`` and the line.

    >>> picture = "stars: 1\\nAAABC\\nAAABC\\nAADBC\\nAEDBC\\nAEEBB\\n"
    >>> url = "https://puzz.link/p?starbattle/5/5/1/6dvq0485"
    >>> jsonl = '{"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]}'
    >>> boards = [next(parse_puzzles(text)) for text in (picture, url, jsonl)]
    >>> boards[0] == boards[1] == boards[2]
    True
    >>> list(parse_puzzles(jsonl + '\\n{"regions": 5}', "day.jsonl"))
    Traceback (most recent call last):
    ...
    starbattle_core.puzzle.PuzzleError: day.jsonl line 2: 'regions' must be a non-empty list of rows
    """
    if len(content) > MAX_INPUT_BYTES:
        raise InputError(f"{name}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB, the limit for a puzzle file")
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise PuzzleError(f"{name}: not UTF-8 text (byte {error.start + 1})") from None
    # Lines end at \n (or \r\n, \r) only: JSON strings may hold other Unicode line separators.
    content = content.replace("\r\n", "\n").replace("\r", "\n")
    first = next(_filled_lines(content), None)
    if first is None:
        raise PuzzleError(f"{name}: no puzzle in it (the input is empty)")
    if first[1].startswith(("{", "[")):
        yield from _parse_json_text(content, name)
    elif all(_is_url(line) for _, line in _filled_lines(content) if not line.startswith("#")):
        for number, line in _filled_lines(content):
            if not line.startswith("#"):
                try:
                    yield puzzle_from_puzzlink(line)
                except PuzzleError as error:
                    raise PuzzleError(f"{name} line {number}: {error}") from None
    else:
        yield from puzzles_from_text(content, name, stars=stars)


def _filled_lines(content: str) -> Iterator[tuple[int, str]]:
    """(line number, stripped text) of every line that is not blank, one at a time: a list of every line of a big
    file would cost many times its size."""
    for number, raw in enumerate(io.StringIO(content, newline="\n"), 1):
        line = raw.strip()
        if line:
            yield number, line


def _parse_json_text(content: str, name: str) -> Iterator[Puzzle]:
    whole_ok = True
    try:
        whole = json.loads(content)
    except (ValueError, RecursionError):
        whole_ok = False
    if whole_ok and isinstance(whole, list):
        for i, obj in enumerate(whole):
            yield puzzle_from_json(obj, where=f"{name} puzzle {i + 1} of the array")
        if not whole:
            raise PuzzleError(f"{name}: the JSON array holds no puzzle")
        return
    if whole_ok and sum(1 for _ in itertools.islice(_filled_lines(content), 2)) > 1:
        # One object spread over several lines (a pretty-printed file).
        yield puzzle_from_json(whole, where=name)
        return
    for number, line in _filled_lines(content):
        where = f"{name} line {number}"
        yield puzzle_from_json(_json_value(line, where), where=where)


def read_puzzles(source: str | os.PathLike[str], *, stars: int | None = None) -> Iterator[Puzzle]:
    """Every puzzle of a file (a path, or ``"-"`` for standard input), format detected as in parse_puzzles.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as file:
    ...     _ = file.write("https://puzz.link/p?starbattle/5/5/1/6dvq0485\\n# a comment line\\n")
    >>> [board.region_rows()[0] for board in read_puzzles(file.name)]
    ['AAABC']
    >>> os.remove(file.name)
    >>> next(read_puzzles("no/such/file.jsonl"))
    Traceback (most recent call last):
    ...
    starbattle_core.puzzle.InputError: cannot read no/such/file.jsonl: No such file or directory
    """
    content, name = read_source(source, MAX_INPUT_BYTES)
    return parse_puzzles(content, name, stars=stars)


def read_source(source: str | os.PathLike[str], limit: int) -> tuple[bytes, str]:
    """The bytes of a file (``"-"``: standard input), at most `limit` + 1 of them (one byte over the limit tells a
    file that is too big), and the name errors give it. A file that cannot be opened is one InputError."""
    if source == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a test may swap in a text-only stream
            return sys.stdin.read(limit + 1).encode("utf-8"), "<stdin>"
        return stream.read(limit + 1), "<stdin>"
    try:
        with open(source, "rb") as handle:
            return handle.read(limit + 1), str(source)
    except OSError as error:
        raise InputError(f"cannot read {source}: {error.strerror or error}") from None


def read_jsonl(path: str) -> Iterator[Puzzle]:
    """Every puzzle of a JSON Lines file; an error names the line."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"line {number}"
            yield puzzle_from_json(_json_value(line, where), where=where)
