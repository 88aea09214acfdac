"""Take the README's picture of a day page: a published date opened in headless Chromium, the top of the page.

    uv run starbattle daily --date 2026-12-01      # make a day (the shipped config publishes it to data/site)
    uv run python docs/make_screenshot.py --date 2026-12-01

Playwright drives the system's Chromium (Debian's `chromium`, as the browser tests do), never a browser download;
every request that is not a file of the site is refused, as on a page a player opens from disk.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chromium import CHROMIUM, QUIET  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def screenshot(site: Path, date: str, out: Path, width: int, height: int) -> None:
    page_path = site / date / "index.html"
    if not page_path.exists():
        raise SystemExit(
            f"error: {page_path} does not exist: publish it first (uv run starbattle publish --date {date})"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET)
        page = browser.new_page(viewport={"width": width, "height": height})

        def only_the_site(route: Any) -> None:
            if route.request.url.startswith(site.resolve().as_uri() + "/"):
                route.continue_()
            else:
                route.abort()

        page.route("**/*", only_the_site)
        page.goto(page_path.resolve().as_uri())
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--date", required=True, help="the published date (YYYY-MM-DD)")
    parser.add_argument("--site", type=Path, default=REPO / "data" / "site", help="the site folder (default data/site)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images" / "day.png")
    parser.add_argument("--width", type=int, default=900, help="the window's width in CSS pixels")
    parser.add_argument("--height", type=int, default=800, help="the window's height: the part of the page shown")
    args = parser.parse_args()
    screenshot(args.site, args.date, args.out, args.width, args.height)
    print(f"{args.out}: {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
