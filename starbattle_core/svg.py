"""A board as an SVG picture: the one renderer behind the dashboard's pictures, the published pages and `show --svg`.

The picture is one standalone ``<svg>`` element: regions filled from a colour-blind-safe palette, thin grid lines,
thick lines wherever two neighbouring cells lie in different regions (and around the board), row labels 1..N down
the left and column labels 1..N along the top (the R#C# of the walkthrough sentences), each region's letter (the one the
sentences name it by) small in the top-left corner of its first cell, clear of the place a mark takes, stars as
five-pointed stars (on Queens boards, queens as crowns), cells known empty as small dots, highlighted cells with a
heavy outline.

Colours alone never carry the regions: the thick borders do, so the board reads in grey scale and to colour-blind
eyes. Neighbouring regions still get different fills (a greedy colouring of the region adjacency graph, using the
least-used allowed colour first so the palette spreads over the board).

Page scripts find every cell as ``<rect class="cell" data-r="R" data-c="C" id="{prefix}-R-C">`` (0-based) and its
mark inside ``<g class="mark" id="{prefix}-mark-R-C">``; ids carry a prefix so several boards fit on one page. The
root element carries the game's piece for scripts that draw marks of their own: ``data-piece`` ("star" or "queen")
and ``data-piece-path``, its outline as path data around (0, 0) with radius 1, to be translated and scaled.

>>> from starbattle_core.puzzle import Puzzle
>>> board = Puzzle.from_grid([[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]], stars=1)
>>> picture = board_svg(board, stars=1 << 1)
>>> picture.startswith("<svg") and picture.count('class="cell ') == 16
True
"""

from __future__ import annotations

import base64
import math
from html import escape

from .puzzle import Cells, Puzzle

# Paul Tol's "light" scheme, then the lighter tones of his "muted" and "pale" schemes: distinguishable under the
# common colour-vision deficiencies, and light enough that black marks and borders stay readable on every fill.
REGION_PALETTE = (
    "#77AADD",
    "#EE8866",
    "#EEDD88",
    "#FFAABB",
    "#99DDFF",
    "#44BB99",
    "#BBCC33",
    "#DDDDDD",
    "#BBCCEE",
    "#CCEEFF",
    "#CCDDAA",
    "#EEEEBB",
    "#FFCCCC",
    "#DDCCEE",
    "#88CCEE",
    "#DDCC77",
    "#CC6677",
    "#AAAA00",
)
HIGHLIGHT_COLOUR = "#CC3311"  # Tol's vibrant red: stands out against every fill above
INK = "#1A1A1A"


def region_colours(puzzle: Puzzle) -> list[str]:
    """A fill per region, neighbouring regions always different (the palette outnumbers any region's neighbours
    on the boards we draw; beyond that, colours repeat but the borders still separate them)."""
    n = puzzle.size
    touching: list[set[int]] = [set() for _ in range(len(puzzle.region_masks))]
    for cell, region in enumerate(puzzle.regions):
        r, c = divmod(cell, n)
        for rr, cc in ((r + 1, c), (r, c + 1), (r + 1, c + 1), (r + 1, c - 1)):
            if 0 <= rr < n and 0 <= cc < n:
                other = puzzle.regions[rr * n + cc]
                if other != region:
                    touching[region].add(other)
                    touching[other].add(region)
    chosen: list[int] = [-1] * len(touching)
    used = [0] * len(REGION_PALETTE)
    for region in range(len(touching)):
        taken = {chosen[other] for other in touching[region]}
        allowed = [i for i in range(len(REGION_PALETTE)) if i not in taken] or list(range(len(REGION_PALETTE)))
        pick = min(allowed, key=lambda i: (used[i], i))
        chosen[region] = pick
        used[pick] += 1
    return [REGION_PALETTE[i] for i in chosen]


def _star_outline() -> tuple[tuple[tuple[float, float], ...], ...]:
    """A five-pointed star around (0, 0), radius 1, point up, inner radius 0.4 of the outer."""
    points = []
    for k in range(10):
        r = 1.0 if k % 2 == 0 else 0.4
        angle = math.pi / 2 + k * math.pi / 5
        points.append((r * math.cos(angle), -r * math.sin(angle)))
    return (tuple(points),)


# A crown around (0, 0), radius 1: three points over a band, then the band beneath, a gap between them.
CROWN = (
    ((-0.9, 0.45), (-0.95, -0.45), (-0.45, 0.0), (0.0, -0.75), (0.45, 0.0), (0.95, -0.45), (0.9, 0.45)),
    ((-0.9, 0.6), (0.9, 0.6), (0.9, 0.85), (-0.9, 0.85)),
)
# Each game's piece: its name in the sentences, the CSS class of its mark, its outline.
PIECES = {"starbattle": ("star", "star", _star_outline()), "queens": ("queen", "crown", CROWN)}


def piece_path(game: str, cx: float = 0.0, cy: float = 0.0, radius: float = 1.0, digits: int = 1) -> str:
    """The game's piece as SVG path data, centred on (cx, cy) with the given radius."""
    return "".join(
        "M" + "L".join(f"{cx + radius * px:.{digits}f},{cy + radius * py:.{digits}f}" for px, py in outline) + "Z"
        for outline in PIECES[puzzle_game(game)][2]
    )


def puzzle_game(game: str) -> str:
    return game if game in PIECES else "starbattle"


def board_svg(
    puzzle: Puzzle,
    stars: Cells = 0,
    empties: Cells = 0,
    *,
    highlight: Cells = 0,
    cell: int = 36,
    labels: bool = True,
    title: str | None = None,
    id_prefix: str = "b",
    letters: bool = True,
) -> str:
    """The board with the given marks (on top of the puzzle's own givens) as one standalone SVG element."""
    n = puzzle.size
    margin = round(cell * 0.7) if labels else 0
    pad = 3  # room for the outline's half-width
    side = margin + n * cell + 2 * pad
    fills = region_colours(puzzle)
    stars |= puzzle.given_stars
    empties |= puzzle.given_empty
    x0 = y0 = margin + pad

    def x(c: int) -> int:
        return x0 + c * cell

    def y(r: int) -> int:
        return y0 + r * cell

    piece, piece_class, _ = PIECES[puzzle_game(puzzle.game)]
    opening = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" width="{side}" height="{side}" '
        f'viewBox="0 0 {side} {side}" font-family="Helvetica, Arial, sans-serif" data-game="{escape(puzzle.game)}" '
        f'data-piece="{piece}" data-piece-path="{piece_path(puzzle.game, digits=3)}">'
    )
    parts = [opening]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    if labels:
        size = round(cell * 0.38)
        for i in range(n):
            parts.append(
                f'<text class="label" x="{x(i) + cell / 2:.1f}" y="{y0 - cell * 0.22:.1f}" font-size="{size}" '
                f'text-anchor="middle" fill="{INK}">{i + 1}</text>'
            )
            parts.append(
                f'<text class="label" x="{x0 - cell * 0.2:.1f}" y="{y(i) + cell / 2 + size * 0.35:.1f}" '
                f'font-size="{size}" text-anchor="end" fill="{INK}">{i + 1}</text>'
            )
    for index, region in enumerate(puzzle.regions):
        r, c = divmod(index, n)
        parts.append(
            f'<rect class="cell region-{region}" data-r="{r}" data-c="{c}" id="{id_prefix}-{r}-{c}" '
            f'x="{x(c)}" y="{y(r)}" width="{cell}" height="{cell}" fill="{fills[region]}"/>'
        )
    grid = [f"M{x(i)} {y0}V{y(n)}M{x0} {y(i)}H{x(n)}" for i in range(1, n)]
    parts.append(f'<path class="grid" d="{"".join(grid)}" stroke="#555" stroke-width="0.6" stroke-opacity="0.6"/>')
    walls = []
    for r in range(n):
        for c in range(n):
            region = puzzle.regions[r * n + c]
            if c + 1 < n and puzzle.regions[r * n + c + 1] != region:
                walls.append(f"M{x(c + 1)} {y(r)}V{y(r + 1)}")
            if r + 1 < n and puzzle.regions[(r + 1) * n + c] != region:
                walls.append(f"M{x(c)} {y(r + 1)}H{x(c + 1)}")
    width = max(2.0, cell / 12)
    parts.append(
        f'<path class="walls" d="{"".join(walls)}" stroke="{INK}" stroke-width="{width:.1f}" stroke-linecap="square"/>'
    )
    parts.append(
        f'<rect class="outline" x="{x0}" y="{y0}" width="{n * cell}" height="{n * cell}" fill="none" '
        f'stroke="{INK}" stroke-width="{width * 1.5:.1f}"/>'
    )
    if letters:
        size = round(cell * 0.27)
        for region, mask in enumerate(puzzle.region_masks):
            r, c = divmod((mask & -mask).bit_length() - 1, n)  # the region's first cell in reading order
            parts.append(
                f'<text class="region-letter" x="{x(c) + cell * 0.06:.1f}" y="{y(r) + cell * 0.05 + size * 0.78:.1f}" '
                f'font-size="{size}" font-weight="bold" fill="{INK}" fill-opacity="0.75">'
                f"{escape(puzzle.unit_label('region', region))}</text>"
            )
    for index in range(n * n):
        r, c = divmod(index, n)
        bit = 1 << index
        cx, cy = x(c) + cell / 2, y(r) + cell / 2
        given = " given" if (puzzle.given_stars | puzzle.given_empty) & bit else ""
        mark = ""
        if stars & bit:
            shape = piece_path(puzzle.game, cx, cy, cell * 0.36)
            mark = f'<path class="{piece_class}{given}" d="{shape}" fill="{INK}"/>'
        elif empties & bit:
            mark = f'<circle class="dot{given}" cx="{cx:.1f}" cy="{cy:.1f}" r="{cell * 0.08:.1f}" fill="{INK}"/>'
        parts.append(f'<g class="mark" id="{id_prefix}-mark-{r}-{c}">{mark}</g>')
    for index in range(n * n):
        if highlight >> index & 1:
            r, c = divmod(index, n)
            inset = width
            parts.append(
                f'<rect class="highlight" x="{x(c) + inset:.1f}" y="{y(r) + inset:.1f}" '
                f'width="{cell - 2 * inset:.1f}" height="{cell - 2 * inset:.1f}" fill="{HIGHLIGHT_COLOUR}" '
                f'fill-opacity="0.18" stroke="{HIGHLIGHT_COLOUR}" stroke-width="{width * 1.2:.1f}"/>'
            )
    parts.append("</svg>")
    return "".join(parts)


def svg_data_uri(svg: str) -> str:
    """The picture as a data URI, for a markdown image or an ``<img src>``."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")
