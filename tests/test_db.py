"""The pipeline's database: one transaction per board, one board per (date, slot), clear errors, counters."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from postgres_server import fresh_database
from sqlalchemy import inspect
from sqlmodel import Session, func, select
from stored_boards import accepted

from starbattle_core.puzzle import InputError, is_solution
from starbattle_store import (
    Effort,
    complete_dates,
    day_boards,
    next_attempt,
    puzzles_without_path,
    save_board,
    save_effort,
    save_solve_path,
    slot_stats,
    start_run,
    store_layouts,
    stored_layouts,
    stored_puzzle,
)
from starbattle_store.db import Attempt, Layout, PuzzleRecord, Rejection, ScheduleEntry, SolvePath, open_database

DAY = dt.date(2026, 11, 29)


EFFORT = Effort(
    attempt=0,
    seed=1,
    candidates=12,
    repair_rounds=5,
    rejections={"ambiguous": 3, "stuck": 2, "wrong_band": 6, "low_fun": 0},
    stage_seconds={"growth": 0.5, "grading": 1.25},
    seconds=2.0,
)


def count(engine, table) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def test_a_board_is_stored_whole_and_reads_back(engine, real_puzzles) -> None:
    run = start_run(engine, name="daily-x", kind="manual", config_hash="h", solver_version="s1", generator_version="g1")
    puzzle = real_puzzles[0]
    seed = 2**60 - 1  # the widest seed derive_seed makes: it needs a BIGINT column on PostgreSQL
    puzzle_id = save_board(
        engine,
        run_id=run,
        date=DAY,
        slot="starbattle-medium",
        position=1,
        board=accepted(puzzle, seed=seed),
        effort=EFFORT,
    )
    assert puzzle_id is not None
    with Session(engine) as session:
        assert session.get(PuzzleRecord, puzzle_id).seed == seed
    [board] = day_boards(engine, DAY)
    assert (board.slot, board.position, board.record.band, board.record.difficulty, board.candidates) == (
        "starbattle-medium",
        1,
        "medium",
        500,
        12,
    )
    again = board.puzzle()
    assert again.regions == puzzle.regions and again.solution == puzzle.solution
    assert is_solution(again, board.star_mask)
    assert board.steps == {"steps": [{"technique": "t", "cost": 1}]}
    assert stored_puzzle(engine, puzzle_id).regions == puzzle.regions
    with Session(engine) as session:
        rejections = {r.reason: r.count for r in session.exec(select(Rejection)).all()}
    assert rejections == {"ambiguous": 3, "stuck": 2, "wrong_band": 6}  # zero counts are not rows
    [stats] = slot_stats(engine, DAY, DAY)
    assert (stats.accepted, stats.candidates, stats.repair_rounds) == (1, 12, 5)
    assert stats.stage_seconds == {"growth": 0.5, "grading": 1.25}


def test_a_failure_inside_the_transaction_leaves_nothing(engine, real_puzzles) -> None:
    unserialisable = accepted(real_puzzles[0], steps={"step": object()})
    with pytest.raises(TypeError):
        save_board(engine, run_id=None, date=DAY, slot="a", position=0, board=unserialisable, effort=EFFORT)
    for table in (PuzzleRecord, SolvePath, ScheduleEntry, Attempt, Rejection):
        assert count(engine, table) == 0


def test_one_board_per_date_and_slot(engine, real_puzzles) -> None:
    first = save_board(
        engine, run_id=None, date=DAY, slot="a", position=0, board=accepted(real_puzzles[0]), effort=EFFORT
    )
    second = save_board(
        engine, run_id=None, date=DAY, slot="a", position=0, board=accepted(real_puzzles[1]), effort=EFFORT
    )
    assert first is not None and second is None
    assert count(engine, PuzzleRecord) == 1 and count(engine, SolvePath) == 1  # the loser's board is discarded
    [stats] = slot_stats(engine)
    assert (stats.attempts, stats.accepted, stats.lost) == (2, 1, 1)
    [board] = day_boards(engine, DAY)
    assert board.puzzle_id == first
    replaced = save_board(
        engine,
        run_id=None,
        date=DAY,
        slot="a",
        position=0,
        board=accepted(real_puzzles[1]),
        effort=EFFORT,
        replace="forced re-run",
    )
    [board] = day_boards(engine, DAY)
    assert replaced is not None and board.puzzle_id == replaced


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_concurrent_writers_on_one_database_schedule_one_board(
    backend: str, tmp_path: Path, real_puzzles, request
) -> None:
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'db' / 'starbattle.db'}"
    else:
        url = fresh_database(request.getfixturevalue("postgres_url"))
    engines = [open_database(url), open_database(url)]
    results: list[int | None] = []
    barrier = threading.Barrier(len(real_puzzles))

    def write(index: int) -> None:
        barrier.wait()
        results.append(
            save_board(
                engines[index % 2],
                run_id=None,
                date=DAY,
                slot="a",
                position=0,
                board=accepted(real_puzzles[index], seed=index),
                effort=EFFORT,
            )
        )

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(real_puzzles))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(result is not None for result in results) == 1
    assert count(engines[0], ScheduleEntry) == 1 and count(engines[0], PuzzleRecord) == 1


def test_complete_dates_and_next_attempt(engine, real_puzzles) -> None:
    later = DAY + dt.timedelta(days=1)
    for slot, puzzle in zip("ab", real_puzzles[:2], strict=True):
        save_board(engine, run_id=None, date=DAY, slot=slot, position=0, board=accepted(puzzle), effort=EFFORT)
    save_board(engine, run_id=None, date=later, slot="a", position=0, board=accepted(real_puzzles[2]), effort=EFFORT)
    assert complete_dates(engine, [DAY, later], ["a", "b"]) == {DAY}
    assert complete_dates(engine, [later], ["a"]) == {later}
    assert next_attempt(engine, later, "b") == 0
    save_effort(engine, run_id=None, date=later, slot="b", effort=EFFORT, outcome="exhausted")
    assert next_attempt(engine, later, "b") == 1
    save_effort(engine, run_id=None, date=later, slot="b", effort=replace(EFFORT, attempt=1), outcome="near_duplicate")
    assert next_attempt(engine, later, "b") == 2
    save_effort(engine, run_id=None, date=later, slot="b", effort=replace(EFFORT, attempt=5), outcome="lost")
    assert next_attempt(engine, later, "b") == 2


def test_layout_bank_resumes_and_counts_uses(engine, real_puzzles) -> None:
    puzzle = real_puzzles[0]
    solution_rows = np.frombuffer(accepted(puzzle).layout_rows, dtype="<u4")
    bank = np.array([solution_rows, solution_rows[::-1], np.roll(solution_rows, 1)], dtype=np.uint32)
    assert store_layouts(engine, 10, 2, bank[:2]) == 2
    assert store_layouts(engine, 10, 2, bank) == 1  # an interrupted enumeration carries on
    assert stored_layouts(engine, 10, 2) == 3 and stored_layouts(engine, 9, 1) == 0
    save_board(engine, run_id=None, date=DAY, slot="a", position=0, board=accepted(puzzle), effort=EFFORT)
    with Session(engine) as session:
        uses = {layout.position: layout.uses for layout in session.exec(select(Layout)).all()}
    assert uses == {0: 1, 1: 0, 2: 0}


def test_regrade_finds_paths_of_older_solver_versions(engine, real_puzzles) -> None:
    puzzle_id = save_board(
        engine, run_id=None, date=DAY, slot="a", position=0, board=accepted(real_puzzles[0]), effort=EFFORT
    )
    assert puzzles_without_path(engine, "s1") == []
    assert puzzles_without_path(engine, "s2") == [puzzle_id]
    assert save_solve_path(engine, puzzle_id, solver_version="s2", difficulty=900, band="medium", steps=[])
    assert not save_solve_path(engine, puzzle_id, solver_version="s2", difficulty=900, band="medium", steps=[])
    assert puzzles_without_path(engine, "s2") == []
    assert day_boards(engine, DAY, solver_version="s2")[0].record.difficulty == 900
    assert day_boards(engine, DAY, solver_version="s1")[0].record.difficulty == 500


def test_an_unwritable_database_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    for url in (f"sqlite:///{blocker}/starbattle.db", f"sqlite:///{tmp_path}", "nosuchdb://x/y"):
        with pytest.raises(InputError) as caught:
            open_database(url)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("database ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    with pytest.raises(InputError, match=r"postgresql://u:\*\*\*@"):
        open_database("postgresql://u:secret@127.0.0.1:1/x")


# --- faults: a damaged, a locked, a new database opened by several processes at once -----------------------------


def _pipeline_config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "starbattle.yaml"
    config.write_text(f'pipeline:\n  database_url: "{url}"\n  prefect_home: {tmp_path / "prefect"}\n', "utf-8")
    return config


def _starbattle(config: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", "from starbattle_cli.app import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "STARBATTLE_CONFIG": str(config)},
    )


def _damage(path: Path) -> None:
    """Garbage over the middle of a SQLite file big enough to have a middle (the pages of a filler table)."""
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE filler (x TEXT)")
        connection.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,) for _ in range(2000)])
    connection.close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 3000] = b"\xde\xad" * 1500
    path.write_bytes(bytes(data))


def test_a_damaged_database_is_one_line_exit_2_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    open_database(f"sqlite:///{path}").dispose()
    _damage(path)
    before = path.read_bytes()
    config = _pipeline_config(tmp_path, f"sqlite:///{path}")
    for command in (["show"], ["export"], ["stats"], ["daily", "--date", "2026-12-01"]):
        done = _starbattle(config, *command)
        out, err = done.communicate(timeout=120)
        assert done.returncode == 2 and out == "", (command, out, err)
        assert err.startswith("error: database sqlite:///") and "the file is damaged" in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert path.read_bytes() == before


def test_a_locked_database_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from conftest import run_starbattle

    path = tmp_path / "locked.db"
    open_database(f"sqlite:///{path}").dispose()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        monkeypatch.setattr("starbattle_store.db.BUSY_TIMEOUT_SECONDS", 0.5)
        monkeypatch.setenv("STARBATTLE_CONFIG", str(_pipeline_config(tmp_path, f"sqlite:///{path}")))
        status, out, err = run_starbattle(capsys, "stats")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert status == 2 and out == ""
    assert "database is locked" in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_three_processes_create_a_new_database_at_once(tmp_path: Path) -> None:
    """The first use races: every process checks for the tables, then creates them; none may fail."""
    for round_number in range(3):
        path = tmp_path / f"new{round_number}.db"
        config = _pipeline_config(tmp_path, f"sqlite:///{path}")
        runs = [_starbattle(config, "stats") for _ in range(3)]
        for run in runs:
            out, err = run.communicate(timeout=120)
            assert run.returncode == 0 and err == "", err
            assert out.startswith("no runs recorded")
        tables = {row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"layout", "puzzle", "schedule", "run", "attempt", "rejection", "solvepath"} <= tables


def test_a_new_database_another_process_is_writing_opens_once_the_lock_is_free(tmp_path: Path) -> None:
    """A new file (not yet in WAL mode) whose write lock another process holds: switching it to WAL gets "database
    is locked" from SQLite at once, not after the busy timeout, so opening must wait for the lock like a write."""
    path = tmp_path / "new.db"
    hold = (
        "import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
        "db.execute('CREATE TABLE other (x)'); db.execute('BEGIN IMMEDIATE'); print('held', flush=True); "
        "time.sleep(1); db.execute('ROLLBACK')"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        engine = open_database(f"sqlite:///{path}")
        assert holder.wait(timeout=60) == 0  # the lock was given up before the tables could be made
    finally:
        holder.kill()
        holder.wait()
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert {"puzzle", "schedule", "run"} <= set(inspect(engine).get_table_names())
    engine.dispose()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "postgresql://user:secret@localhost:abc/db",
            "postgresql://user:***@localhost:abc/db: not a usable URL: its port",
        ),
        ("postgresql:user:secret@localhost/db", "'postgresql:user:***@localhost/db' is not a URL"),
    ],
)
def test_a_malformed_url_is_one_line_with_its_password_masked(tmp_path: Path, url: str, message: str) -> None:
    done = _starbattle(_pipeline_config(tmp_path, url), "stats")
    _, err = done.communicate(timeout=120)
    assert done.returncode == 2 and message in err and "secret" not in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
