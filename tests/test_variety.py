"""Variety across days (starbattle_store/variety.py): no region map and no star layout published twice in the
archive, by an indexed UNIQUE key checked inside the publishing transaction, on SQLite and PostgreSQL; old databases
migrate."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from postgres_server import fresh_database
from sqlalchemy import inspect, text
from sqlmodel import Session, select
from stored_boards import accepted

from starbattle_store import AcceptedBoard, Effort, next_attempt, save_board
from starbattle_store.db import Attempt, PuzzleRecord, ScheduleEntry, open_database
from starbattle_store.variety import board_keys, published_before

DAY = dt.date(2026, 11, 29)
EFFORT = Effort(
    attempt=0, seed=1, candidates=3, repair_rounds=0, rejections={"stuck": 2}, stage_seconds={}, seconds=1.0
)


def keys_of(board: AcceptedBoard) -> tuple[str, str]:
    return board_keys(board.record.size, board.record.regions, board.record.solution)


def turned_and_relabelled(board: AcceptedBoard) -> AcceptedBoard:
    """The same board a quarter turn clockwise, its region symbols renamed (A <-> the last, and so on)."""
    n = board.record.size
    symbols = sorted({s for row in board.record.regions for s in row})
    rename = dict(zip(symbols, reversed(symbols), strict=True))
    regions = ["".join(rename[board.record.regions[n - 1 - c][r]] for c in range(n)) for r in range(n)]
    solution = sorted([c, n - 1 - r] for r, c in board.record.solution)
    assert tuple(regions) != board.record.regions
    turned = replace(board.record, regions=tuple(regions), solution=tuple((r, c) for r, c in solution))
    return replace(board, record=replace(turned, seed=board.record.seed + 1))


def mirrored_layout_only(board: AcceptedBoard, other: AcceptedBoard) -> AcceptedBoard:
    """`other`'s regions with `board`'s star layout mirrored (a new map, a repeated layout)."""
    n = board.record.size
    mirrored = tuple(sorted((r, n - 1 - c) for r, c in board.record.solution))
    return replace(other, record=replace(other.record, solution=mirrored, seed=99))


def outcomes(engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        return [(a.slot, a.outcome) for a in session.exec(select(Attempt).order_by(Attempt.id)).all()]


def test_a_map_or_layout_published_before_is_a_repeat_on_any_later_day(engine, real_puzzles) -> None:
    first = accepted(real_puzzles[0])
    assert save_board(engine, run_id=None, date=DAY, slot="a", position=0, board=first, effort=EFFORT) is not None
    copy = turned_and_relabelled(first)
    assert keys_of(copy) == keys_of(first)
    later = DAY + dt.timedelta(days=40)
    assert published_before(engine, keys_of(copy))
    assert save_board(engine, run_id=None, date=later, slot="b", position=0, board=copy, effort=EFFORT) is None
    same_layout = mirrored_layout_only(first, accepted(real_puzzles[1]))
    assert save_board(engine, run_id=None, date=later, slot="b", position=0, board=same_layout, effort=EFFORT) is None
    # The transaction left nothing of either repeat but its attempt, which moves the slot on to the next seed.
    with Session(engine) as session:
        assert len(session.exec(select(PuzzleRecord)).all()) == 1
        assert session.exec(select(ScheduleEntry).where(ScheduleEntry.date == later)).first() is None
    assert outcomes(engine) == [("a", "accepted"), ("b", "repeat"), ("b", "repeat")]
    assert next_attempt(engine, later, "b") == 1
    fresh = accepted(real_puzzles[2])
    assert not published_before(engine, keys_of(fresh))
    assert save_board(engine, run_id=None, date=later, slot="b", position=0, board=fresh, effort=EFFORT) is not None


def test_a_forced_rerun_gives_the_unscheduled_board_its_keys_back(engine, real_puzzles) -> None:
    board = accepted(real_puzzles[0])
    save_board(engine, run_id=None, date=DAY, slot="a", position=0, board=board, effort=EFFORT)
    keys = keys_of(board)
    assert published_before(engine, keys) and not published_before(engine, keys, replacing=(DAY, "a"))
    assert published_before(engine, keys, replacing=(DAY, "b"))
    again = save_board(
        engine, run_id=None, date=DAY, slot="a", position=0, board=board, effort=EFFORT, replace="forced re-run"
    )
    assert again is not None  # the same board again: the replaced one is no longer published
    with Session(engine) as session:
        keys = [(p.id, p.map_key is None) for p in session.exec(select(PuzzleRecord).order_by(PuzzleRecord.id))]
    assert keys == [(again - 1, True), (again, False)]


def test_the_keys_are_unique_indexed_columns(engine) -> None:
    indexes = {index["name"]: index for index in inspect(engine).get_indexes("puzzle")}
    for name in ("map_key", "layout_key"):
        index = indexes[f"ix_puzzle_{name}"]
        assert index["column_names"] == [name] and index["unique"]
    if engine.dialect.name == "sqlite":
        with engine.connect() as connection:
            plan = " ".join(
                str(row[-1])
                for row in connection.execute(
                    text("EXPLAIN QUERY PLAN SELECT 1 FROM puzzle WHERE map_key = 'x' OR layout_key = 'y' LIMIT 1")
                )
            )
        assert "ix_puzzle_map_key" in plan and "ix_puzzle_layout_key" in plan and "SCAN puzzle" not in plan


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_runs_publishing_one_map_at_once_publish_it_once(backend: str, tmp_path: Path, real_puzzles, request):
    """Two writers on two slots race with the same map (one turned): the UNIQUE key lets one commit."""
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'starbattle.db'}"
    else:
        url = fresh_database(request.getfixturevalue("postgres_url"))
    engines = [open_database(url), open_database(url)]
    boards = [accepted(real_puzzles[0]), turned_and_relabelled(accepted(real_puzzles[0]))]
    results: dict[int, int | None] = {}
    barrier = threading.Barrier(2)

    def write(index: int) -> None:
        barrier.wait()
        slot = f"slot-{index}"
        results[index] = save_board(
            engines[index], run_id=None, date=DAY, slot=slot, position=index, board=boards[index], effort=EFFORT
        )

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(result is None for result in results.values()) == [False, True]
    assert sorted(outcome for _, outcome in outcomes(engines[0])) == ["accepted", "repeat"]
    for engine in engines:
        engine.dispose()


def test_an_old_database_gets_the_columns_and_its_keys(tmp_path: Path, real_puzzles) -> None:
    """A database made before the keys: the columns are added and filled on opening, a repeat already stored
    keeps its key on the earliest board only, and the UNIQUE indexes are made."""
    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    engine = open_database(url)
    boards = [accepted(p) for p in real_puzzles[:2]]
    for day, board in enumerate(boards):
        save_board(
            engine, run_id=None, date=DAY + dt.timedelta(days=day), slot="a", position=0, board=board, effort=EFFORT
        )
    engine.dispose()
    with sqlite3.connect(path) as old:  # back to the schema before the keys, then a repeat stored by an old version
        for name in ("map_key", "layout_key"):
            old.execute(f"DROP INDEX ix_puzzle_{name}")
            old.execute(f"ALTER TABLE puzzle DROP COLUMN {name}")
        old.execute(
            "INSERT INTO puzzle (game, size, stars, regions, solution, difficulty, band, fun, looks, seed, "
            "generator_version, created) SELECT game, size, stars, ?, ?, difficulty, band, fun, looks, seed, "
            "generator_version, created FROM puzzle WHERE id = 1",
            (
                json.dumps(turned_and_relabelled(boards[0]).record.regions),
                json.dumps(turned_and_relabelled(boards[0]).record.solution),
            ),
        )
        assert "map_key" not in {row[1] for row in old.execute("PRAGMA table_info(puzzle)")}
    engine = open_database(url)
    with Session(engine) as session:
        records = session.exec(select(PuzzleRecord).order_by(PuzzleRecord.id)).all()
    expected = [keys_of(b) for b in boards]
    assert [(r.map_key, r.layout_key) for r in records] == [*expected, (None, None)]
    assert {i["name"] for i in inspect(engine).get_indexes("puzzle") if i["unique"]} >= {
        "ix_puzzle_map_key",
        "ix_puzzle_layout_key",
    }
    assert published_before(engine, expected[0])
    engine.dispose()
    assert open_database(url) is not None  # opening again has nothing left to migrate
