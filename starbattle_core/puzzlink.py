"""puzz.link / pzprjs URLs for Star Battle: `https://puzz.link/p?starbattle/COLS/ROWS/STARS/BORDERS`.

The border part is pzprjs's region encoding: first the vertical borders (between horizontally neighbouring
cells, row by row, left to right), then the horizontal borders (between vertically neighbouring cells, row by
row), each list packed five bits to a base-32 digit (0-9a-v), most significant bit first, the last digit padded
with zero bits. A region is a 4-connected piece of cells that no border separates. The same URL works on
puzz.link, pzv.jp (`p.html?`) and the pzprxs mirrors; only the part after `?` matters.
"""

from __future__ import annotations

from .puzzle import MAX_SIZE, Puzzle, PuzzleError

DIGITS = "0123456789abcdefghijklmnopqrstuv"
URL_PREFIX = "https://puzz.link/p?starbattle"


def _unpack(text: str, count: int, offset: int, what: str) -> list[bool]:
    """`count` bits from base-32 digits; `offset` is where `text` starts in the border part (for messages)."""
    bits: list[bool] = []
    for i, char in enumerate(text):
        value = DIGITS.find(char.lower())
        if value < 0:
            raise PuzzleError(f"border data character {offset + i + 1} is {char!r}, not a base-32 digit (0-9, a-v)")
        bits.extend(bool(value >> shift & 1) for shift in range(4, -1, -1))
    if len(bits) < count:
        raise PuzzleError(f"{what} borders are cut short")
    return bits[:count]


def _pack(bits: list[bool]) -> str:
    digits = []
    for start in range(0, len(bits), 5):
        chunk = bits[start : start + 5]
        value = 0
        for shift, bit in zip(range(4, -1, -1), chunk, strict=False):
            value |= bit << shift
        digits.append(DIGITS[value])
    return "".join(digits)


def _is_number(token: str) -> bool:
    return token.isascii() and token.isdigit() and len(token) <= 6


def _number(token: str, what: str) -> int:
    if not _is_number(token):
        raise PuzzleError(f"puzz.link URL: {what} {token!r} is not a whole number")
    return int(token)


def puzzle_from_puzzlink(url: str, game: str = "starbattle") -> Puzzle:
    """A puzzle from a puzz.link / pzv.jp / pzprxs Star Battle URL (with or without `http(s)://`).

    >>> puzzle_from_puzzlink("https://puzz.link/p?starbattle/6/6/1/4ilbhgdnmhou").region_rows()[0]
    'AAABBB'
    """
    text = url.strip()
    if "?" not in text:
        raise PuzzleError(f"not a puzz.link URL (no '?'): {text[:60]!r}")
    fields = text.split("?", 1)[1].split("#", 1)[0].split("/")
    kind = fields[0]
    if kind.lower() != "starbattle":
        raise PuzzleError(f"not a Star Battle URL: the puzzle type is {kind[:30]!r}, expected 'starbattle'")
    rest = fields[1:]
    if rest and rest[0] and not _is_number(rest[0]):
        rest = rest[1:]  # pzprjs allows an option flag before the size; Star Battle defines none, so skip it
    if len(rest) < 4:
        raise PuzzleError("puzz.link URL: expected starbattle/COLS/ROWS/STARS/BORDERS")
    cols = _number(rest[0], "column count")
    rows = _number(rest[1], "row count")
    stars = _number(rest[2], "star count")
    body = "/".join(rest[3:])
    if cols != rows:
        raise PuzzleError(f"puzz.link URL: the board is {cols}x{rows}, Star Battle needs a square board")
    n = cols
    if not 1 <= n <= MAX_SIZE:
        raise PuzzleError(f"puzz.link URL: size {n} out of range 1..{MAX_SIZE}")
    vertical_count = (n - 1) * n
    vertical_digits = (vertical_count + 4) // 5
    horizontal_digits = (n * (n - 1) + 4) // 5
    if len(body) != vertical_digits + horizontal_digits:
        raise PuzzleError(
            f"puzz.link URL: border data has {len(body)} characters, a {n}x{n} board needs "
            f"{vertical_digits + horizontal_digits}"
        )
    vertical = _unpack(body[:vertical_digits], vertical_count, 0, "vertical")
    horizontal = _unpack(body[vertical_digits:], n * (n - 1), vertical_digits, "horizontal")
    grid = _regions_from_borders(n, vertical, horizontal)
    regions = max(max(row) for row in grid) + 1
    if regions != n:
        raise PuzzleError(f"puzz.link URL: the borders cut the {n}x{n} board into {regions} regions, it needs {n}")
    return Puzzle.from_grid(grid, stars, game)


def _regions_from_borders(n: int, vertical: list[bool], horizontal: list[bool]) -> list[list[int]]:
    """Label the 4-connected pieces that no border separates, in reading order of their first cell."""
    grid = [[-1] * n for _ in range(n)]
    label = 0
    for r0 in range(n):
        for c0 in range(n):
            if grid[r0][c0] >= 0:
                continue
            grid[r0][c0] = label
            stack = [(r0, c0)]
            while stack:
                r, c = stack.pop()
                steps = (
                    (r, c + 1, c < n - 1 and not vertical[r * (n - 1) + c]),
                    (r, c - 1, c > 0 and not vertical[r * (n - 1) + c - 1]),
                    (r + 1, c, r < n - 1 and not horizontal[r * n + c]),
                    (r - 1, c, r > 0 and not horizontal[(r - 1) * n + c]),
                )
                for rr, cc, open_side in steps:
                    if open_side and grid[rr][cc] < 0:
                        grid[rr][cc] = label
                        stack.append((rr, cc))
            label += 1
    return grid


def puzzle_to_puzzlink(puzzle: Puzzle) -> str:
    """The puzz.link URL of a puzzle. The format has no place for givens, so a puzzle with givens is refused."""
    if puzzle.given_stars or puzzle.given_empty:
        raise PuzzleError("a puzz.link Star Battle URL cannot carry given stars or given empty cells")
    n = puzzle.size
    grid = puzzle.region_grid()
    vertical = [grid[r][c] != grid[r][c + 1] for r in range(n) for c in range(n - 1)]
    horizontal = [grid[r][c] != grid[r + 1][c] for r in range(n - 1) for c in range(n)]
    return f"{URL_PREFIX}/{n}/{n}/{puzzle.stars}/{_pack(vertical)}{_pack(horizontal)}"
