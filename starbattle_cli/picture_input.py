"""A picture file to a board: decoding (Pillow) with its limits, then the engine's reading and the solution count.

`read_board_picture` is what both `starbattle from-image` and the web page's `POST /api/from-image` call: bytes in,
the board and one line saying what was read, or an InputError whose one line says why not.
"""

from __future__ import annotations

import io
import warnings
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from starbattle_core.counter import count_solutions
from starbattle_core.picture import PictureRead, Pixels, read_board
from starbattle_core.puzzle import GAMES, InputError, Puzzle

MAX_PIXELS = 25_000_000  # no picture larger is decoded (a page screenshot on a 4K screen is 8.3 million)
MAX_PICTURE_BYTES = 32 * 1024 * 1024
FORMATS = ("PNG", "JPEG", "WEBP")
# The count tells a misread: a wrong cell moved between regions rarely leaves one solution. Counted this far, the
# number says how far off the board is, at little cost (the counter finds a loose board's solutions quickly).
COUNT_LIMIT = 10


class BoardPicture(NamedTuple):
    """The board a picture held and one line saying what was read and how many solutions it has."""

    puzzle: Puzzle
    description: str
    read: PictureRead
    solutions: int  # how many, counted up to COUNT_LIMIT
    exact: bool  # False when the count stopped at COUNT_LIMIT


def decode_picture(data: bytes, name: str = "the picture") -> Pixels:
    """The RGB pixels of a PNG, JPEG or WebP file, upright (a phone's EXIF turn applied), transparency on white.

    Refused with one line: what is not such a picture, what is cut short or damaged, and anything over MAX_PIXELS
    (checked from the header, before any pixel is decoded)."""
    if not data:
        raise InputError(f"{name} is empty")
    if len(data) > MAX_PICTURE_BYTES:
        raise InputError(f"{name} is larger than {MAX_PICTURE_BYTES // (1024 * 1024)} MiB, the limit for a picture")
    too_large = f"more than the {MAX_PIXELS // 1_000_000} million read at most"
    try:
        with warnings.catch_warnings():
            # Pillow warns of (and past twice that, refuses) a picture of more than 89 million pixels as it opens it.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=FORMATS)
    except UnidentifiedImageError:
        raise InputError(f"{name} is not a PNG, JPEG or WebP picture") from None
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise InputError(f"{name} has far {too_large}") from None
    except (OSError, SyntaxError, ValueError) as error:
        raise InputError(f"{name} is not a readable picture ({error})") from None
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise InputError(f"{name} is {width}x{height} pixels, {too_large}")
    try:
        image.load()
        upright = ImageOps.exif_transpose(image)
        if upright.mode in ("RGBA", "LA", "PA") or (upright.mode == "P" and "transparency" in upright.info):
            paper = Image.new("RGBA", upright.size, "white")
            upright = Image.alpha_composite(paper, upright.convert("RGBA"))
        pixels = np.asarray(upright.convert("RGB"), dtype=np.uint8)
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        # Pillow says "image file is truncated" for a file cut short, and names the damage otherwise.
        raise InputError(f"{name} is damaged or cut short ({error})") from None
    return pixels


def read_board_picture(
    data: bytes, stars: int | None = None, game: str | None = None, name: str = "the picture"
) -> BoardPicture:
    """The board in a picture file's bytes; `stars` and `game` as the user gave them (None: assumed and said so).

    Raises InputError (one line, naming `name`) for every refusal: not a picture, damaged, too large, no board,
    regions that cannot be made N connected regions."""
    if game is not None and game not in GAMES:
        raise InputError(f"--game {game!r}: expected one of {', '.join(GAMES)}")
    if stars is not None and stars < 1:
        raise InputError(f"--stars must be at least 1, not {stars}")
    pixels = decode_picture(data, name)
    try:
        read = read_board(pixels, stars, game)
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    puzzle = read.puzzle
    result = count_solutions(puzzle, limit=COUNT_LIMIT)
    line = f"{name}: {describe(read)}; {solutions_phrase(result.count, result.exact)}"
    return BoardPicture(puzzle, line, read, result.count, result.exact)


def describe(read: PictureRead) -> str:
    """What was read, in words: size, how the regions were found, the game and star count and where they came from."""
    puzzle = read.puzzle
    n = puzzle.size
    how = "thick borders" if read.regions_from == "borders" else "colours"
    if puzzle.game == "queens":
        rules = "Queens, 1 queen per row, column and region"
        origin = "" if read.game_given else " (assumed from its colours and thin lines)"
    else:
        star_word = "star" if puzzle.stars == 1 else "stars"
        rules = f"Star Battle, {puzzle.stars} {star_word} per row, column and region"
        origin = " (given)" if read.stars_given else f" (assumed: the usual for {n}x{n})"
    return f"read a {n}x{n} board, regions from {how}; {rules}{origin}"


def solutions_phrase(count: int, exact: bool) -> str:
    """The count as the line says it; anything but one solution asks for a look at the picture."""
    if count == 1 and exact:
        return "unique solution"
    if count == 0:
        return "no solution: compare the board with the picture, and the star count"
    how_many = f"{count} solutions" if exact else f"at least {count} solutions"
    return f"{how_many}: compare the board with the picture, and the star count"
