"""A board as text: region borders drawn with box-drawing lines, stars as ★.

Each cell is three characters wide; a heavy line runs wherever two neighbouring cells belong to different regions
(and around the board), and nothing is drawn between cells of the same region, so the regions read as shapes.

    ┏━━━━━━━━━━━┳━━━┳━━━┓
    ┃         · ┃ ★ ┃ · ┃
    ┃           ┃   ┃   ┃
    ┃           ┃   ┃   ┃
    ┃       ┏━━━┫   ┃   ┃
    ┃       ┃   ┃   ┃   ┃
    ┃   ┏━━━┫   ┃   ┃   ┃
    ┃   ┃   ┃   ┃   ┃   ┃
    ┃   ┃   ┗━━━┫   ┗━━━┫
    ┃   ┃       ┃       ┃
    ┗━━━┻━━━━━━━┻━━━━━━━┛

Cell marks: ★ a star, · a cell known empty, [★] a given star, [×] a given empty cell. With ``letters=True`` the
undecided cells show their region's letter; with ``ascii=True`` only ASCII characters are used (+ - | * . x).
"""

from __future__ import annotations

from .puzzle import Cells, Puzzle, region_name

# Junctions drawn from the heavy arms that meet there, indexed by up | right << 1 | down << 2 | left << 3.
JUNCTIONS = " ╹╺┗╻┃┏┣╸┛━┻┓┫┳╋"
ASCII_JUNCTIONS = " |-+||++-+-+++++"


def render_board(
    puzzle: Puzzle, stars: Cells = 0, empty: Cells = 0, *, letters: bool = False, ascii: bool = False
) -> str:
    """The board with region borders and the given marks, one line per text row, ending without a newline.

    ``stars`` and ``empty`` are cells to show as stars and as empty (on top of the puzzle's givens).
    """
    n = puzzle.size
    region = puzzle.region_grid()

    def wall_right(r: int, c: int) -> bool:  # the vertical line to the right of cell (r, c); c = -1 is the left edge
        return c < 0 or c >= n - 1 or region[r][c] != region[r][c + 1]

    def wall_below(r: int, c: int) -> bool:  # the horizontal line below cell (r, c); r = -1 is the top edge
        return r < 0 or r >= n - 1 or region[r][c] != region[r + 1][c]

    horizontal, vertical = ("---", "|") if ascii else ("━━━", "┃")
    lines = []
    for r in range(-1, n):
        # The border line below row r (r = -1: the top edge), then row r + 1's cells.
        parts = []
        for c in range(-1, n):
            up = r >= 0 and wall_right(r, c)
            down = r < n - 1 and wall_right(r + 1, c)
            left = c >= 0 and wall_below(r, c)
            right = c < n - 1 and wall_below(r, c + 1)
            arms = up | right << 1 | down << 2 | left << 3
            parts.append(ASCII_JUNCTIONS[arms] if ascii else JUNCTIONS[arms])
            if c < n - 1:
                parts.append(horizontal if wall_below(r, c + 1) else "   ")
        lines.append("".join(parts).rstrip())
        if r == n - 1:
            break
        row = r + 1
        parts = []
        for c in range(-1, n):
            parts.append(vertical if wall_right(row, c) else " ")
            if c < n - 1:
                parts.append(_mark(puzzle, row * n + c + 1, stars, empty, letters, ascii))
        lines.append("".join(parts))
    return "\n".join(lines)


def _mark(puzzle: Puzzle, cell: int, stars: Cells, empty: Cells, letters: bool, ascii: bool) -> str:
    bit = 1 << cell
    star, blank = ("*", ".") if ascii else ("★", "·")
    if puzzle.given_stars & bit:
        return f"[{star}]"
    if puzzle.given_empty & bit:
        return "[x]" if ascii else "[×]"
    if stars & bit:
        return f" {star} "
    if empty & bit:
        return f" {blank} "
    if letters:
        return f" {region_name(puzzle.regions[cell])} "
    return "   "
