"""The pipeline's commands without Prefect: every mistake is one line and exit status 2 with nothing written; show,
export and stats read a stored day back. (Commands that run flows are exercised in test_flows.py.)"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pytest
import yaml
from conftest import run_starbattle, shared_file

import starbattle_cli.commands_pipeline  # noqa: F401  (registers the commands on the root app)
from starbattle_core.formats import puzzle_from_puzzlink, puzzle_to_json, read_jsonl
from starbattle_core.generator import record_from_json
from starbattle_store import AcceptedBoard, Effort, layout_rows_bytes, save_board
from starbattle_store.db import open_database


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_starbattle(capsys, *argv)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config pointing at a database under tmp_path, chosen through $STARBATTLE_CONFIG."""
    config = tmp_path / "starbattle.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "pipeline": {
                    "database_url": f"sqlite:///{tmp_path / 'db' / 'starbattle.db'}",
                    "prefect_home": str(tmp_path / "prefect"),
                }
            }
        )
    )
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    return tmp_path


def nothing_written(root: Path) -> bool:
    return not (root / "db").exists() and not (root / "prefect").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["daily", "--date", "2026-02-30"], "error: --date '2026-02-30' is not a date: expected YYYY-MM-DD"),
        (
            ["backfill", "--start", "2026-11-05", "--end", "2026-11-01"],
            "error: date range 2026-11-05..2026-11-01 is empty: the end comes before the start",
        ),
        (["backfill", "--start", "2026-01-01", "--end", "2226-01-01"], "error: date range 2026-01-01..2226-01-01 has"),
        (["stats", "--start", "tomorrow"], "error: --start 'tomorrow' is not a date"),
        (["export", "--format", "xml"], "error: --format 'xml': expected one of json, jsonl, puzzlink"),
        (["replace", "--date", "2026-13-01", "--slot", "queens-easy"], "error: --date '2026-13-01' is not a date"),
        (["replace", "--date", "2026-12-01", "--slot", "nope"], "error: --slot 'nope': not a daily slot (have "),
        (
            ["replace", "--date", "2026-12-01", "--slot", "queens-easy"],
            "error: --slot 'queens-easy': 2026-12-01 has no board in it to replace",
        ),
    ],
)
def test_bad_dates_and_options(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1
    if argv[0] in ("daily", "backfill") or argv[-1] == "nope":
        assert nothing_written(project)  # checked before the database or Prefect is touched


def test_bad_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = project / "starbattle.yaml"
    config.write_text("pipeline:\n  slots:\n    - {name: a, game: starbattle, size: 9, stars: 3, band: easy}\n")
    code, out, err = run(["daily", "--date", "2026-11-29"], capsys)
    assert code == 2 and out == ""
    assert err == f"error: {config}: pipeline.slots[0].stars: no layout exists for a 9x9 board with 3 stars per unit\n"
    assert nothing_written(project)


def test_unwritable_database(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = project / "not-a-folder"
    blocker.write_text("")
    config = project / "starbattle.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "pipeline": {
                    "database_url": f"sqlite:///{blocker}/starbattle.db",
                    "prefect_home": str(project / "prefect"),
                }
            }
        )
    )
    code, out, err = run(["backfill", "--start", "2026-11-01", "--end", "2026-11-02"], capsys)
    assert code == 2 and out == ""
    assert (
        err.startswith(f"error: database sqlite:///{blocker}/starbattle.db: cannot create folder")
        and err.count("\n") == 1
    )
    assert nothing_written(project) and blocker.read_text() == ""


@pytest.fixture
def stored_day(project: Path) -> list:
    """Two real archive boards stored as a day's schedule, as the daily flow would store them."""
    engine = open_database(f"sqlite:///{project / 'db' / 'starbattle.db'}")
    puzzles = list(
        itertools.islice(
            (p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if p.size == 10 and p.stars == 2), 2
        )
    )
    effort = Effort(
        attempt=0,
        seed=1,
        candidates=3,
        repair_rounds=1,
        rejections={"ambiguous": 2},
        stage_seconds={"growth": 0.1},
        seconds=0.5,
    )
    for position, (slot, puzzle) in enumerate(zip(("starbattle-easy", "starbattle-medium"), puzzles, strict=True)):
        shared = puzzle_to_json(puzzle, puzzle.solution)
        scores = {"difficulty": 300 + position, "band": slot.split("-")[1], "fun": 80.0, "looks": 60.0}
        versions = {"seed": position, "generator_version": "g", "solver_version": "s"}
        board = AcceptedBoard(
            record=record_from_json({**shared, **scores, **versions}),
            steps={"steps": []},
            layout_rows=layout_rows_bytes(shared["solution"], 10),
        )
        save_board(
            engine, run_id=None, date=dt.date(2026, 11, 29), slot=slot, position=position, board=board, effort=effort
        )
    return puzzles


def test_show_and_export_read_a_day_back(stored_day: list, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "--date", "2026-11-29", "--json"], capsys)
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert [(o["date"], o["slot"], o["band"], o["difficulty"]) for o in objects] == [
        ("2026-11-29", "starbattle-easy", "easy", 300),
        ("2026-11-29", "starbattle-medium", "medium", 301),
    ]
    assert {"game", "size", "stars", "regions", "solution", "band", "difficulty", "fun", "looks"} <= set(objects[0])
    assert objects[0]["regions"] == puzzle_to_json(stored_day[0])["regions"]

    code, out, _ = run(["show", "--date", "2026-11-29"], capsys)
    assert code == 0 and "starbattle-easy: Star Battle 10x10 2-star, easy, difficulty 300" in out and "┃" in out

    code, out, _ = run(["export", "--date", "2026-11-29", "--format", "puzzlink"], capsys)
    urls = out.split()
    assert code == 0 and len(urls) == 2
    assert puzzle_from_puzzlink(urls[1]).regions == stored_day[1].regions

    code, out, _ = run(["export", "--date", "2026-11-29", "--format", "json"], capsys)
    assert code == 0 and [o["slot"] for o in json.loads(out)] == ["starbattle-easy", "starbattle-medium"]

    code, out, _ = run(["stats", "--start", "2026-11-01", "--end", "2026-11-30"], capsys)
    assert code == 0 and "starbattle-medium" in out and "ambiguous" in out

    code, out, err = run(["show", "--date", "2026-11-30"], capsys)
    assert code == 1 and err == "no boards scheduled for 2026-11-30\n"


@pytest.mark.usefixtures("stored_day")
def test_a_complete_date_is_left_alone_without_starting_prefect(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = project / "starbattle.yaml"
    raw = yaml.safe_load(config.read_text())
    raw["pipeline"]["slots"] = [
        {"name": "starbattle-easy", "game": "starbattle", "size": 10, "stars": 2, "band": "easy"},
        {"name": "starbattle-medium", "game": "starbattle", "size": 10, "stars": 2, "band": "medium"},
    ]
    config.write_text(yaml.safe_dump(raw))
    code, out, err = run(["daily", "--date", "2026-11-29"], capsys)
    assert code == 0 and err == "2026-11-29 is complete (--force makes its boards again)\n"
    assert "starbattle-medium" in out
    code, out, _ = run(["backfill", "--start", "2026-11-29", "--end", "2026-11-29"], capsys)
    assert code == 0 and "every date of 2026-11-29..2026-11-29 is complete" in out
    assert not (project / "prefect").exists()
