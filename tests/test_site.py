"""`starbattle publish`: the files of a date and of the archive, what boards.json holds, rebuilding without change,
publishing one date without touching another, and the command's mistakes. (The page in a browser: test_browser.py.)"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import run_starbattle
from site_day import DAY, day_puzzles, store_day, write_config

from starbattle_core.formats import puzzle_from_puzzlink, puzzle_to_json
from starbattle_core.grader import grade, walkthrough_json
from starbattle_store import day_boards
from starbattle_store.db import open_database

OTHER_DAY = dt.date(2026, 11, 30)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    write_config(root)
    store_day(root)
    return root


@pytest.fixture
def config(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STARBATTLE_CONFIG", str(project / "starbattle.yaml"))
    return project


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    }


@pytest.mark.usefixtures("config")
def test_publish_writes_the_day_and_the_archive(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "site"
    status, stdout, _ = run_starbattle(capsys, "publish", "--date", DAY.isoformat(), "--out", str(out))
    assert status == 0 and f"{out / DAY.isoformat() / 'index.html'}: 7 boards; 5 files changed" in stdout
    assert sorted(snapshot(out)) == [
        "2026-12-01/boards.json",
        "2026-12-01/index.html",
        "atom.xml",
        "feed.json",
        "index.html",
    ]

    record = json.loads((out / DAY.isoformat() / "boards.json").read_text())
    assert record["date"] == DAY.isoformat() and len(record["boards"]) == 7
    for board, puzzle in zip(record["boards"], day_puzzles(), strict=True):
        graded = grade(puzzle)
        assert board["regions"] == puzzle.region_rows()
        assert board["solution"] == puzzle_to_json(puzzle)["solution"]
        assert {"band", "difficulty", "fun", "looks", "version", "solver_version", "slot", "seed"} <= set(board)
        assert board["difficulty"] == graded.difficulty and board["solver_version"] == graded.version
        assert board["steps"] == walkthrough_json(puzzle, graded)["steps"]  # the solve path as explain --json has it
        assert puzzle_from_puzzlink(board["puzzlink"]).regions == puzzle.regions
        stars = {tuple(rc) for step in board["steps"] for rc in step["stars"]}
        assert stars == {tuple(rc) for rc in board["solution"]}

    page = (out / DAY.isoformat() / "index.html").read_text()
    assert page.count('<section class="board"') == 7 and page.count("<svg") == 7
    assert page.count('<span class="puzzlink"> · <a href="https://puzz.link/p?') == 7
    # Nothing to fetch: no external script, stylesheet, image or font; the script makes no request.
    assert not re.search(r"<script[^>]* src=|<img|<iframe|rel=\"stylesheet\"|@import|url\((?!#)", page)
    assert "fetch(" not in page and "XMLHttpRequest" not in page and "WebSocket" not in page
    assert page.count('<li class="step"') == sum(len(b["steps"]) for b in record["boards"])

    feed = json.loads((out / "feed.json").read_text())
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert [item["url"] for item in feed["items"]] == ["2026-12-01/index.html"]
    atom = ElementTree.parse(out / "atom.xml").getroot()
    entries = atom.findall("{http://www.w3.org/2005/Atom}entry")
    assert [e.find("{http://www.w3.org/2005/Atom}id").text for e in entries] == ["urn:starbattle:daily:2026-12-01"]
    assert 'href="2026-12-01/index.html"' in (out / "index.html").read_text()


def test_rebuilding_is_idempotent_and_other_dates_are_left_alone(
    config: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert run_starbattle(capsys, "publish", "--date", DAY.isoformat(), "--out", str(out))[0] == 0
    first = snapshot(out)
    status, stdout, _ = run_starbattle(capsys, "publish", "--date", DAY.isoformat(), "--out", str(out))
    assert status == 0 and "0 files changed" in stdout and snapshot(out) == first  # same bytes, not even rewritten

    store_day(config, OTHER_DAY, day_puzzles(later=1)[2:5])
    status, stdout, _ = run_starbattle(capsys, "publish", "--date", OTHER_DAY.isoformat(), "--out", str(out))
    assert status == 0 and "3 boards; 5 files changed" in stdout
    after = snapshot(out)
    for name in ("2026-12-01/boards.json", "2026-12-01/index.html"):
        assert after[name] == first[name]  # bytes and modification time
    feed = json.loads((out / "feed.json").read_text())
    assert [item["_starbattle"]["date"] for item in feed["items"]] == ["2026-12-01", "2026-11-30"]  # newest first
    archive = (out / "index.html").read_text()
    assert archive.index("2026-12-01/index.html") < archive.index("2026-11-30/index.html")
    atom = ElementTree.parse(out / "atom.xml").getroot()
    assert len(atom.findall("{http://www.w3.org/2005/Atom}entry")) == 2


def test_publish_defaults_to_the_configured_site_dir(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, stdout, _ = run_starbattle(capsys, "publish", "--date", DAY.isoformat())
    assert status == 0 and stdout.startswith(str(config / "site" / DAY.isoformat() / "index.html"))


@pytest.mark.usefixtures("config")
def test_publish_mistakes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run_starbattle(capsys, "publish", "--date", "2026-02-30", "--out", str(tmp_path / "s"))
    assert status == 2 and out == "" and err.startswith("error: --date '2026-02-30' is not a date")
    status, out, err = run_starbattle(capsys, "publish", "--date", "2025-01-01", "--out", str(tmp_path / "s"))
    assert status == 1 and err == "no boards scheduled for 2025-01-01\n" and not (tmp_path / "s").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    status, out, err = run_starbattle(capsys, "publish", "--date", DAY.isoformat(), "--out", str(blocker))
    assert status == 2 and err == f"error: --out {blocker}: not a folder\n"


def test_the_page_shows_a_hypothetical_chain_link_by_link(project: Path, tmp_path: Path) -> None:
    """A step with a `chain` (the hypothetical techniques' links) gets one list item and one picture per link."""
    from starbattle_web.site import publish_day

    boards = day_boards(open_database(f"sqlite:///{project / 'db' / 'starbattle.db'}"), DAY)
    for board in boards:  # the grader's own chains out of the way: only the one below is counted
        for step in board.steps["steps"]:
            step.pop("chain", None)
    steps = boards[0].steps["steps"]
    chain = [
        {"code": "assume", "stars": [[0, 0]], "empties": [], "sentence": "suppose R1C1 is a star"},
        {"code": "SN", "stars": [], "empties": [[0, 1], [1, 0], [1, 1]], "sentence": "then its neighbours are empty"},
        {"code": "contradiction", "stars": [], "empties": [], "sentence": "row 1 has no room left: R1C1 is empty"},
    ]
    steps[0] = {**steps[0], "chain": chain}
    publish_day(tmp_path, DAY, boards)
    page = (tmp_path / DAY.isoformat() / "index.html").read_text()
    assert page.count('<li class="link"') == 3 and "suppose R1C1 is a star." in page
    assert (
        json.loads((tmp_path / DAY.isoformat() / "boards.json").read_text())["boards"][0]["steps"][0]["chain"] == chain
    )


@pytest.mark.flow
@pytest.mark.usefixtures("prefect_api")
def test_the_daily_flow_publishes_its_date_as_its_last_task(tmp_path: Path) -> None:
    """A daily run with `pipeline.site_dir` set leaves the date's page and the archive in that folder, with the
    boards the run stored."""
    import yaml

    from flows.daily import daily

    slots = [
        {"name": "starbattle-easy", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
        {"name": "queens-easy", "game": "queens", "size": 6, "stars": 1, "band": "easy"},
    ]
    pipeline = {
        "database_url": f"sqlite:///{tmp_path / 'starbattle.db'}",
        "prefect_home": str(tmp_path / "prefect"),
        "site_dir": str(tmp_path / "site"),
        "budget_seconds": 20,
        "workers": 1,
        "slots": slots,
    }
    config = tmp_path / "starbattle.yaml"
    config.write_text(yaml.safe_dump({"pipeline": pipeline}))
    state = daily(date=DAY.isoformat(), config_path=str(config), return_state=True)
    assert state.is_completed()
    stored = day_boards(open_database(pipeline["database_url"]), DAY)
    record = json.loads((tmp_path / "site" / DAY.isoformat() / "boards.json").read_text())
    assert [board["slot"] for board in record["boards"]] == ["starbattle-easy", "queens-easy"]
    assert [board["regions"] for board in record["boards"]] == [list(board.record.regions) for board in stored]
    feed = json.loads((tmp_path / "site" / "feed.json").read_text())
    assert [item["_starbattle"]["date"] for item in feed["items"]] == [DAY.isoformat()]


@pytest.mark.usefixtures("config")
def test_export_with_path_and_show_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`export --with-path` adds the stored solve path to JSON and JSON Lines; `show --svg` writes the site's
    pictures of the boards, one file each."""
    puzzles = day_puzzles()
    status, out, _ = run_starbattle(capsys, "export", "--date", DAY.isoformat(), "--format", "jsonl", "--with-path")
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(lines) == 7
    for line, puzzle in zip(lines, puzzles, strict=True):
        graded = grade(puzzle)
        assert line["steps"] == walkthrough_json(puzzle, graded)["steps"] and line["solver_version"] == graded.version
    status, out, _ = run_starbattle(capsys, "export", "--date", DAY.isoformat(), "--format", "json", "--with-path")
    assert status == 0 and [board["steps"] for board in json.loads(out)] == [line["steps"] for line in lines]
    status, out, _ = run_starbattle(capsys, "export", "--date", DAY.isoformat(), "--format", "jsonl")
    assert status == 0 and "steps" not in json.loads(out.splitlines()[0])
    status, out, err = run_starbattle(
        capsys, "export", "--date", DAY.isoformat(), "--format", "puzzlink", "--with-path"
    )
    assert status == 2 and out == "" and err.startswith("error: --with-path: a puzz.link URL has no place")

    status, out, _ = run_starbattle(capsys, "show", "--date", DAY.isoformat(), "--svg", str(tmp_path), "--solved")
    paths = [Path(line) for line in out.splitlines()]
    assert status == 0 and [path.name for path in paths][:2] == [
        "2026-12-01-starbattle-easy.svg",
        "2026-12-01-starbattle-medium.svg",
    ]
    root = ElementTree.parse(paths[0]).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(root.findall(".//{http://www.w3.org/2000/svg}rect[@data-r]")) == 100
    stars = len(root.findall(".//{http://www.w3.org/2000/svg}path[@class='star']"))
    assert stars == 20  # the solution's two stars in each of the ten rows
