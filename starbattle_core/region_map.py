"""A region map written with the input's own symbols, turned into a Puzzle.

Text pictures use letters, the shared data letters or ints, the Meowdoku format ints or digits. This module checks
the map in those terms, so that an error names the symbol the user wrote and where it stands ("region 'x' is in
2 pieces: row 1, column 3 and row 5, column 2"), before the Puzzle constructor renumbers the regions 0..N-1 in
reading order of their first cell.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from .puzzle import MAX_SIZE, Cells, Puzzle, PuzzleError

Locate = Callable[[int, int], str]


def grid_position(r: int, c: int) -> str:
    return f"row {r + 1}, column {c + 1}"


def symbol_label(symbol: Hashable) -> str:
    """How an error names a region: by the symbol the input used for it."""
    return f"region {symbol!r}" if isinstance(symbol, str) else f"region {symbol}"


def _check_symbol(symbol: Hashable, where: str) -> None:
    named = isinstance(symbol, str) and symbol.isalnum()
    if not named and (isinstance(symbol, bool) or not isinstance(symbol, int)):
        shown = repr(symbol) if isinstance(symbol, str) else str(symbol)
        raise PuzzleError(f"{where}: unknown symbol {shown} (a region is named by letters or digits)")


def puzzle_from_symbols(
    grid: Sequence[Sequence[Hashable]],
    stars: int,
    game: str = "starbattle",
    *,
    locate: Locate = grid_position,
    given_stars: Cells = 0,
    given_empty: Cells = 0,
    id: str | None = None,
    solution: Cells | None = None,
) -> Puzzle:
    """A puzzle from rows of region symbols (any letters, digits or ints; one symbol per region).

    ``locate(r, c)`` names a cell in the input's own terms (a file line, a JSON row) for error messages.
    """
    n = len(grid)
    if n == 0:
        raise PuzzleError("the region map has no rows")
    if n > MAX_SIZE:
        raise PuzzleError(f"the region map has {n} rows, at most {MAX_SIZE} are supported")
    widths = {len(row) for row in grid}
    if len(widths) == 1 and n not in widths:
        raise PuzzleError(f"the region map is {n} rows by {widths.pop()} columns: it must be square")
    for r, row in enumerate(grid):
        if len(row) != n:
            raise PuzzleError(f"{locate(r, 0)}: the row has {len(row)} cells, expected {n} (the grid must be square)")
    cells_of: dict[Hashable, list[tuple[int, int]]] = {}
    for r, row in enumerate(grid):
        for c, symbol in enumerate(row):
            _check_symbol(symbol, locate(r, c))
            cells_of.setdefault(symbol, []).append((r, c))
    if len(cells_of) != n:
        names = ", ".join(str(s) for s in list(cells_of)[:12]) + (", ..." if len(cells_of) > 12 else "")
        raise PuzzleError(f"{len(cells_of)} regions ({names}) on a {n}x{n} board: it needs exactly {n}")
    for symbol, cells in cells_of.items():
        stray = _first_unreached(cells)
        if stray is not None:
            raise PuzzleError(
                f"{symbol_label(symbol)} is not connected: "
                f"{locate(*cells[0])} and {locate(*stray)} are in separate pieces"
            )
    index = {symbol: i for i, symbol in enumerate(cells_of)}
    regions = [[index[symbol] for symbol in row] for row in grid]
    return Puzzle.from_grid(
        regions, stars, game, given_stars=given_stars, given_empty=given_empty, id=id, solution=solution
    )


def _first_unreached(cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first cell (reading order) not 4-connected to the first one, or None when the cells are one piece."""
    members = set(cells)
    seen = {cells[0]}
    stack = [cells[0]]
    while stack:
        r, c = stack.pop()
        for step in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if step in members and step not in seen:
                seen.add(step)
                stack.append(step)
    return next((cell for cell in cells if cell not in seen), None)
