"""The published page and the solver page in a real browser: headless Chromium (the Debian package, driven by
Playwright) opens the site from disk, with every request that is not a file of the site refused and counted, and
then through `starbattle web` (a process of its own), the solver page too.

A player's clicks place dots and stars (crowns on Queens boards, whose every sentence, button and heading says
queen); the keyboard does too; undo and redo; the marks and the time survive a reload; the timer pauses while the
page is hidden; Hint outlines the cells of the first step of the stored solve path not yet made; Check and Hint name
a wrong mark; Reveal places the solution; the walkthrough draws every step with its cells; every board shows its
region letters; a phone-wide screen holds the board; the print view has one board per page and no controls. On
the solver page a pasted or painted board is drawn by the server's renderer, and Check, Hint, Explain and Solve
answer what the API does. Screenshots go to $STARBATTLE_SCREENSHOTS when set.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import CHROMIUM, QUIET
from conftest import shared_file
from playwright.sync_api import sync_playwright
from site_day import DAY, store_day, write_config
from web_server import WebServer, web_server

from starbattle_core.formats import parse_puzzles, puzzle_to_json, puzzle_to_puzzlink, puzzle_to_text, read_jsonl
from starbattle_core.puzzle import cells_to_coords
from starbattle_store import day_boards
from starbattle_store.db import open_database
from starbattle_web.site import publish_day

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
    assert outlined(page, "#board-2 .play rect.cell.hint") == step_cells(steps[0])
    assert steps[0]["sentence"] in page.locator("#board-2 .message").text_content()
    # Make the first two steps the way a player does (one click a dot, two a star): the hint moves to the third.
    for step in steps[:2]:
        for r, c in step["empties"]:
            cell(page, 2, r, c).click()
        for r, c in step["stars"]:
            cell(page, 2, r, c).click()
            cell(page, 2, r, c).click()
    hint.click()
    assert outlined(page, "#board-2 .play rect.cell.hint") == step_cells(steps[2])
    assert f"Step 3 of {len(steps)}" in page.locator("#board-2 .message").text_content()
    shoot(page, "hint", "#board-2 .play")


def test_a_wrong_mark_is_named_and_reveal_solves(page: Any, site: Path) -> None:
    board = record(site)["boards"][4]
    solution = {tuple(rc) for rc in board["solution"]}
    r, c = next((r, c) for r in range(board["size"]) for c in range(board["size"]) if (r, c) not in solution)
    cell(page, 4, r, c).click()
    cell(page, 4, r, c).click()  # a star where the solution has none
    page.locator("#board-4 button.check").click()
    assert outlined(page, "#board-4 .play rect.cell.wrong") == {(r, c)}
    assert f"R{r + 1}C{c + 1}" in page.locator("#board-4 .message").text_content()
    page.locator("#board-4 button.hint").click()
    assert "No step follows from a wrong mark" in page.locator("#board-4 .message").text_content()
    page.locator("#board-4 button.reveal").click()
    assert outlined(page, "#board-4 g.play-marks .piece") == solution
    page.locator("#board-4 button.check").click()
    assert page.locator("#board-4 .message").text_content() == "Solved: every queen is in place."


def test_the_walkthrough_shows_every_step_with_its_cells(page: Any, site: Path) -> None:
    # One round trip per board (not per step): what each step's picture outlines and which stars it shows.
    read = """items => items.map(item => {
        const pic = item.querySelector(':scope > .pic');
        const cells = selector => Array.from(
            pic.querySelectorAll(selector), e => [Number(e.dataset.r), Number(e.dataset.c)]);
        return {pictures: pic.querySelectorAll('svg').length, outlined: cells('g.play-highlight rect'),
                stars: cells('g.play-marks .piece'), text: item.textContent};
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


def marks_of(tab: Any, scope: str, kind: str) -> set[tuple[int, int]]:
    return outlined(tab, f"{scope} g.play-marks .{kind}")


def test_every_board_shows_its_region_letters_and_queens_boards_say_queen(page: Any, site: Path) -> None:
    for index, board in enumerate(record(site)["boards"]):
        letters = page.eval_on_selector_all(
            f"#board-{index} .play text.region-letter", "ts => ts.map(t => t.textContent)"
        )
        assert sorted(letters) == [chr(ord("A") + i) for i in range(board["size"])]
        section = page.locator(f"#board-{index}")
        words = " ".join(
            section.locator(selector).first.text_content() for selector in ("h2", ".rules", ".controls", ".message")
        ).lower()
        queens = board["game"] == "queens"
        assert ("queen" in words) == queens and ("star" in words) != queens, words
        assert page.locator(f"#board-{index} .play svg").get_attribute("data-piece") == ("queen" if queens else "star")
    cell(page, 5, 2, 2).click()
    cell(page, 5, 2, 2).click()
    assert marks_of(page, "#board-5", "crown") == {(2, 2)} and page.locator("#board-5 g.play-marks .star").count() == 0
    shoot(page, "queens", "#board-5")


def test_undo_redo_keyboard_and_progress_kept_across_a_reload(page: Any) -> None:
    for _ in range(2):
        cell(page, 1, 0, 0).click()  # a star
    cell(page, 1, 5, 5).click()  # a dot
    page.locator("#board-1 button.undo").click()
    assert marks_of(page, "#board-1", "dot") == set() and marks_of(page, "#board-1", "star") == {(0, 0)}
    page.locator("#board-1 button.redo").click()
    assert marks_of(page, "#board-1", "dot") == {(5, 5)}
    # The keyboard: the cursor starts on the last cell clicked; arrows move it, "." dots, "s" stars, Ctrl+Z undoes.
    page.locator("#board-1 .play").focus()
    for key in ("ArrowDown", "ArrowRight", ".", "ArrowRight", "s"):
        page.keyboard.press(key)
    assert marks_of(page, "#board-1", "dot") == {(5, 5), (6, 6)} and (6, 7) in marks_of(page, "#board-1", "star")
    page.keyboard.press("Control+z")
    assert (6, 7) not in marks_of(page, "#board-1", "star")
    # The timer runs while the player plays, and pauses while the page is hidden.
    timer = page.locator("#board-1 .timer")
    assert "paused" not in (timer.get_attribute("class") or "")
    page.evaluate(
        """() => { Object.defineProperty(document, 'hidden', {value: true, configurable: true});
                   document.dispatchEvent(new Event('visibilitychange')); }"""
    )
    assert "paused" in (timer.get_attribute("class") or "")
    page.reload()
    assert marks_of(page, "#board-1", "star") == {(0, 0)} and marks_of(page, "#board-1", "dot") == {(5, 5), (6, 6)}
    assert "as you left them" in page.locator("#board-1 .message").text_content()


def test_a_phone_wide_screen_holds_the_board(browser: Any, site: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, has_touch=True)
    tab = context.new_page()
    tab.goto((site / DAY.isoformat() / "index.html").as_uri())
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    for index in range(7):
        box = tab.locator(f"#board-{index} .play svg").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    tab.locator("#board-0 .play rect.cell[data-r='0'][data-c='0']").tap()
    assert outlined(tab, "#board-0 g.play-marks .dot") == {(0, 0)}
    shoot(tab, "phone")
    context.close()


# --- through `starbattle web`: the same site served, and the solver page -------------------------------------------


@pytest.fixture(scope="module")
def served(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with web_server(tmp_path_factory.mktemp("served"), site) as running:
        yield running


@pytest.fixture
def solver(browser: Any, served: WebServer) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1000, "height": 1300})
    refused: list[str] = []

    def only_the_server(route: Any) -> None:
        if route.request.url.startswith(served.url):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_server)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    tab.goto(served.url + "solve")
    yield tab
    context.close()
    assert errors == [] and refused == [], (errors, refused)


def load_board(tab: Any, text: str) -> None:
    tab.locator("#puzzle-input").fill(text)
    tab.locator("#load").click()
    tab.wait_for_selector("#board svg rect.cell")


def wait_for_message(tab: Any, words: str) -> str:
    tab.wait_for_function("words => document.querySelector('#message').textContent.includes(words)", arg=words)
    return tab.locator("#message").text_content()


def test_the_solver_page_checks_hints_explains_and_solves_a_pasted_board(solver: Any, served: WebServer) -> None:
    puzzle = next(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
    load_board(solver, puzzle_to_text(dataclasses.replace(puzzle, solution=None)))
    n = puzzle.size
    assert solver.locator("#board rect.cell").count() == n * n
    assert solver.locator("#board text.region-letter").count() == n
    solution = [list(rc) for rc in cells_to_coords(puzzle.solution, n)]
    off = next([r, c] for r in range(n) for c in range(n) if [r, c] not in solution)
    # A right star: the hint is the API's next step from it, its cells outlined on the board.
    for _ in range(2):
        solver.locator(f"#board rect.cell[data-r='{solution[0][0]}'][data-c='{solution[0][1]}']").click()
    solver.locator("#hint").click()
    expected = served.post("hint", {"puzzle": puzzle_to_json(puzzle), "marks": {"stars": solution[:1]}})[1]
    wait_for_message(solver, expected["sentence"])
    assert outlined(solver, "#board rect.cell.hint") == {tuple(rc) for rc in expected["stars"] + expected["empties"]}
    shoot(solver, "solve-hint")
    # A wrong star: Check names it.
    for _ in range(2):
        solver.locator(f"#board rect.cell[data-r='{off[0]}'][data-c='{off[1]}']").click()
    solver.locator("#check").click()
    assert f"R{off[0] + 1}C{off[1] + 1}" in wait_for_message(solver, "contradicts it")
    assert outlined(solver, "#board rect.cell.wrong") == {tuple(off)}
    # Undo takes it away, redo puts it back; a reload keeps the board and the marks.
    solver.locator("#undo").click()
    solver.locator("#undo").click()
    assert marks_of(solver, "#board", "star") == {tuple(solution[0])}
    solver.locator("#redo").click()
    solver.reload()
    solver.wait_for_selector("#board g.play-marks")
    assert marks_of(solver, "#board", "dot") == {tuple(off)} and marks_of(solver, "#board", "star") == {
        tuple(solution[0])
    }
    # Explain: the walkthrough, a picture per step; Solve: the solution's stars.
    solver.locator("#explain").click()
    wait_for_message(solver, "walkthrough")
    steps = served.post("explain", {"puzzle": puzzle_to_json(puzzle)})[1]["steps"]
    assert solver.locator("#walkthrough li.step").count() == len(steps)
    assert solver.locator("#walkthrough li.step .pic svg").count() == len(steps)
    shoot(solver, "solve")
    solver.locator("#solve").click()
    wait_for_message(solver, "the only one")
    assert marks_of(solver, "#board", "star") == {tuple(rc) for rc in solution}


def test_the_solver_page_says_queen_on_a_queens_board_and_reads_a_painted_one(solver: Any) -> None:
    queens = next(p for p in read_jsonl(str(shared_file("queens/linkedin.jsonl"))) if p.size == 9)
    load_board(solver, puzzle_to_puzzlink(queens))
    assert solver.locator("#board svg").get_attribute("data-piece") == "queen"
    words = " ".join(solver.locator(s).text_content() for s in ("#board-title", "#rules", "#message")).lower()
    assert "queen" in words and "star" not in words and "Queens" in solver.locator("#board-title").text_content()
    for _ in range(2):
        solver.locator("#board rect.cell[data-r='4'][data-c='4']").click()
    assert marks_of(solver, "#board", "crown") == {(4, 4)}
    # Paint the 5x5 board of the text-picture example, region by region.
    rows = ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]
    solver.locator("#paint summary").click()
    solver.locator("#paint-size").select_option("5")
    solver.locator("#paint-new").click()
    for r, row in enumerate(rows):
        for c, letter in enumerate(row):
            solver.locator(f"#paint-brushes button[data-brush='{ord(letter) - ord('A')}']").click()
            solver.locator(f"#paint-grid rect.paint-cell[data-r='{r}'][data-c='{c}']").click()
    solver.locator("#paint-use").click()
    solver.wait_for_function("() => document.querySelectorAll('#board rect.cell').length === 25")
    assert solver.locator("#puzzle-input").input_value().splitlines()[-5:] == rows
    solver.locator("#check").click()
    wait_for_message(solver, "one solution")


def test_every_published_board_links_to_the_solver_and_back(solver: Any, served: WebServer, site: Path) -> None:
    solver.goto(served.url)
    solver.locator(f"a[href='{DAY.isoformat()}/index.html#board-2']").click()
    solver.wait_for_url(f"**/{DAY.isoformat()}/index.html#board-2")
    solver.locator("#board-2 a.solve-link").click()
    solver.wait_for_url("**/solve?**")
    solver.wait_for_selector("#board svg rect.cell")
    board = record(site)["boards"][2]
    assert solver.locator("#board rect.cell").count() == board["size"] ** 2
    assert "solution" not in solver.url  # the address shows the board, never its solution
    solver.locator("#back").click()
    solver.wait_for_url(f"**/{DAY.isoformat()}/index.html#board-2")


def test_the_solver_page_loads_a_board_from_a_chosen_or_dropped_picture(solver: Any, tmp_path: Path) -> None:
    """A picture of a board, chosen with the file field or dropped on the box: the server reads it
    (api/from-image) and the page loads the board it read, every region where the picture drew it."""
    from test_web import _drawn

    puzzle = next(p for p in read_jsonl(str(shared_file("starbattle/handmade.jsonl"))) if p.size == 8)
    picture = tmp_path / "board.png"
    picture.write_bytes(_drawn(puzzle))
    solver.locator("#picture").set_input_files(str(picture))
    solver.wait_for_selector("#board svg rect.cell")
    n = puzzle.size
    assert solver.locator("#board rect.cell").count() == n * n
    # The box now holds the board the server read, as the page keeps every board: a text picture.
    [read] = parse_puzzles(solver.locator("#puzzle-input").input_value(), "the page")
    assert puzzle_to_json(read)["regions"] == puzzle_to_json(puzzle)["regions"]
    # Dropped on the box: the same board again, from a file the page is handed as a drop.
    solver.evaluate(
        """async (bytes) => {
            const file = new File([new Uint8Array(bytes)], "board.png", { type: "image/png" });
            const drop = new DataTransfer();
            drop.items.add(file);
            const box = document.querySelector("#puzzle-input");
            box.value = "";
            box.dispatchEvent(new DragEvent("drop", { dataTransfer: drop, cancelable: true }));
        }""",
        list(picture.read_bytes()),
    )
    solver.wait_for_function("() => document.querySelector('#puzzle-input').value.trim() !== ''")
    solver.wait_for_selector("#board svg rect.cell")
    [dropped] = parse_puzzles(solver.locator("#puzzle-input").input_value(), "the page")
    assert puzzle_to_json(dropped)["regions"] == puzzle_to_json(puzzle)["regions"]
