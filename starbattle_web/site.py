"""The public site: a static folder a puzzle site can serve as it is, or a player can open from disk.

    SITE/index.html         the archive of dates, newest first
    SITE/feed.json          the same as a JSON Feed (https://jsonfeed.org/version/1.1)
    SITE/atom.xml           the same as an Atom feed
    SITE/D/index.html       the day's boards: drawn by starbattle_core.svg, playable (site_templates/play.js), each
                            with its narrated solve path
    SITE/D/boards.json      the boards with solution, scores, versions and solve path (`explain --json`'s steps)

and the solver page `starbattle web` serves at /solve (`solve_page`), built from the same head, stylesheet and
player script. Queens boards say queen wherever a Star Battle board says star, and show crowns.

Every file is a function of the database's boards alone (no clock, no machine), so rebuilding a date writes the
same bytes, and a file whose bytes would not change is not written at all. Publishing a date writes that date's
folder and the three archive files, which are rebuilt from the `boards.json` of every date already in the folder;
no other date's files are touched. No Prefect import: the CLI and the flows call the same functions.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import json
import os
import re
import tempfile
import urllib.parse
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any
from xml.sax.saxutils import escape as xml_escape

import starbattle_store as store
from flows.report import GAME_TITLES, board_title
from starbattle_core.formats import puzzle_to_puzzlink, puzzle_to_text
from starbattle_core.svg import PIECES, REGION_PALETTE, board_svg, puzzle_game
from starbattle_store import ScheduledBoard
from starbattle_store.db import open_database

SITE_TITLE = "Star Battle and Queens: the daily boards"
DATE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _template(name: str) -> str:
    return resources.files("starbattle_web").joinpath("site_templates", name).read_text(encoding="utf-8")


def _page(name: str, title: str, root: str, **values: object) -> str:
    """A page of the site: its template (which may show `$title` too) under the pages' one head (the title, the feeds'
    links relative to `root`, the stylesheet)."""
    head = Template(_template("head.html")).substitute(title=title, root=root, style=_template("site.css"))
    # "$head" stands on a line of its own in the page template: that line's end follows the head's last line.
    return Template(_template(name)).substitute(head=head.removesuffix("\n"), title=title, **values)


def _write(path: Path, text: str) -> bool:
    """Write `text` to `path` unless it already holds exactly that; atomically (a reader never sees half a page)."""
    data = text.encode("utf-8")
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return True


# --- one date ----------------------------------------------------------------------------------------------------


def solve_path(board: ScheduledBoard) -> dict[str, Any]:
    """The solve path its difficulty was computed from: the step records of `explain --json` and the solver's
    version (also what `export --with-path` adds)."""
    path = board.steps or {}
    return {"solver_version": path.get("version"), "steps": path.get("steps", [])}


def board_record(board: ScheduledBoard) -> dict[str, Any]:
    """A board as `boards.json` holds it: the generator's board object, where it is published, its puzz.link URL,
    and its solve path."""
    return {
        "slot": board.slot,
        "position": board.position,
        **board.board_json(),
        "puzzlink": puzzle_to_puzzlink(board.puzzle()),
        **solve_path(board),
    }


def board_picture_files(boards: Iterable[ScheduledBoard], folder: Path, solved: bool = False) -> list[Path]:
    """Each board as `folder/DATE-SLOT.svg` (with the solution's stars when `solved`); `show --svg`."""
    paths = []
    for board in boards:
        picture = board_svg(board.puzzle(), stars=board.star_mask if solved else 0, title=board_title(board))
        path = folder / f"{board.date.isoformat()}-{board.slot}.svg"
        _write(path, picture + "\n")
        paths.append(path)
    return paths


def day_record(day: dt.date, boards: Iterable[ScheduledBoard]) -> dict[str, Any]:
    return {"date": day.isoformat(), "boards": [board_record(board) for board in boards]}


def _title(record: dict[str, Any]) -> str:
    game = GAME_TITLES.get(record["game"], record["game"])
    return f"{game} {record['size']}x{record['size']}, {record['band']}"


def piece_word(game: str) -> str:
    """What the board's sentences call its piece: star, or queen on a Queens board."""
    return PIECES[puzzle_game(game)][0]


def _rules(record: dict[str, Any]) -> str:
    k, piece = record["stars"], piece_word(record["game"])
    what = f"one {piece}" if k == 1 else f"{k} {piece}s"
    return f"Place {what} in every row, column and region; no two {piece}s touch, not even diagonally."


def solver_link(board: ScheduledBoard, index: int) -> str:
    """The day page's link to the solver page with this board loaded, and a way back to it."""
    bare = dataclasses.replace(board.puzzle(), solution=None)  # the address is for all to see: no solution in it
    query = urllib.parse.urlencode(
        {"puzzle": puzzle_to_text(bare), "back": f"{board.date.isoformat()}/index.html#board-{index}"}
    )
    return f"../solve?{query}"


def _coords_text(cells: list[list[int]]) -> str:
    return " ".join(f"R{r + 1}C{c + 1}" for r, c in cells)


def _chain_html(chain: list[dict[str, Any]]) -> str:
    links = "".join(
        f'<li class="link" data-link="{j}"><div class="pic"></div>'
        f'<p><span class="n">{j + 1}.</span> <span class="code">{html.escape(str(link.get("code", "")))}</span> '
        f"{html.escape(link['sentence'])}.</p></li>"
        for j, link in enumerate(chain)
    )
    return f'<ol class="chain" aria-label="the chain, link by link">{links}</ol>'


def _steps_html(steps: list[dict[str, Any]]) -> str:
    items = []
    for i, step in enumerate(steps):
        chain = step.get("chain")
        decided = _coords_text(step["stars"] + step["empties"])
        items.append(
            f'<li class="step" data-step="{i}"><div class="pic" title="{html.escape(decided)}"></div>'
            f'<div class="words"><p><span class="n">{step["n"]}.</span> '
            f'<span class="technique">{html.escape(step["technique"])}</span> '
            f'<span class="cost">({html.escape(step["code"])}, cost {step["cost"]}, total {step["total"]})</span></p>'
            f"<p>{html.escape(step['sentence'])}.</p>"
            f"{_chain_html(chain) if chain else ''}</div></li>"
        )
    return "".join(items)


def _board_html(index: int, board: ScheduledBoard, record: dict[str, Any]) -> str:
    puzzle = board.puzzle()
    title = _title(record)
    picture = board_svg(puzzle, title=title, id_prefix=f"p{index}")
    steps = record["steps"]
    game = html.escape(record["game"])
    return f"""<section class="board" id="board-{index}" data-board="{index}" data-slot="{html.escape(board.slot)}" \
data-game="{game}">
<h2>{html.escape(title)}</h2>
<p class="scores"><span class="band band-{html.escape(record["band"])}">{html.escape(record["band"])}</span>
difficulty <b>{record["difficulty"]}</b> · fun <b>{float(record["fun"]):.0f}</b> ·
{len(steps)} steps<span class="puzzlink"> · <a href="{html.escape(record["puzzlink"])}">play on puzz.link</a></span></p>
<p class="rules">{html.escape(_rules(record))}</p>
<div class="play" aria-label="the board: arrows move, space marks">{picture}</div>
<div class="controls">
<button type="button" class="check">Check</button>
<button type="button" class="hint">Hint</button>
<button type="button" class="reveal">Reveal</button>
<button type="button" class="undo" title="Undo (Ctrl+Z)">Undo</button>
<button type="button" class="redo" title="Redo (Ctrl+Y)">Redo</button>
<button type="button" class="clear">Clear</button>
<span class="timer" title="time played (paused while the page is hidden)">0:00</span>
</div>
<p class="message" aria-live="polite">{html.escape(_how_to_play(piece_word(record["game"])))}</p>
<p class="solver"><a class="solve-link" href="{html.escape(solver_link(board, index))}">Open in the solver</a>
(hints from your own marks, any board)</p>
<details class="walkthrough">
<summary>The solve path: {len(steps)} steps, difficulty {record["difficulty"]}</summary>
<ol class="steps">{_steps_html(steps)}</ol>
</details>
</section>"""


def _how_to_play(piece: str) -> str:
    return f"Tap a cell: once for a dot, twice for a {piece}, three times to clear it (or arrows and space)."


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element (no '</' can end it early)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")


def day_page(day: dt.date, boards: list[ScheduledBoard], record: dict[str, Any]) -> str:
    sections = "\n".join(
        _board_html(index, board, board_record)
        for index, (board, board_record) in enumerate(zip(boards, record["boards"], strict=True))
    )
    # What the script needs, and nothing else: the marks a player can be checked against and the solve path.
    play = [
        {
            "size": item["size"],
            "piece": piece_word(item["game"]),
            "solution": item["solution"],
            "given_stars": item.get("given_stars", []),
            "given_empty": item.get("given_empty", []),
            "steps": [
                {
                    key: step[key]
                    for key in ("n", "technique", "code", "stars", "empties", "sentence", "chain")
                    if key in step
                }
                for step in item["steps"]
            ],
        }
        for item in record["boards"]
    ]
    return _page(
        "day.html",
        html.escape(f"{SITE_TITLE}, {day.isoformat()}"),
        "../",
        date=day.isoformat(),
        script=_template("play.js"),
        boards=sections,
        count=len(boards),
        play=_script_json(play),
    )


def publish_day(site: Path, day: dt.date, boards: list[ScheduledBoard]) -> list[Path]:
    """Write the date's page and boards.json, then the archive files; returns the files whose bytes changed."""
    if not boards:
        raise ValueError(f"no boards scheduled for {day}")
    record = day_record(day, boards)
    folder = site / day.isoformat()
    written = []
    for path, text in (
        (folder / "boards.json", json.dumps(record, indent=1, sort_keys=True) + "\n"),
        (folder / "index.html", day_page(day, boards, record)),
    ):
        if _write(path, text):
            written.append(path)
    return written + publish_archive(site)


# --- the archive -------------------------------------------------------------------------------------------------


def archive_days(site: Path) -> list[dict[str, Any]]:
    """The `boards.json` of every published date in the folder, newest first."""
    days = []
    for folder in sorted(site.iterdir(), reverse=True) if site.is_dir() else []:
        record = folder / "boards.json"
        if DATE_FOLDER.match(folder.name) and record.is_file():
            days.append(json.loads(record.read_text(encoding="utf-8")))
    return days


def _summary(day: dict[str, Any]) -> str:
    return "; ".join(
        f"{_title(board)} (difficulty {board['difficulty']}, fun {float(board['fun']):.0f})" for board in day["boards"]
    )


def archive_page(days: list[dict[str, Any]]) -> str:
    rows = "\n".join(
        f'<li><a href="{day["date"]}/index.html">{day["date"]}</a>: '
        + ", ".join(
            f'<a class="band band-{html.escape(b["band"])}" href="{day["date"]}/index.html#board-{index}">'
            f"{html.escape(_title(b))}</a>"
            for index, b in enumerate(day["boards"])
        )
        + "</li>"
        for day in days
    )
    return _page("archive.html", html.escape(SITE_TITLE), "", days=rows or "<li>Nothing published yet.</li>")


def solve_page() -> str:
    """The solver page `starbattle web` serves at /solve: paste or paint any board, then check, hint, explain and
    solve it through the server's API (site_templates/solve.html and solve.js, on the day page's player)."""
    return _page(
        "solve.html",
        "Solve any Star Battle or Queens board",
        "",
        script=_template("play.js") + _template("solve.js"),
        palette=_script_json(list(REGION_PALETTE)),
    )


def _published(date: str) -> str:
    return f"{date}T00:00:00Z"


def json_feed(days: list[dict[str, Any]]) -> str:
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": SITE_TITLE,
        "home_page_url": "index.html",
        "feed_url": "feed.json",
        "items": [
            {
                "id": f"starbattle-daily-{day['date']}",
                "url": f"{day['date']}/index.html",
                "title": f"The boards of {day['date']}",
                "date_published": _published(day["date"]),
                "content_text": _summary(day),
                "attachments": [{"url": f"{day['date']}/boards.json", "mime_type": "application/json"}],
                "_starbattle": {
                    "date": day["date"],
                    "boards": [
                        {key: board[key] for key in ("slot", "game", "size", "stars", "band", "difficulty", "fun")}
                        for board in day["boards"]
                    ],
                },
            }
            for day in days
        ],
    }
    return json.dumps(feed, indent=1) + "\n"


def atom_feed(days: list[dict[str, Any]]) -> str:
    updated = _published(days[0]["date"]) if days else "1970-01-01T00:00:00Z"
    entries = "".join(
        f"""  <entry>
    <id>urn:starbattle:daily:{day["date"]}</id>
    <title>The boards of {day["date"]}</title>
    <link rel="alternate" type="text/html" href="{day["date"]}/index.html"/>
    <updated>{_published(day["date"])}</updated>
    <summary>{xml_escape(_summary(day))}</summary>
  </entry>
"""
        for day in days
    )
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>urn:starbattle:daily</id>
  <title>{xml_escape(SITE_TITLE)}</title>
  <link rel="alternate" type="text/html" href="index.html"/>
  <link rel="self" type="application/atom+xml" href="atom.xml"/>
  <updated>{updated}</updated>
  <author><name>starbattle</name></author>
{entries}</feed>
"""


def publish_archive(site: Path) -> list[Path]:
    days = archive_days(site)
    files = {"index.html": archive_page(days), "feed.json": json_feed(days), "atom.xml": atom_feed(days)}
    return [site / name for name, text in files.items() if _write(site / name, text)]


def publish_dates(database_url: str, dates: Iterable[dt.date], site: str) -> list[str]:
    """Publish every date of `dates` that has boards (the daily and backfill flows' last task, so plain values in
    and out); returns the dates published."""
    engine = open_database(database_url)
    published = []
    for day in dates:
        boards = store.day_boards(engine, day)
        if boards:
            publish_day(Path(site), day, boards)
            published.append(day.isoformat())
    return published
