"""Pictures of real boards that the project's own renderer did not draw, for the picture tests and
bench/bench_picture.py: made at run time (the archive's boards have no licence to be copied as pictures), seeded.

Three kinds of picture, each as a person meets it:

- `puzzlink`: puzz.link's own renderer (npm `pzpr`, run by node from tests/picture_fixtures) draws the board as SVG:
  thick region borders, dashed cell lines, its star count above the board;
- `newspaper`: a printed Star Battle, black on paper: thick region borders, thin solid or dotted cell lines, text
  around it, then scanned (laid up to 1.5 degrees askew, grey, blurred, speckled);
- `linkedin`: a Queens board coloured like LinkedIn's (its palette, as the open-source clones list it), thin lines
  only, rounded outline, on a page of text and buttons.

Each is shown in a page with text around it, screenshot by headless Chromium (Playwright driving the Debian
package), in one of four variants: `page` (the screenshot as it is), `hidpi` (a phone's or a laptop's 2x screen),
`small` (downscaled until a cell is 11 to 16 pixels) and `jpeg` (JPEG at quality 35 to 75).
"""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from chromium import CHROMIUM, QUIET
from PIL import Image, ImageFilter

from starbattle_core.formats import puzzle_to_puzzlink, read_jsonl
from starbattle_core.puzzle import Puzzle

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = REPO / "tests" / "picture_fixtures"
KINDS = ("puzzlink", "newspaper", "linkedin")
VARIANTS = ("page", "hidpi", "small", "jpeg")
# LinkedIn's Queens colours in the order the clones hand them to regions A, B, C, ... (samimsu/queens-game-linkedin,
# src/utils/colors.ts, MIT): the light tones the game shows.
LINKEDIN_COLOURS = (
    "#BBA3E2",
    "#FFC992",
    "#96BEFF",
    "#B3DFA0",
    "#DFDFDF",
    "#FF7B60",
    "#E6F388",
    "#B9B29E",
    "#DFA0BF",
    "#95CBCF",
    "#55EBE2",
    "#FAA889",
    "#91F5AD",
    "#5BBA6F",
    "#C9C9EE",
    "#AF96DC",
    "#FBBF81",
    "#FFFFFF",
)
WORDS = (
    *("puzzle", "daily", "stars", "rows", "columns", "regions", "place", "every", "each", "touch", "diagonal"),
    *("solve", "today", "streak", "share", "results", "friends", "archive", "previous", "next", "level", "timer"),
    *("hint", "undo", "clear", "settings", "help", "about", "games", "news", "feed", "network"),
)


@dataclass(frozen=True)
class Picture:
    """A picture of `puzzle` as a file's bytes (PNG or JPEG), named `kind/variant/id` in the bench's report."""

    kind: str
    variant: str
    puzzle: Puzzle
    data: bytes
    name: str


def shared_boards(relative: str) -> list[Puzzle]:
    path = SHARED_DATA / relative
    if not path.exists():
        # Never skip: a picture test that silently does not run is a check that cannot fail.
        raise FileNotFoundError(f"shared data {path} is missing: clone the project beside shared/")
    return list(read_jsonl(str(path)))


def pzpr_svgs(requests: list[tuple[Puzzle, int]]) -> list[str]:
    """puzz.link's SVG of each (board, cell size in pixels), drawn by pzpr under node in one process."""
    if not (FIXTURES / "node_modules" / "pzpr").is_dir():
        raise FileNotFoundError(f"pzpr is not installed: npm ci --prefix {FIXTURES}")
    lines = "".join(
        json.dumps({"url": puzzle_to_puzzlink(puzzle).split("#")[0], "cell": cell}) + "\n" for puzzle, cell in requests
    )
    done = subprocess.run(
        ["node", str(FIXTURES / "pzpr_svg.js")], input=lines, capture_output=True, text=True, check=True, timeout=300
    )
    svgs: list[str] = json.loads(done.stdout)
    return [svg.split("?>", 1)[-1] for svg in svgs]  # inline in HTML: without the XML declaration


def _text(rng: np.random.Generator, words: int) -> str:
    chosen = [str(WORDS[i]) for i in rng.integers(0, len(WORDS), words)]
    return " ".join(chosen).capitalize() + "."


def page_html(board_html: str, rng: np.random.Generator, background: str) -> str:
    """A page around the board: a heading, paragraphs, a side column of links, buttons under the board."""
    side = "".join(f"<li>{_text(rng, 2)}</li>" for _ in range(int(rng.integers(3, 8))))
    above = "".join(f"<p>{_text(rng, int(rng.integers(8, 30)))}</p>" for _ in range(int(rng.integers(1, 3))))
    below = "".join(f"<button>{_text(rng, 1)}</button>" for _ in range(int(rng.integers(1, 4))))
    font = int(rng.integers(12, 18))
    gap = int(rng.integers(10, 60))
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; padding: {gap}px; background: {background}; font: {font}px sans-serif; color: #222; }}
.wrap {{ display: flex; gap: {gap}px; align-items: flex-start; }}
nav {{ width: 160px; color: #0a66c2; }} main {{ max-width: 900px; }}
button {{ margin: 12px 8px 0 0; padding: 8px 16px; border-radius: 16px; border: 1px solid #0a66c2; background: #fff; }}
.board {{ display: inline-block; margin: {int(rng.integers(4, 30))}px 0; }}
</style></head><body><h1>{_text(rng, 3)}</h1><div class="wrap"><nav><ul>{side}</ul></nav><main>{above}
<div class="board">{board_html}</div><div>{below}</div><p>{_text(rng, 20)}</p></main></div></body></html>"""


def _walls(puzzle: Puzzle) -> Iterator[tuple[int, int, int, int]]:
    """Every region border inside the board as a segment (x0, y0, x1, y1) in cell units."""
    n, regions = puzzle.size, puzzle.regions
    for r in range(n):
        for c in range(n):
            if c + 1 < n and regions[r * n + c] != regions[r * n + c + 1]:
                yield c + 1, r, c + 1, r + 1
            if r + 1 < n and regions[r * n + c] != regions[(r + 1) * n + c]:
                yield c, r + 1, c + 1, r + 1


def newspaper_svg(puzzle: Puzzle, rng: np.random.Generator) -> tuple[str, int]:
    """A printed board (thin cell lines, solid or dotted; thick region borders and outline; black ink) and its cell
    size in pixels."""
    n = puzzle.size
    cell = int(rng.integers(22, 44))
    thin = float(rng.choice([0.8, 1.0, 1.5]))
    thick = float(rng.uniform(2.5, 4.5))
    dotted = ' stroke-dasharray="1 3"' if rng.random() < 0.3 else ""
    pad = 4
    side = n * cell + 2 * pad
    lines = "".join(
        f"M{pad + i * cell} {pad}V{pad + n * cell}M{pad} {pad + i * cell}H{pad + n * cell}" for i in range(1, n)
    )
    walls = "".join(
        f"M{pad + x0 * cell} {pad + y0 * cell}L{pad + x1 * cell} {pad + y1 * cell}" for x0, y0, x1, y1 in _walls(puzzle)
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}">'
        f'<path d="{lines}" stroke="#000" stroke-width="{thin}"{dotted} fill="none"/>'
        f'<path d="{walls}" stroke="#000" stroke-width="{thick:.1f}" stroke-linecap="square" fill="none"/>'
        f'<rect x="{pad}" y="{pad}" width="{n * cell}" height="{n * cell}" fill="none" stroke="#000" '
        f'stroke-width="{thick:.1f}"/></svg>'
    )
    return svg, cell


def linkedin_html(
    puzzle: Puzzle, rng: np.random.Generator, colours: tuple[str, ...] = LINKEDIN_COLOURS
) -> tuple[str, int]:
    """A Queens board as LinkedIn shows it (cells in the region's colour, thin dark lines, a rounded dark outline)
    and its cell size in pixels."""
    n = puzzle.size
    cell = int(rng.integers(26, 56))
    line = float(rng.choice([1.0, 1.0, 1.5]))  # a 0.5-pixel gap rounds to 0 or 1 pixel, and lines go missing
    ink = f"rgba(0, 0, 0, {rng.uniform(0.25, 0.8):.2f})"
    cells = "".join(f'<div style="background: {colours[region % len(colours)]}"></div>' for region in puzzle.regions)
    html = (
        f'<div style="display: grid; grid-template-columns: repeat({n}, {cell}px); grid-auto-rows: {cell}px; '
        f"gap: {line}px; background: {ink}; padding: {line}px; border: {int(rng.integers(2, 4))}px solid #000; "
        f'border-radius: {int(rng.integers(0, 12))}px; overflow: hidden">{cells}</div>'
    )
    return html, cell


class PictureMaker:
    """Screenshots pages in one headless Chromium; use as a context manager."""

    def __enter__(self) -> PictureMaker:
        from playwright.sync_api import sync_playwright

        if not Path(CHROMIUM).exists():
            raise FileNotFoundError(f"{CHROMIUM} is missing: apt-get install chromium")
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET)
        self._pages = {
            scale: self._browser.new_context(
                viewport={"width": 1000, "height": 700}, device_scale_factor=scale
            ).new_page()
            for scale in (1, 2)
        }
        return self

    def __exit__(self, *exc: object) -> None:
        self._browser.close()
        self._playwright.stop()

    def screenshot(self, html: str, scale: int = 1) -> Image.Image:
        page: Any = self._pages[scale]
        page.set_content(html)
        return Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")

    def pictures(self, boards: list[tuple[Puzzle, str, str]], seed: int) -> list[Picture]:
        """A picture of each (board, kind, variant), drawn with the seed's random choices."""
        rng = np.random.default_rng(seed)
        cells = [int(rng.integers(20, 48)) for _ in boards]
        wanted = [(puzzle, cell) for (puzzle, kind, _), cell in zip(boards, cells, strict=True) if kind == "puzzlink"]
        svgs = iter(pzpr_svgs(wanted)) if wanted else iter(())
        made = []
        for index, (puzzle, kind, variant) in enumerate(boards):
            if kind == "puzzlink":
                board, background, cell = next(svgs), "#fff", cells[index]
            elif kind == "newspaper":
                (board, cell), background = newspaper_svg(puzzle, rng), "#fff"
            else:
                (board, cell), background = linkedin_html(puzzle, rng), str(rng.choice(["#fff", "#f4f2ee"]))
            image = self.screenshot(page_html(board, rng, background), 2 if variant == "hidpi" else 1)
            if kind == "newspaper":
                image = scanned(image, rng)
            data = finished(image, variant, cell, rng)
            made.append(Picture(kind, variant, puzzle, data, f"{kind}/{variant}/{puzzle.id or index}"))
        return made


def scanned(image: Image.Image, rng: np.random.Generator) -> Image.Image:
    """A printed page as a scanner gives it: laid up to 1.5 degrees askew, grey paper, ink not quite black, a little
    blur, speckle."""
    turn = float(rng.uniform(-1.5, 1.5))
    image = image.rotate(turn, resample=Image.Resampling.BICUBIC, expand=True, fillcolor="white")
    grey = np.asarray(image.convert("L"), dtype=np.float64)
    paper, ink = rng.uniform(215, 245), rng.uniform(20, 60)
    grey = ink + (paper - ink) * grey / 255.0
    grey += rng.normal(0.0, rng.uniform(2.0, 6.0), grey.shape)
    blurred = Image.fromarray(np.clip(grey, 0, 255).astype(np.uint8)).filter(
        ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9))
    )
    return blurred.convert("RGB")


def finished(image: Image.Image, variant: str, cell: int, rng: np.random.Generator) -> bytes:
    """The picture's file: PNG, except `jpeg`; `small` shrinks it until a cell is 11 to 16 pixels."""
    if variant == "small":
        factor = min(1.0, rng.uniform(11, 16) / cell)
        size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        image = image.resize(size, Image.Resampling.BILINEAR if rng.random() < 0.5 else Image.Resampling.LANCZOS)
    out = io.BytesIO()
    if variant == "jpeg" or (variant == "small" and rng.random() < 0.5):
        image.save(out, "JPEG", quality=int(rng.integers(35, 76)))
    else:
        image.save(out, "PNG")
    return out.getvalue()


@contextmanager
def picture_maker() -> Iterator[PictureMaker]:
    with PictureMaker() as maker:
        yield maker
