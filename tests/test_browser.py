"""The published page in a real browser: headless Chromium (the Debian package, driven by Playwright) opens the
site from disk, with every request that is not a file of the site refused and counted.

A player's clicks place dots and stars; Hint outlines the cells of the first step of the stored solve path not yet
made; Check and Hint name a wrong mark; Reveal places the solution; the walkthrough draws every step with its
cells; the print view has one board per page and no controls. Screenshots go to $STARBATTLE_SCREENSHOTS when set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright
from site_day import DAY, store_day, write_config

from flows.db import open_database
from flows.site import publish_day
from flows.store import day_boards

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# No update checks, no sync, no first-run pages: the browser makes no request of its own.
QUIET = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CHAIN = [
    {"code": "assume", "stars": [[0, 0]], "empties": [], "sentence": "suppose R1C1 is a star"},
    {
        "code": "SN",
        "stars": [],
        "empties": [[0, 1], [1, 0], [1, 1]],
        "sentence": "then the cells touching it are empty",
    },
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seven-board day published to a folder, its first step given a two-link chain."""
    root = tmp_path_factory.mktemp("browser")
    write_config(root)
    store_day(root)
    boards = day_boards(open_database(f"sqlite:///{root / 'db' / 'starbattle.db'}"), DAY)
    boards[0].steps["steps"][0]["chain"] = CHAIN
    publish_day(root / "site", DAY, boards)
    return root / "site"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        # Never skip: .ci/run installs the Debian package; without it this test has nothing to run on.
        raise FileNotFoundError(f"{CHROMIUM} is missing: apt-get install chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, site: Path) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 1400})
    refused: list[str] = []

    def only_the_site(route: Any) -> None:
        url = route.request.url
        if url.startswith(site.as_uri() + "/"):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    context.route("**/*", only_the_site)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    tab.goto((site / DAY.isoformat() / "index.html").as_uri())
    yield tab
    shoot(tab, "last")
    context.close()
    assert errors == [] and refused == [], (errors, refused)


def shoot(tab: Any, name: str, selector: str | None = None) -> None:
    folder = os.environ.get("STARBATTLE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        target = tab.locator(selector) if selector else tab
        target.screenshot(path=str(Path(folder) / f"{name}.png"))


def record(site: Path) -> dict[str, Any]:
    return json.loads((site / DAY.isoformat() / "boards.json").read_text())


def cell(tab: Any, board: int, r: int, c: int) -> Any:
    return tab.locator(f"#board-{board} .play rect.cell[data-r='{r}'][data-c='{c}']")


def outlined(tab: Any, selector: str) -> set[tuple[int, int]]:
    cells = tab.eval_on_selector_all(
        selector, "rects => rects.map(rect => [Number(rect.dataset.r), Number(rect.dataset.c)])"
    )
    return {(r, c) for r, c in cells}


def step_cells(step: dict[str, Any]) -> set[tuple[int, int]]:
    return {tuple(rc) for rc in step["stars"] + step["empties"]}  # type: ignore[misc]


def test_the_page_renders_seven_boards(page: Any, site: Path) -> None:
    boards = record(site)["boards"]
    assert page.locator("section.board").count() == 7
    for index, board in enumerate(boards):
        assert page.locator(f"#board-{index} .play svg rect.cell").count() == board["size"] ** 2
        assert page.locator(f"#board-{index} .play svg").is_visible()
        assert page.locator(f"#board-{index} .puzzlink a").get_attribute("href") == board["puzzlink"]
    shoot(page, "day")


def test_clicks_cycle_dot_star_empty(page: Any) -> None:
    target = cell(page, 1, 3, 4)
    marks = "#board-1 g.play-marks"
    target.click()
    assert outlined(page, f"{marks} .dot") == {(3, 4)} and page.locator(f"{marks} .star").count() == 0
    target.click()
    assert outlined(page, f"{marks} .star") == {(3, 4)} and page.locator(f"{marks} .dot").count() == 0
    shoot(page, "star", "#board-1")
    target.click()
    assert page.locator(f"{marks} > *").count() == 0


def test_hint_outlines_the_next_step_of_the_solve_path(page: Any, site: Path) -> None:
    steps = record(site)["boards"][2]["steps"]
    hint = page.locator("#board-2 button.hint")
    hint.click()
    assert outlined(page, "#board-2 g.play-highlight rect.hint") == step_cells(steps[0])
    assert steps[0]["sentence"] in page.locator("#board-2 .message").text_content()
    # Make the first two steps the way a player does (one click a dot, two a star): the hint moves to the third.
    for step in steps[:2]:
        for r, c in step["empties"]:
            cell(page, 2, r, c).click()
        for r, c in step["stars"]:
            cell(page, 2, r, c).click()
            cell(page, 2, r, c).click()
    hint.click()
    assert outlined(page, "#board-2 g.play-highlight rect.hint") == step_cells(steps[2])
    assert f"Step 3 of {len(steps)}" in page.locator("#board-2 .message").text_content()
    shoot(page, "hint", "#board-2 .play")


def test_a_wrong_mark_is_named_and_reveal_solves(page: Any, site: Path) -> None:
    board = record(site)["boards"][4]
    solution = {tuple(rc) for rc in board["solution"]}
    r, c = next((r, c) for r in range(board["size"]) for c in range(board["size"]) if (r, c) not in solution)
    cell(page, 4, r, c).click()
    cell(page, 4, r, c).click()  # a star where the solution has none
    page.locator("#board-4 button.check").click()
    assert outlined(page, "#board-4 g.play-highlight rect.wrong") == {(r, c)}
    assert f"R{r + 1}C{c + 1}" in page.locator("#board-4 .message").text_content()
    page.locator("#board-4 button.hint").click()
    assert "No step follows from a wrong mark" in page.locator("#board-4 .message").text_content()
    page.locator("#board-4 button.reveal").click()
    assert outlined(page, "#board-4 g.play-marks .star") == solution
    page.locator("#board-4 button.check").click()
    assert page.locator("#board-4 .message").text_content() == "Solved: every star is in place."


def test_the_walkthrough_shows_every_step_with_its_cells(page: Any, site: Path) -> None:
    # One round trip per board (not per step): what each step's picture outlines and which stars it shows.
    read = """items => items.map(item => {
        const pic = item.querySelector(':scope > .pic');
        const cells = selector => Array.from(
            pic.querySelectorAll(selector), e => [Number(e.dataset.r), Number(e.dataset.c)]);
        return {pictures: pic.querySelectorAll('svg').length, outlined: cells('g.play-highlight rect'),
                stars: cells('g.play-marks .star'), text: item.textContent};
    })"""
    for index, board in enumerate(record(site)["boards"]):
        page.locator(f"#board-{index} details.walkthrough summary").click()
        shown = page.eval_on_selector_all(f"#board-{index} li.step", read)
        assert len(shown) == len(board["steps"]) > 0
        for position, (step, drawn) in enumerate(zip(board["steps"], shown, strict=True)):
            assert drawn["pictures"] == 1 and step["sentence"] in drawn["text"]
            assert {tuple(rc) for rc in drawn["outlined"]} == step_cells(step)
            # The picture shows the board before the step: the stars of the earlier steps.
            before = {tuple(rc) for earlier in board["steps"][:position] for rc in earlier["stars"]}
            assert {tuple(rc) for rc in drawn["stars"]} == before
    links = page.locator("#board-0 li.step[data-step='0'] li.link")
    assert links.count() == len(CHAIN)
    for position, link in enumerate(CHAIN):
        picture = f"#board-0 li.step[data-step='0'] li.link[data-link='{position}'] .pic"
        assert outlined(page, f"{picture} g.play-highlight rect") == step_cells(link)
        assert link["sentence"] in links.nth(position).text_content()
    shoot(page, "walkthrough", "#board-0 details.walkthrough")


def test_print_view_has_one_board_per_page_and_no_controls(page: Any) -> None:
    page.emulate_media(media="print")
    assert not page.locator("#board-0 .controls").is_visible()
    assert not page.locator("#board-0 details.walkthrough").is_visible()
    assert not page.locator("#board-0 .puzzlink").is_visible()
    assert page.locator("#board-0 .play svg").is_visible()
    breaks = page.eval_on_selector_all("section.board", "s => s.map(e => getComputedStyle(e).breakAfter)")
    assert breaks == ["page"] * 6 + ["auto"]
    pdf = page.pdf(format="A4")
    assert len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf)) == 7


def test_the_archive_opens_from_disk_and_links_the_day(page: Any, site: Path) -> None:
    page.goto((site / "index.html").as_uri())
    page.locator(f"a[href='{DAY.isoformat()}/index.html']").click()
    # The click starts a navigation; count once the day page has loaded, not while it is still being parsed.
    page.wait_for_url(f"**/{DAY.isoformat()}/index.html")
    page.wait_for_load_state("load")
    assert page.locator("section.board").count() == 7
