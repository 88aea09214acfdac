"""The pictures of docs/web.md: the solver page with a hint, a Queens board of a day page, the day page on a phone.

A test day (tests/site_day.py: real boards from ../shared/data, graded and published) served by `starbattle web`,
photographed by headless Chromium (the Debian package) through Playwright.

    python docs/make_web_screenshots.py            # writes docs/images/solve.png, queens-day.png, phone.png
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chromium import CHROMIUM, QUIET  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from site_day import DAY, store_day, write_config  # noqa: E402
from web_server import web_server  # noqa: E402

from starbattle_core.formats import puzzle_to_text, read_jsonl  # noqa: E402
from starbattle_store import day_boards  # noqa: E402
from starbattle_store.db import open_database  # noqa: E402
from starbattle_web.site import publish_day  # noqa: E402

IMAGES = REPO / "docs" / "images"


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_config(root)
        store_day(root)
        publish_day(root / "site", DAY, day_boards(open_database(f"sqlite:///{root / 'db' / 'starbattle.db'}"), DAY))
        with web_server(root / "web", root / "site") as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET)
            page = browser.new_page(viewport={"width": 900, "height": 1100})
            puzzle = next(read_jsonl(str(REPO.parent / "shared" / "data" / "starbattle" / "handmade.jsonl")))
            page.goto(server.url + "solve")
            page.locator("#puzzle-input").fill(puzzle_to_text(dataclasses.replace(puzzle, solution=None)))
            page.locator("#load").click()
            page.wait_for_selector("#board svg rect.cell")
            for r, c in ((0, 3), (0, 3), (5, 5)):
                page.locator(f"#board rect.cell[data-r='{r}'][data-c='{c}']").click()
            page.locator("#hint").click()
            page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('Hint')")
            page.screenshot(path=str(IMAGES / "solve.png"), clip={"x": 0, "y": 0, "width": 900, "height": 1040})

            page.goto(server.url + f"{DAY.isoformat()}/index.html")
            section = page.locator("#board-5")
            published = json.loads((root / "site" / DAY.isoformat() / "boards.json").read_text(encoding="utf-8"))
            queen = published["boards"][5]["solution"][4]
            for r, c in ((0, 0), (queen[0], queen[1]), (queen[0], queen[1])):  # a dot, then a right queen
                section.locator(f".play rect.cell[data-r='{r}'][data-c='{c}']").click()
            section.locator("button.hint").click()
            section.locator("details.walkthrough").evaluate("d => d.remove()")
            section.screenshot(path=str(IMAGES / "queens-day.png"))

            phone = browser.new_page(viewport={"width": 390, "height": 844})
            phone.goto(server.url + f"{DAY.isoformat()}/index.html")
            phone.screenshot(path=str(IMAGES / "phone.png"))
            browser.close()
    for name in ("solve.png", "queens-day.png", "phone.png"):
        sys.stdout.write(f"{IMAGES / name}: {(IMAGES / name).stat().st_size:,} bytes\n")


if __name__ == "__main__":
    main()
