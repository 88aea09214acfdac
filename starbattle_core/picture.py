"""Reading a board from a picture: pixels in, a Puzzle out, or one line saying why not.

The picture is an RGB array (decoding a file is the caller's part). The reading goes:

1. the board's outline: dark lines (pixels darker than both neighbours a few pixels across, or than the page) that
   run long and straight; two horizontal and two vertical ones that close a square are a board. Page text and
   buttons around it make no such square. A scan laid askew is first turned level: the lean at which its line
   pixels pile into the fewest rows, undone by two shears.
2. the cells: inside the square, the mean darkness and colour step of each column (and each row) is a profile whose
   peaks are the grid's lines; the size N is the one whose N-1 evenly spaced lines land on peaks while the middles
   of its cells stay clear. Each line is then moved to its own peak.
3. the regions, two ways, each a cut of the cells' neighbour pairs: by how much ink lies on the line between two
   cells (thick borders against thin or dashed cell lines) and by how far apart their colours are (a Queens board's
   fills). Pairs are joined cheapest first; of the cuts that leave exactly N pieces, the one at the widest gap
   between joined and parted pairs wins, and the way with the wider gap reads the board.

A picture that yields no square, no grid, or not N regions is refused with a PictureError naming what was found
("found 9 colour groups on a 10x10 grid, which needs 10 regions").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .puzzle import MAX_SIZE, Puzzle, PuzzleError

Pixels = npt.NDArray[np.uint8]  # height x width x 3, RGB
Plane = npt.NDArray[np.float32]

PAGE_SIDE = 1000  # pixels: a page is searched for its board at most this large
BOARD_SIDE = 900  # pixels: a board is read at most this large (a 30x30 board's cells are then 30 pixels)
SMALLEST = 4  # boards from 4x4 up to MAX_SIZE
MIN_CELL = 6.0  # pixels: a smaller cell cannot show a border apart from its neighbours' lines
# How far across (in pixels) a line's darkness is compared with the paper on both sides: a thick border's middle
# is only darker than pixels beyond its half-width (9 pixels wide on a 2x screen).
REACH = (1, 2, 3, 5, 8)
INK = 40.0  # how much darker than both sides (of 255) a pixel of the outline is at least
DARK = 100.0  # how much darker than the page's middle tone a pixel of ink is at least (a fill is less dark)
FAINT = 0.5  # the share of DARK and INK a faint outline is looked for with, when no clear one made a board
MIN_SKEW, MAX_SKEW = 0.15, 3.0  # degrees a scan may lean by and still be read (turned level first)
# How much sharper a picture's lines pile up at its lean than level for it to be turned (0.3 degrees: 1.02 to 1.08;
# a level page: 1.002 at most, its text lines piling up a little better at some lean).
CLEAR_LEAN = 1.01
GRID_QUALITY = 0.3  # share of the line profile's height left after the cells' middles are taken off
# For the regions to be told apart, the cheapest border or colour step left standing has to cost this many times the
# dearest joined one, and this many times the middle of those joined (a grid of equal lines, or of one colour, has
# none that stands out).
MIN_GAP = 1.05
CLEARNESS = 1.3
COLOUR_FLOOR = 3.0  # Lab distance that JPEG noise can put between two cells of one fill
# Black borders stand at least this far apart from thin lines on a board of fills; the line between two fills of a
# small picture looks inked too (a darker fill blurs into it), but less (1.5 at most over the bench's pictures).
THICK_GAP = 2.0


class PictureError(PuzzleError):
    """A picture that holds no readable board; the message says what was found instead."""


@dataclass(frozen=True)
class Band:
    """A straight dark line: its middle across, where it starts and ends along, how many pixels thick."""

    middle: float
    start: float
    end: float
    thickness: int


@dataclass(frozen=True)
class Square:
    """The board's outline: the middles of its four sides, in pixels."""

    top: float
    bottom: float
    left: float
    right: float

    @property
    def side(self) -> float:
        return (self.bottom - self.top + self.right - self.left) / 2


@dataclass(frozen=True)
class PictureRead:
    """What a picture held: the board, where it stood (in pixels of the picture, turned level if it was askew), and
    how its regions were found (`borders` or `colours`)."""

    puzzle: Puzzle
    square: Square
    regions_from: str
    stars_given: bool
    game_given: bool


def grey(pixels: Pixels) -> Plane:
    """Each pixel's lightness, 0 to 255 (the Rec. 601 weights, in integers: a big picture's floats cost twice)."""
    weighted = pixels[..., 0] * np.uint16(77) + pixels[..., 1] * np.uint16(150) + pixels[..., 2] * np.uint16(29)
    return (weighted >> 8).astype(np.float32)


def ridges(plane: Plane, axis: int) -> Plane:
    """How much darker each pixel is than the pixels on both sides of it across `axis` (0: horizontal lines)."""
    out = np.zeros_like(plane)
    length = plane.shape[axis]
    for d in REACH:
        if 2 * d >= length:
            break
        core = [slice(None), slice(None)]
        before, after, middle = list(core), list(core), list(core)
        before[axis], after[axis], middle[axis] = slice(0, -2 * d), slice(2 * d, None), slice(d, -d)
        darker = np.minimum(plane[tuple(before)], plane[tuple(after)]) - plane[tuple(middle)]
        np.maximum(out[tuple(middle)], darker, out=out[tuple(middle)])
    return out


def bands(mask: npt.NDArray[np.bool_], min_length: float) -> list[Band]:
    """The straight lines along the rows of `mask`: runs at least `min_length` long (gaps of 2 pixels bridged),
    stacked over consecutive rows into one band."""
    steps = np.diff(np.pad(mask, ((0, 0), (1, 1))).astype(np.int8), axis=1)
    rows, starts = np.nonzero(steps == 1)
    _, ends = np.nonzero(steps == -1)
    if rows.size == 0:
        return []
    apart = np.ones(rows.size, dtype=bool)  # a run that starts a new one: on another row, or over 2 pixels on
    apart[1:] = (rows[1:] != rows[:-1]) | (starts[1:] - ends[:-1] > 2)
    first = np.flatnonzero(apart)
    rows, starts, ends = rows[first], starts[first], np.maximum.reduceat(ends, first)
    long = ends - starts >= min_length
    found: list[Band] = []
    open_bands: list[list[tuple[int, int, int]]] = []
    for row, start, end in zip(rows[long].tolist(), starts[long].tolist(), ends[long].tolist(), strict=True):
        slack = max(3.0, 0.05 * (end - start))
        for runs in open_bands:
            last_row, last_start, last_end = runs[-1]
            if row - last_row <= 2 and abs(start - last_start) <= slack and abs(end - last_end) <= slack:
                runs.append((row, start, end))
                break
        else:
            open_bands.append([(row, start, end)])
        still_open = [runs for runs in open_bands if row - runs[-1][0] <= 2]
        found.extend(_band(runs) for runs in open_bands if row - runs[-1][0] > 2)
        open_bands = still_open
    found.extend(_band(runs) for runs in open_bands)
    return found


def _band(runs: list[tuple[int, int, int]]) -> Band:
    rows, starts, ends = zip(*runs, strict=True)
    return Band(float(np.mean(rows)), float(np.median(starts)), float(np.median(ends)), len(runs))


def squares(across: list[Band], down: list[Band]) -> list[Square]:
    """Every square closed by two horizontal and two vertical bands, largest first. Rounded corners shorten the
    bands by as much as they round off, so a side may fall short of the square by up to a tenth at each end."""
    found = []
    for i, top in enumerate(across):
        for bottom in across[i + 1 :]:
            height = bottom.middle - top.middle
            width = (top.end - top.start + bottom.end - bottom.start) / 2
            slack = max(4.0, 0.04 * height)
            # A horizontal side runs on past the vertical ones' middles by half their thickness at each end.
            if height < SMALLEST * MIN_CELL or not 0.78 * height <= width <= height + slack + 2 * top.thickness:
                continue
            if abs(top.start - bottom.start) > slack or abs(top.end - bottom.end) > slack:
                continue
            rounding = max(0.0, height - width) / 2 + slack
            left = _side(down, top.start, top.middle, bottom.middle, rounding, outward=-1)
            right = _side(down, top.end, top.middle, bottom.middle, rounding, outward=1)
            if left is not None and right is not None and abs((right - left) - height) <= slack:
                found.append(Square(top.middle, bottom.middle, left, right))
    found.sort(key=lambda square: -square.side)
    return found


def _side(down: list[Band], near: float, top: float, bottom: float, rounding: float, outward: int) -> float | None:
    """Where the square's vertical side near `near` runs: the heaviest line there (then the outermost) whose pieces
    (a side is broken where a fill as dark as the line meets it) cover most of the height between top and bottom."""
    pieces = [
        band
        for band in down
        if abs(band.middle - near) <= rounding and band.start >= top - rounding and band.end <= bottom + rounding
    ]
    lines: dict[float, float] = {}
    for middle in {round(band.middle) for band in pieces}:
        same = [band for band in pieces if abs(band.middle - middle) <= 2]
        covered, reach = 0.0, top
        for band in sorted(same, key=lambda band: band.start):
            start, end = max(band.start, reach), min(band.end, bottom)
            if end > start:
                covered += end - start
                reach = end
        if covered >= 0.6 * (bottom - top):
            lines[float(middle)] = covered * max(band.thickness for band in same)
    # The heaviest line: the outline, not a thin line or an edge of it beside it.
    return max(lines, key=lambda middle: (lines[middle], outward * middle)) if lines else None


def _peak_height(profile: Plane, at: float, reach: float) -> float:
    low, high = max(0, round(at - reach)), min(profile.size, round(at + reach) + 1)
    return float(profile[low:high].max()) if high > low else 0.0


def grid_score(profile: Plane, size: int) -> tuple[float, float]:
    """(lines less middles, lines) for `size` cells along a profile spanning the board from outline to outline."""
    cell = (profile.size - 1) / size
    reach = max(1.0, 0.12 * cell)
    lines = np.mean([_peak_height(profile, i * cell, reach) for i in range(1, size)])
    middles = np.mean([_peak_height(profile, (j + 0.5) * cell, cell / 4) for j in range(size)])
    return float(lines - middles), float(lines)


def board_size(across: Plane, down: Plane) -> tuple[int, float]:
    """The number of cells a side whose lines best fit both profiles, and how well (0 to 1)."""
    best, best_score, best_quality = 0, -np.inf, 0.0
    for size in range(SMALLEST, MAX_SIZE + 1):
        if min(across.size, down.size) / size < MIN_CELL:
            break
        (score_a, lines_a), (score_d, lines_d) = grid_score(across, size), grid_score(down, size)
        score = score_a + score_d
        if score > best_score:
            best, best_score = size, score
            best_quality = score / (lines_a + lines_d) if lines_a + lines_d > 0 else 0.0
    return best, best_quality


def line_positions(profile: Plane, size: int) -> list[float]:
    """Where each of the grid's size + 1 lines lies along the profile: the evenly spaced guess moved to the middle
    of its own peak, when there is one."""
    cell = (profile.size - 1) / size
    typical = float(np.median([_peak_height(profile, i * cell, max(1.0, 0.12 * cell)) for i in range(1, size)]))
    positions = [0.0]
    for i in range(1, size):
        guess = i * cell
        low, high = max(0, round(guess - 0.2 * cell)), min(profile.size, round(guess + 0.2 * cell) + 1)
        window = profile[low:high]
        peak = float(window.max())
        if peak < 0.25 * typical or peak <= 0:
            positions.append(guess)
            continue
        heavy = window >= 0.5 * peak
        places = np.arange(low, high, dtype=np.float32)
        # The middle of the run of heavy pixels around the highest one: a thick border is a plateau.
        top = int(window.argmax())
        left, right = top, top
        while left > 0 and heavy[left - 1]:
            left -= 1
        while right + 1 < heavy.size and heavy[right + 1]:
            right += 1
        weights = window[left : right + 1]
        positions.append(float((places[left : right + 1] * weights).sum() / weights.sum()))
    positions.append(float(profile.size - 1))
    return positions


def lab(rgb: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """CIE Lab of sRGB colours (0-255, last axis), so that distances follow how far apart colours look."""
    c = rgb / 255.0
    linear = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    xyz = linear @ np.array(
        [[0.4124, 0.2126, 0.0193], [0.3576, 0.7152, 0.1192], [0.1805, 0.0722, 0.9505]], dtype=np.float64
    )
    xyz /= np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


@dataclass(frozen=True)
class Cut:
    """Cells joined into pieces: `labels` per cell (reading order), how many pieces, and how the pairs left apart
    stand out from those joined: `gap`, the cheapest of them against the dearest joined; `clearness`, against the
    middle of the joined ones."""

    labels: list[int]
    pieces: int
    gap: float
    clearness: float

    def stands_out(self) -> bool:
        return self.gap >= MIN_GAP and self.clearness >= CLEARNESS


def cut(size: int, pairs: list[tuple[int, int]], costs: list[float], floor: float, wanted: int | None) -> Cut:
    """Join neighbouring cells cheapest pair first and stop where exactly `wanted` pieces are left, at the widest
    gap between the last pair joined and the first left apart; with no such stop, or `wanted` None, at the widest
    gap of all (whose piece count then says what the picture holds)."""
    order = sorted(range(len(pairs)), key=lambda k: costs[k])
    parent = list(range(size * size))

    def root(cell: int) -> int:
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    pieces = [size * size]
    for k in order:
        a, b = root(pairs[k][0]), root(pairs[k][1])
        if a != b:
            parent[a] = b
        pieces.append(pieces[-1] - (a != b))
    sorted_costs = [costs[k] + floor for k in order]
    gaps = [sorted_costs[k] / sorted_costs[k - 1] for k in range(1, len(order))]
    stops = [k for k in range(1, len(order)) if pieces[k] == wanted]
    stop = max(stops, key=lambda k: gaps[k - 1]) if stops else 1 + int(np.argmax(gaps))
    parent = list(range(size * size))
    for k in order[:stop]:
        a, b = root(pairs[k][0]), root(pairs[k][1])
        if a != b:
            parent[a] = b
    names: dict[int, int] = {}
    labels = [names.setdefault(root(cell), len(names)) for cell in range(size * size)]
    clearness = sorted_costs[stop] / float(np.median(sorted_costs[:stop]))
    return Cut(labels, pieces[stop], gaps[stop - 1], clearness)


def read_board(pixels: Pixels, stars: int | None = None, game: str | None = None) -> PictureRead:
    """The board in an RGB picture; PictureError when there is none or its regions cannot be told apart.

    `stars` and `game` as the user gave them; when not given, a board read from its colours alone is Queens, any
    other Star Battle with the usual star count for its size (1 up to 9x9, 2 up to 13x13, 3 from 14x14).
    """
    height, width = pixels.shape[:2]
    if pixels.ndim != 3 or pixels.shape[2] != 3 or min(height, width) < SMALLEST * MIN_CELL:
        raise PictureError(f"a picture of {width}x{height} pixels is too small to hold a board")
    # The page is searched at most PAGE_SIDE pixels wide; the board is then read from the picture itself.
    page_factor = -(-max(height, width) // PAGE_SIDE)
    page = Outlines(shrink(pixels, page_factor))
    across, down = page.leans()
    if across:
        # A scan laid askew: its lines turned level and upright. A rotation this small is two shears, to well
        # within a pixel.
        upright = _shear(np.ascontiguousarray(_shear(pixels, across).transpose(1, 0, 2)), down)
        pixels = np.ascontiguousarray(upright.transpose(1, 0, 2))
        page = Outlines(shrink(pixels, page_factor))
    # A faint outline (a thin border shrunk with the page) is looked for only when no clear one made a board.
    tried: set[Square] = set()
    for contrast in (1.0, FAINT):
        for found in page.squares(contrast)[:8]:
            if found not in tried:
                tried.add(found)
                read = _read_square(pixels, page, found, page_factor, contrast, stars, game)
                if read is not None:
                    return read
    raise PictureError("no board in the picture (no square grid of lines)")


def _lean(mask: npt.NDArray[np.bool_]) -> tuple[float, float]:
    """The slope (rows per column) of the straight lines along the rows of `mask`, to a twentieth of a degree: the
    one that piles their pixels into the fewest rows (the largest sum of squared row counts); and how much sharper
    they pile up at that slope than level."""
    rows, columns = np.nonzero(mask)
    if rows.size > 50_000:  # a sample piles up as sharply
        keep = np.linspace(0, rows.size - 1, 50_000).astype(np.intp)
        rows, columns = rows[keep], columns[keep]
    reach = mask.shape[1] * np.tan(np.radians(MAX_SKEW)) + 1

    def sharpness(slope: float) -> float:
        piles = np.bincount(np.round(rows - columns * slope + reach).astype(np.intp))
        return float((piles.astype(np.float64) ** 2).sum())

    if rows.size == 0:
        return 0.0, 1.0
    # A quarter of a degree apart over the whole range, then a twentieth around the best.
    coarse = max(
        np.arange(-MAX_SKEW, MAX_SKEW + 0.01, 0.25), key=lambda degrees: sharpness(np.tan(np.radians(degrees)))
    )
    fine = np.tan(np.radians(np.arange(coarse - 0.2, coarse + 0.21, 0.05)))
    best = float(max(fine, key=sharpness))
    return best, sharpness(best) / sharpness(0.0)


def _shear(pixels: Pixels, slope: float) -> Pixels:
    """Each column moved up by `slope` rows per column from the middle (a line that fell by `slope` lies level),
    between pixels by linear interpolation; the edge pixels fill what comes in from outside. Neighbouring columns
    move by the same whole number of rows, so each such stretch is copied as one block."""
    height, width = pixels.shape[:2]
    shift = slope * (np.arange(width) - width / 2)
    whole = np.floor(shift).astype(np.intp)
    weight = np.round((shift - whole) * 256).astype(np.uint16)[None, :, None]
    pad = int(np.abs(whole).max()) + 1
    padded = np.pad(pixels, ((pad, pad + 1), (0, 0), (0, 0)), mode="edge")
    above, below = np.empty_like(pixels), np.empty_like(pixels)
    stretches = [0, *(np.flatnonzero(np.diff(whole)) + 1).tolist(), width]
    for first, last in itertools.pairwise(stretches):
        top = pad + int(whole[first])
        above[:, first:last] = padded[top : top + height, first:last]
        below[:, first:last] = padded[top + 1 : top + 1 + height, first:last]
    blended = above.astype(np.uint16) * (256 - weight) + below.astype(np.uint16) * weight + 128
    return (blended >> 8).astype(np.uint8)


def _read_square(
    pixels: Pixels,
    page: Outlines,
    found: Square,
    page_factor: int,
    contrast: float,
    stars: int | None,
    game: str | None,
) -> PictureRead | None:
    """The board inside a square found on the (shrunk) page, read from the picture's own pixels; None when the
    square holds no grid."""
    side = found.side * page_factor
    margin = 0.04 * side + 2 * page_factor + 4
    top, left = max(0, int(found.top * page_factor - margin)), max(0, int(found.left * page_factor - margin))
    bottom = min(pixels.shape[0], int(found.bottom * page_factor + margin) + 1)
    right = min(pixels.shape[1], int(found.right * page_factor + margin) + 1)
    factor = max(1, int(side // BOARD_SIDE))
    board = Outlines(shrink(pixels[top:bottom, left:right], factor), page.page_tone)
    square = next((s for s in board.squares(contrast) if s.side * factor >= 0.8 * side), None)
    if square is None:
        return None
    profile_x, profile_y = board.profiles(square)
    size, quality = board_size(profile_x, profile_y)
    if quality < GRID_QUALITY:
        return None
    xs = [square.left + x for x in line_positions(profile_x, size)]
    ys = [square.top + y for y in line_positions(profile_y, size)]
    read = _read_regions(board.pixels, board.plane, xs, ys, stars, game)
    where = Square(
        top + square.top * factor,
        top + square.bottom * factor,
        left + square.left * factor,
        left + square.right * factor,
    )
    return PictureRead(read.puzzle, where, read.regions_from, read.stars_given, read.game_given)


def shrink(pixels: Pixels, factor: int) -> Pixels:
    """The picture `factor` times smaller each way, each pixel the mean of the block it stands for (a thin line
    stays, fainter)."""
    if factor <= 1:
        return pixels
    height, width = pixels.shape[0] // factor, pixels.shape[1] // factor
    total = np.zeros((height, width, 3), dtype=np.uint32)
    for i in range(factor):
        for j in range(factor):
            total += pixels[i : height * factor : factor, j : width * factor : factor]
    return (total // (factor * factor)).astype(np.uint8)


class Outlines:
    """A picture's grey tones, its line ridges both ways, and the squares its long lines close."""

    def __init__(self, pixels: Pixels, page_tone: float | None = None) -> None:
        self.pixels = pixels
        self.plane = grey(pixels)
        self.across, self.down = ridges(self.plane, 0), ridges(self.plane, 1)
        # The page's middle tone, unless given: a board cut out of its page is mostly fills.
        self.page_tone = float(np.median(self.plane[::4, ::4])) if page_tone is None else page_tone

    def leans(self) -> tuple[float, float]:
        """How the page's long lines lean (a scan laid askew): the slope of the horizontal ones (rows per column)
        and of the vertical ones (columns per row), both 0 unless they lean MIN_SKEW to MAX_SKEW degrees. A turn
        leans the two by opposite slopes; it is measured on whichever piles up more clearly (the vertical lines of
        a page are mostly text, which piles up alike at any lean)."""
        dark = self.plane < self.page_tone - DARK * FAINT
        across, across_clearness = _lean((self.across > INK * FAINT) | dark)
        down, down_clearness = _lean(((self.down > INK * FAINT) | dark).T)
        slope = across if across_clearness >= down_clearness else -down
        if max(across_clearness, down_clearness) < CLEAR_LEAN or abs(slope) < np.tan(np.radians(MIN_SKEW)):
            return 0.0, 0.0
        return slope, -slope

    def squares(self, contrast: float) -> list[Square]:
        """The squares closed by long lines whose pixels are darker than both sides by INK times `contrast`, or
        darker than the page by DARK times `contrast` (where a border meets another, the pixels on one side are the
        other border's, so the crossing is no ridge, but it is dark)."""
        min_length = max(SMALLEST * MIN_CELL, 0.05 * min(self.plane.shape))
        dark = self.plane < self.page_tone - DARK * contrast
        across = bands((self.across > INK * contrast) | dark, min_length)
        down = bands(((self.down > INK * contrast) | dark).T, min_length)
        return squares(across, down)

    def profiles(self, square: Square) -> tuple[Plane, Plane]:
        """How much each column and each row inside the square looks like a grid line: its darkness against both
        sides plus the colour step across it (where thin lines fade away in a small picture, the fills still change
        there). Each profile runs from one side of the outline to the other."""
        top, bottom, left, right = (round(v) for v in (square.top, square.bottom, square.left, square.right))
        inset = max(2, round(0.01 * square.side))  # past the outline's own thickness
        inside = self.pixels[top + inset : bottom - inset + 1, left + inset : right - inset + 1].astype(np.int16)
        # A profile is a mean across the board: every few rows (columns) give the same within a fraction.
        every = max(1, inside.shape[0] // 200)
        step_x = np.abs(inside[::every, 2:] - inside[::every, :-2]).sum(axis=2).mean(axis=0) / 3
        step_y = np.abs(inside[2:, ::every] - inside[:-2, ::every]).sum(axis=2).mean(axis=1) / 3
        profile_x = self.down[top + inset : bottom - inset + 1, left : right + 1].mean(axis=0)
        profile_y = self.across[top : bottom + 1, left + inset : right - inset + 1].mean(axis=1)
        profile_x[inset + 1 : inset + 1 + step_x.size] += step_x
        profile_y[inset + 1 : inset + 1 + step_y.size] += step_y
        return profile_x, profile_y


def _read_regions(
    pixels: Pixels, plane: Plane, xs: list[float], ys: list[float], stars: int | None, game: str | None
) -> PictureRead:
    size = len(xs) - 1

    def middle(r: int, c: int) -> tuple[slice, slice]:
        w, h = xs[c + 1] - xs[c], ys[r + 1] - ys[r]
        return (
            slice(round(ys[r] + 0.25 * h), max(round(ys[r] + 0.25 * h) + 1, round(ys[r + 1] - 0.25 * h))),
            slice(round(xs[c] + 0.25 * w), max(round(xs[c] + 0.25 * w) + 1, round(xs[c + 1] - 0.25 * w))),
        )

    paper = np.zeros((size, size))
    colours = np.zeros((size, size, 3))
    for r in range(size):
        for c in range(size):
            rows, cols = middle(r, c)
            paper[r, c] = float(np.median(plane[rows, cols]))
            colours[r, c] = _fill(pixels[rows, cols].reshape(-1, 3))
    tones = lab(colours)
    pairs: list[tuple[int, int]] = []
    ink: list[float] = []
    steps: list[float] = []
    for r in range(size):
        for c in range(size):
            for rr, cc in ((r, c + 1), (r + 1, c)):
                if rr < size and cc < size:
                    pairs.append((r * size + c, rr * size + cc))
                    ink.append(_ink_between(plane, paper, xs, ys, (r, c), (rr, cc)))
                    steps.append(float(np.linalg.norm(tones[r, c] - tones[rr, cc])))
    ink_floor = 0.03 * max(ink) + 1e-6
    by_borders = cut(size, pairs, ink, ink_floor, size)
    by_colours = cut(size, pairs, steps, COLOUR_FLOOR, size)
    clear = [(read, name) for read, name in ((by_borders, "borders"), (by_colours, "colours")) if read.stands_out()]
    fits = [(read, name) for read, name in clear if read.pieces == size]
    if not fits:
        # What the picture shows instead: the pieces at each way's own clearest cut, where one stands out.
        natural = [
            (cut(size, pairs, ink, ink_floor, None), "regions between thick borders"),
            (cut(size, pairs, steps, COLOUR_FLOOR, None), "colour groups"),
        ]
        shown = [(read, what) for read, what in natural if read.stands_out() and read.pieces != size]
        if not shown:
            raise PictureError(
                f"the {size}x{size} grid's regions cannot be told apart (no thick borders, no distinct colours)"
            )
        read, what = max(shown, key=lambda way: way[0].gap)
        raise PictureError(f"found {read.pieces} {what} on a {size}x{size} grid, which needs {size} regions")
    chosen, regions_from = max(fits, key=lambda way: way[0].gap)
    stars_given, game_given = stars is not None, game is not None
    if game is None:
        # Coloured fills and no thick borders: LinkedIn's Queens.
        thick = by_borders.pieces == size and by_borders.gap >= THICK_GAP
        board_game = "queens" if regions_from == "colours" and not thick else "starbattle"
    else:
        board_game = game
    if stars is None:
        stars = 1 if board_game == "queens" else usual_stars(size)
    grid = [chosen.labels[r * size : (r + 1) * size] for r in range(size)]
    square = Square(ys[0], ys[-1], xs[0], xs[-1])
    return PictureRead(Puzzle.from_grid(grid, stars, board_game), square, regions_from, stars_given, game_given)


def _fill(pixels: Pixels) -> npt.NDArray[np.float64]:
    """A cell's fill colour: the mean of its pixels near their median (a mark drawn in the cell, a queen or a dot,
    is left out; the mean then smooths JPEG's noise finer than the median's whole steps)."""
    middle = np.median(pixels, axis=0)
    near = np.abs(pixels - middle).sum(axis=1) <= 24
    return pixels[near].mean(axis=0) if near.any() else middle


def usual_stars(size: int) -> int:
    """The star count puzzle sites use for a board of this size: 1 up to 9x9, 2 up to 13x13, 3 from 14x14."""
    return 1 if size <= 9 else 2 if size <= 13 else 3


def _ink_between(
    plane: Plane,
    paper: npt.NDArray[np.float64],
    xs: list[float],
    ys: list[float],
    a: tuple[int, int],
    b: tuple[int, int],
) -> float:
    """How much ink lies on the line between neighbouring cells a and b (b right of or below a): each pixel's
    darkness against its own side's paper, summed across the line, averaged along its middle half."""
    (r, c), (rr, cc) = a, b
    if rr == r:  # the line between them is vertical, at xs[cc]
        line, along, spans, index = xs[cc], (ys[r], ys[r + 1]), (xs[c + 1] - xs[c], xs[cc + 1] - xs[cc]), 1
    else:
        line, along, spans, index = ys[rr], (xs[c], xs[c + 1]), (ys[r + 1] - ys[r], ys[rr + 1] - ys[rr]), 0
    reach = 0.3 * min(spans)
    length = along[1] - along[0]
    first, last = round(along[0] + 0.25 * length), round(along[1] - 0.25 * length) + 1
    before = slice(round(line - reach), round(line) + 1)
    after = slice(round(line) + 1, round(line + reach) + 1)
    if index == 1:
        near, far = plane[first:last, before], plane[first:last, after]
    else:
        near, far = plane[before, first:last].T, plane[after, first:last].T
    darkness = np.clip(paper[a] - near, 0, None).sum(axis=1) + np.clip(paper[b] - far, 0, None).sum(axis=1)
    return float(darkness.mean()) if darkness.size else 0.0
