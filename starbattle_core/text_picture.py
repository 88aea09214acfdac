"""The plain text picture of a board: one line per row, one symbol (a letter or digit) per region.

    # a comment
    stars: 1
    AAABC
    AAABC
    AADBC
    AEDBC
    AEEBB

Header lines ``key: value`` before the grid are optional: ``stars``, ``game``, ``id``, and the cell lists
``given stars``, ``given empty`` and ``solution`` (cells named R1C1 .. RnCn, 1-based, as players write them).
When the picture states no star count, the reader's ``stars`` argument gives it. Symbols may also be separated by
spaces (``0 0 1 1``), which allows numbers as symbols. A file may hold several pictures separated by blank lines;
header lines alone in a block apply to the picture that follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .puzzle import Cells, Puzzle, PuzzleError, cell_name, iter_cells, solution_problems
from .region_map import puzzle_from_symbols

HEADER = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*?)\s*[:=]\s*(.*?)\s*$")
CELL = re.compile(r"^[Rr]([0-9]{1,6})[Cc]([0-9]{1,6})$")
NUMBER = re.compile(r"^[0-9]{1,6}$")
CELL_KEYS = ("given stars", "given empty", "solution")
KEYS = ("stars", "game", "id", *CELL_KEYS)


def _cells(value: str, key: str, size: int, line: int) -> Cells:
    mask = 0
    for token in value.replace(",", " ").split():
        match = CELL.match(token)
        if not match:
            raise PuzzleError(f"line {line}: {key}: {token[:20]!r} is not a cell name like R3C5")
        r, c = int(match[1]) - 1, int(match[2]) - 1
        if not (0 <= r < size and 0 <= c < size):
            raise PuzzleError(f"line {line}: {key}: {token} is off the {size}x{size} board")
        mask |= 1 << (r * size + c)
    return mask


def _picture(headers: dict[str, tuple[int, str]], rows: list[tuple[int, str]], stars: int | None, game: str) -> Puzzle:
    """One picture: its header lines (key -> (line number, value)) and its grid lines (line number, text)."""
    grid: list[list[str]] = []
    columns: list[list[int]] = []  # the text column of each symbol, for messages
    for _, text in rows:
        if any(ch.isspace() for ch in text.strip()):
            tokens = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)]
        else:
            tokens = [(i + 1, ch) for i, ch in enumerate(text) if not ch.isspace()]
        grid.append([token for _, token in tokens])
        columns.append([col for col, _ in tokens])

    def locate(r: int, c: int) -> str:
        col = columns[r][c] if c < len(columns[r]) else 1
        return f"line {rows[r][0]}, column {col}"

    if "stars" in headers:
        line, value = headers["stars"]
        if not NUMBER.match(value):
            raise PuzzleError(f"line {line}: stars {value[:20]!r} is not a whole number")
        stars = int(value)
    if stars is None:
        raise PuzzleError(f"line {rows[0][0]}: the picture does not say how many stars (add a line 'stars: K')")
    game = headers.get("game", (0, game))[1]
    ident = headers["id"][1] if "id" in headers else None
    n = len(grid)
    masks = {key: _cells(value, key, n, line) for key, (line, value) in headers.items() if key in CELL_KEYS}
    puzzle = puzzle_from_symbols(
        grid,
        stars,
        game,
        locate=locate,
        given_stars=masks.get("given stars", 0),
        given_empty=masks.get("given empty", 0),
        id=ident,
        solution=masks.get("solution"),
    )
    if puzzle.solution is not None:
        problems = solution_problems(puzzle, puzzle.solution)
        if problems:
            raise PuzzleError(f"line {headers['solution'][0]}: the solution does not fit: {problems[0]}")
    return puzzle


def puzzles_from_text(
    text: str, name: str = "text", *, stars: int | None = None, game: str = "starbattle"
) -> Iterator[Puzzle]:
    """Every picture of a text, in order; errors start with ``name`` and name the line and column."""
    headers: dict[str, tuple[int, str]] = {}
    rows: list[tuple[int, str]] = []
    found = False

    def finish() -> Puzzle:
        try:
            return _picture(headers, rows, stars, game)
        except PuzzleError as error:
            message = str(error)
            where = name if message.startswith("line ") else f"{name} line {rows[0][0]}:"
            raise PuzzleError(f"{where} {message}") from None

    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        if not stripped:
            if rows:
                yield finish()
                found = True
                headers, rows = {}, []
            continue
        header = HEADER.match(line) if ":" in line or "=" in line else None
        if header:
            key = " ".join(header[1].lower().replace("_", " ").replace("-", " ").split())
            if rows:
                raise PuzzleError(f"{name} line {number}: header line {key!r} after the grid (put it above)")
            if key not in KEYS:
                raise PuzzleError(f"{name} line {number}: unknown header {key[:20]!r} (known: {', '.join(KEYS)})")
            if key in headers:
                raise PuzzleError(f"{name} line {number}: {key!r} given twice")
            headers[key] = (number, header[2])
        else:
            rows.append((number, line))
    if rows:
        yield finish()
        found = True
    if not found:
        raise PuzzleError(f"{name}: no picture in it (only header lines or comments)")


def puzzle_from_text(text: str, stars: int | None = None, game: str = "starbattle") -> Puzzle:
    """The one puzzle of a text picture. ``stars`` applies when the picture has no ``stars:`` line.

    >>> board = puzzle_from_text("AAABC\\nAAABC\\nAADBC\\nAEDBC\\nAEEBB", stars=1)
    >>> board.size, board.stars, board.regions[:5]
    (5, 1, (0, 0, 0, 1, 2))
    """
    puzzles = list(puzzles_from_text(text, stars=stars, game=game))
    if len(puzzles) != 1:
        raise PuzzleError(f"text: expected one picture, found {len(puzzles)} (separated by blank lines)")
    return puzzles[0]


def puzzle_to_text(puzzle: Puzzle) -> str:
    """The text picture of a puzzle: header lines (stars, game, id, givens, solution when known) and the grid."""
    lines = [f"stars: {puzzle.stars}", f"game: {puzzle.game}"]
    if puzzle.id is not None:
        lines.append(f"id: {' '.join(puzzle.id.split())}")
    for key, mask in zip(CELL_KEYS, (puzzle.given_stars, puzzle.given_empty, puzzle.solution), strict=True):
        if mask:
            lines.append(f"{key}: " + " ".join(cell_name(cell, puzzle.size) for cell in iter_cells(mask)))
    return "\n".join(lines + puzzle.region_rows()) + "\n"
