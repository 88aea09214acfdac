"""A contact sheet: N real and N generated boards of one kind on one page, drawn by the project's renderer, as PNG.

    python bench/contact_sheet.py --game queens --size 9 --count 12 --out queens.png
    python bench/contact_sheet.py --game starbattle --size 10 --stars 2 --out sb.png --blind 7
    python bench/contact_sheet.py --game queens --size 9 --source gated --count 24 --out q.png
    python bench/contact_sheet.py --game queens --size 9 --mode organic --first 2100 --blind 3 --out organic.png

Real boards: Star Battle from the archive and the hand-made file, Queens from LinkedIn's levels (../shared/data),
a seeded sample of those of the size. Generated: `accepted` (the default) are published boards, `generate` on the
slot's four (Queens: three) bands in turn, seeds 0, 1, 2, ...; `grown` are the maps those published boards grew
from, before repair (their candidates drawn and grown again); `gated` are growths that passed the looks gate and
the give-away rule, before repair and grading (seconds instead of minutes); `--first` starts the seeds elsewhere,
for boards nobody has looked at yet; `--mode` (Queens) keeps, on both sides, only the maps that designs.design_of
names in that design mode. Labelled, the page has one block per side; with `--blind SEED` the boards are
shuffled into one numbered grid and the key (which numbers are generated, and for Queens the design mode each was
drawn in) is printed, so a reader can try to pick them out before reading it (docs/engine.md has what readers who
had not seen the boards picked).

The page is drawn with starbattle_core.svg.board_svg (no letters or labels: the regions alone) and photographed by
the system's Chromium through Playwright (`--html` keeps the page too).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import BANDS, GeneratorConfig, Slot, generate  # noqa: E402
from starbattle_core.generator.designs import MODES, design_of  # noqa: E402
from starbattle_core.generator.funnel import grow_candidate_again  # noqa: E402
from starbattle_core.generator.growth import grow_gated  # noqa: E402
from starbattle_core.generator.looks import draw_key  # noqa: E402
from starbattle_core.layouts import layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import InputError, Puzzle  # noqa: E402
from starbattle_core.svg import board_svg  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL_FILES = {
    "starbattle": ("starbattle/archive.jsonl", "starbattle/handmade.jsonl"),
    "queens": ("queens/linkedin.jsonl",),
}
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def fail(message: str) -> NoReturn:
    """Bad input: one line naming the problem, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def real_sample(game: str, size: int, stars: int, count: int, seed: int, mode: str | None = None) -> list[Puzzle]:
    boards = [
        p
        for name in REAL_FILES[game]
        for p in read_jsonl(str(SHARED / name))
        if (p.size, p.stars) == (size, stars) and (mode is None or design_of(p)[0] == mode)
    ]
    if not boards:
        fail(f"no real {draw_key(game, size, stars)} board{f' in {mode} mode' if mode else ''} in {SHARED}")
    return random.Random(seed).sample(boards, min(count, len(boards)))


def generated_sample(
    game: str, size: int, stars: int, count: int, source: str, first: int = 0, mode: str | None = None
) -> list[tuple[Puzzle, str]]:
    """The generated boards with the design mode each Queens map was drawn in ("" for Star Battle)."""
    bands = [band for band in BANDS if not (game == "queens" and band == "expert")]
    config = GeneratorConfig(max_candidates=300)
    boards: list[tuple[Puzzle, str]] = []
    seed = first
    while len(boards) < count and seed < first + 20 * count:
        slot = Slot(game, size, stars, bands[seed % len(bands)])
        growth = board = None
        if source == "gated":
            layout = layout_to_cells(sample_layouts(size, stars, 1, np.random.default_rng([seed, 12]))[0])
            growth = grow_gated(slot, layout, random.Random(seed), config)
        else:
            board = generate(slot, seed, 300.0, config).board
            if board is not None and (source == "grown" or game == "queens"):  # its map before repair, and mode
                growth = grow_candidate_again(slot, seed, board.candidate, config)
        made = board.puzzle if board is not None and source == "accepted" else None
        if source != "accepted" and growth is not None and growth.regions is not None:
            # lettered, hence coloured, as published boards are
            made = Puzzle(size, stars, growth.regions, game, solution=growth.layout).in_reading_order()
        if made is not None and (mode is None or design_of(made)[0] == mode):
            boards.append((made, growth.mode if growth is not None else ""))  # Star Battle growth has no mode
        print(f"generated {len(boards)}/{count}", file=sys.stderr, flush=True)
        seed += 1
    return boards


def page(blocks: list[tuple[str, list[tuple[str, Puzzle]]]], cell: int) -> str:
    """One HTML page: a heading and a wrapping row of numbered boards per block."""
    parts = [
        "<!doctype html><html><body style='margin:12px;font:13px sans-serif;background:#fff;color:#1a1a1a'>",
    ]
    for heading, boards in blocks:
        parts.append(f"<h3 style='margin:8px 0'>{heading}</h3><div style='display:flex;flex-wrap:wrap;gap:10px'>")
        for index, (caption, board) in enumerate(boards):
            svg = board_svg(board, cell=cell, labels=False, letters=False, id_prefix=f"{heading[:1]}{index}")
            parts.append(f"<figure style='margin:0;text-align:center'>{svg}<figcaption>{caption}</figcaption></figure>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def photograph(html: str, out: Path, width: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        view = browser.new_page(viewport={"width": width, "height": 600})
        view.set_content(html)
        out.parent.mkdir(parents=True, exist_ok=True)
        view.screenshot(path=str(out), full_page=True)
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=("starbattle", "queens"), required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--stars", type=int, default=1)
    parser.add_argument("--count", type=int, default=12, help="boards of each side")
    parser.add_argument("--source", choices=("accepted", "grown", "gated"), default="accepted")
    parser.add_argument("--blind", type=int, default=None, metavar="SEED", help="shuffle, unlabelled; print the key")
    parser.add_argument("--seed", type=int, default=1, help="which real boards are sampled")
    parser.add_argument("--first", type=int, default=0, help="the first generator seed (a sheet of boards unseen)")
    parser.add_argument("--mode", choices=MODES, default=None, help="Queens: only maps design_of names so, both sides")
    parser.add_argument("--cell", type=int, default=16, help="pixels per cell")
    parser.add_argument("--width", type=int, default=1200, help="page width in CSS pixels")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--html", type=Path, default=None, help="also keep the page as HTML here")
    args = parser.parse_args()
    try:
        Slot(args.game, args.size, args.stars, "medium")
    except InputError as error:
        fail(str(error))
    if args.count < 1:
        fail("--count must be at least 1")
    if args.first < 0:
        fail("--first must be 0 or more")
    if args.mode and args.game != "queens":
        fail("--mode: design modes are Queens maps' (give --game queens)")
    real = real_sample(args.game, args.size, args.stars, args.count, args.seed, args.mode)
    made = generated_sample(args.game, args.size, args.stars, len(real), args.source, args.first, args.mode)
    kind = draw_key(args.game, args.size, args.stars)
    if args.blind is None:
        blocks = [
            (f"real: {kind} ({len(real)})", [(str(i + 1), p) for i, p in enumerate(real)]),
            (f"generated, {args.source}: {kind} ({len(made)})", [(str(i + 1), p) for i, (p, _) in enumerate(made)]),
        ]
    else:
        mixed = [(True, p, "") for p in real] + [(False, p, drawn) for p, drawn in made]
        random.Random(args.blind).shuffle(mixed)
        blocks = [(f"{kind}: real and generated, shuffled", [(str(i + 1), p) for i, (_, p, _) in enumerate(mixed)])]
        key = [(i + 1, drawn) for i, (is_real, _, drawn) in enumerate(mixed) if not is_real]
        print(f"key: generated are {', '.join(str(number) for number, _ in key)}")
        if args.game == "queens":
            print(f"drawn as: {', '.join(f'{number} {drawn}' for number, drawn in key)}")
    html = page(blocks, args.cell)
    if args.html is not None:
        args.html.write_text(html, encoding="utf-8")
    photograph(html, args.out, args.width)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
