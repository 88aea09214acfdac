"""The pipeline's flows through the real Prefect engine, behind one session-scoped test harness.

Small slots and budgets keep these quick; the real default seven slots run when STARBATTLE_FULL_DAY=1 (minutes on
2 cores: too long for every run of the suite). The flows read their config from a file (`config_path`), each test
with its own database under tmp_path.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from postgres_server import fresh_database
from sqlmodel import Session, select

from flows.db import Attempt, Layout, PuzzleRecord, Run, ScheduleEntry, SolvePath
from flows.settings import load_settings
from flows.tasks import database
from starbattle_core.counter import count_solutions

pytestmark = pytest.mark.flow

# Small easy boards: the generator fills each in about a second (medium ones take several).
SMALL_SLOTS = [
    {"name": "starbattle-easy", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-easy", "game": "queens", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-easy-7", "game": "queens", "size": 7, "stars": 1, "band": "easy"},
]
DAY = "2026-11-29"


@pytest.fixture(scope="session", autouse=True)
def harness() -> Iterator[None]:
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


def write_config(
    tmp_path: Path,
    *,
    slots: list[dict[str, Any]] | None = SMALL_SLOTS,
    workers: int = 1,
    database_url: str | None = None,
) -> str:
    pipeline: dict[str, Any] = {
        "database_url": database_url or f"sqlite:///{tmp_path / 'starbattle.db'}",
        "prefect_home": str(tmp_path / "prefect"),
        "budget_seconds": 20,
        "workers": workers,
    }
    if slots is not None:
        pipeline["slots"] = slots
    path = tmp_path / "starbattle.yaml"
    path.write_text(yaml.safe_dump({"pipeline": pipeline}))
    return str(path)


def snapshot(config: str) -> dict[str, Any]:
    """Everything that describes the published boards: schedule entries, puzzles, solve paths."""
    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        return {
            "schedule": sorted((e.date, e.slot, e.puzzle_id) for e in session.exec(select(ScheduleEntry)).all()),
            "puzzles": sorted((p.id, p.regions, p.solution) for p in session.exec(select(PuzzleRecord)).all()),
            "paths": sorted((p.puzzle_id, p.solver_version) for p in session.exec(select(SolvePath)).all()),
        }


def check_whole_boards(config: str, day: dt.date, slots: list[dict[str, Any]]) -> None:
    """Every scheduled board of `day`: its slot's game, size and band, exactly one solution, its solve path, its
    accepting attempt's counters."""
    from flows.store import day_boards

    engine = database(load_settings(config).pipeline.resolved_database_url())
    boards = day_boards(engine, day)
    by_name = {slot["name"]: slot for slot in slots}
    for board in boards:
        slot = by_name[board.slot]
        assert (board.game, board.size, board.stars, board.band) == (
            slot["game"],
            slot["size"],
            slot["stars"],
            slot["band"],
        )
        puzzle = board.puzzle()
        result = count_solutions(puzzle, limit=2)
        assert result.exact and result.count == 1 and result.solutions[0] == puzzle.solution
        assert board.steps, "a stored board has its solve path"
        assert board.candidates >= 1
    with Session(engine) as session:
        accepted = session.exec(select(Attempt).where(Attempt.date == day, Attempt.outcome == "accepted")).all()
    assert sorted(a.puzzle_id for a in accepted) == sorted(b.puzzle_id for b in boards)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_daily_fills_every_slot_once_and_publishes_artifacts(backend: str, tmp_path: Path, request) -> None:
    """The same on SQLite and on a real PostgreSQL server (a fresh database)."""
    from prefect.client.orchestration import get_client

    from flows.daily import daily

    url = fresh_database(request.getfixturevalue("postgres_url")) if backend == "postgresql" else None
    config = write_config(tmp_path, database_url=url)
    result = daily(date=DAY, config_path=config)
    assert result["published"] == len(SMALL_SLOTS) and result["unfilled"] == []
    first = snapshot(config)
    assert [slot for _date, slot, _id in first["schedule"]] == sorted(s["name"] for s in SMALL_SLOTS)
    check_whole_boards(config, dt.date.fromisoformat(DAY), SMALL_SLOTS)

    again = daily(date=DAY, config_path=config)
    assert again["skipped"] == [DAY] and again["published"] == 0
    assert snapshot(config) == first

    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        run = session.get(Run, result["run_id"])
    assert run is not None and run.status == "completed" and run.kind == "manual" and run.flow_run_id
    with get_client(sync_client=True) as client:
        from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.flow_run_id]))
        )
        flow_run = client.read_flow_run(run.flow_run_id)
    assert flow_run.name == f"daily-{DAY}"
    by_key = {artifact.key: artifact for artifact in artifacts}
    assert {"daily-boards", "daily-rejections", "daily-pictures"} <= set(by_key)
    table = by_key["daily-boards"].data
    rows = json.loads(table) if isinstance(table, str) else table
    assert sorted(row["slot"] for row in rows) == sorted(s["name"] for s in SMALL_SLOTS)
    assert all(row["band"] == next(s["band"] for s in SMALL_SLOTS if s["name"] == row["slot"]) for row in rows)
    counters = by_key["daily-rejections"].data
    counters = json.loads(counters) if isinstance(counters, str) else counters
    assert {row["slot"] for row in counters} == {s["name"] for s in SMALL_SLOTS}
    assert all(row["accepted"] == 1 and row["candidates"] >= 1 for row in counters)
    assert "┃" in by_key["daily-pictures"].data and "starbattle-easy" in by_key["daily-pictures"].data


def test_backfill_fills_a_range_and_skips_complete_dates(tmp_path: Path) -> None:
    from flows.daily import backfill

    config = write_config(tmp_path)
    first = backfill(start="2026-11-01", end="2026-11-02", config_path=config)
    assert first["published"] == 2 * len(SMALL_SLOTS) and first["skipped"] == []
    before = snapshot(config)
    second = backfill(start="2026-11-02", end="2026-11-03", config_path=config)
    assert second["skipped"] == ["2026-11-02"] and second["published"] == len(SMALL_SLOTS)
    after = snapshot(config)
    assert set(before["schedule"]) <= set(after["schedule"])  # the complete date kept its boards
    assert len(after["schedule"]) == 3 * len(SMALL_SLOTS)
    for day in ("2026-11-01", "2026-11-02", "2026-11-03"):
        check_whole_boards(config, dt.date.fromisoformat(day), SMALL_SLOTS)


def test_regrade_restores_missing_paths_and_the_layout_bank_fills(tmp_path: Path) -> None:
    from flows.daily import daily
    from flows.maintenance import enumerate_layouts, regrade
    from starbattle_core.grader import SOLVER_VERSION
    from starbattle_core.layouts import count_layouts

    config = write_config(tmp_path, slots=SMALL_SLOTS[:1])
    assert enumerate_layouts(size=6, stars=1, config_path=config) == count_layouts(6, 1)
    assert enumerate_layouts(size=6, stars=1, config_path=config) == count_layouts(6, 1)  # not stored twice
    daily(date=DAY, config_path=config)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        [path] = session.exec(select(SolvePath)).all()
        steps = path.steps
        session.delete(path)  # as if the board had been graded by an older solver only
        session.commit()
        assert sum(layout.uses for layout in session.exec(select(Layout)).all()) == 1
    assert regrade(config_path=config) == {"solver_version": SOLVER_VERSION, "stale": 1, "regraded": 1}
    assert regrade(config_path=config)["stale"] == 0
    with Session(engine) as session:
        [path] = session.exec(select(SolvePath)).all()
    assert path.solver_version == SOLVER_VERSION
    assert json.loads(path.steps).keys() == json.loads(steps).keys() and json.loads(path.steps)["steps"]


def test_an_interrupted_run_leaves_whole_boards_and_the_next_completes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flows.tasks
    from flows.daily import daily

    config = write_config(tmp_path)
    real_generate = flows.tasks.generate
    calls: list[str] = []

    def failing_generate(slot: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(slot.game)
        if len(calls) == 2:
            raise RuntimeError("the machine went away")
        return real_generate(slot, *args, **kwargs)

    monkeypatch.setattr(flows.tasks, "generate", failing_generate)
    state = daily(date=DAY, config_path=config, return_state=True)
    assert state.is_failed()
    part = snapshot(config)
    assert len(part["schedule"]) == 1 and len(part["puzzles"]) == 1 and len(part["paths"]) == 1
    check_whole_boards(config, dt.date.fromisoformat(DAY), SMALL_SLOTS)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        assert [run.status for run in session.exec(select(Run)).all()] == ["failed"]

    monkeypatch.setattr(flows.tasks, "generate", real_generate)
    result = daily(date=DAY, config_path=config)
    assert result["published"] == len(SMALL_SLOTS) - 1
    done = snapshot(config)
    assert set(part["schedule"]) <= set(done["schedule"]) and len(done["schedule"]) == len(SMALL_SLOTS)
    check_whole_boards(config, dt.date.fromisoformat(DAY), SMALL_SLOTS)


# The real default day: seven slots on both cores, about 50 s on a quiet machine; the product, so it runs in CI.
def test_the_default_seven_slots(tmp_path: Path) -> None:
    from flows.daily import daily

    config = write_config(tmp_path, slots=None, workers=2)
    slots = [slot.model_dump() for slot in load_settings(config).pipeline.slots]
    result = daily(date=DAY, config_path=config)
    assert result["published"] == 7 and result["unfilled"] == []
    check_whole_boards(config, dt.date.fromisoformat(DAY), slots)
    boards = snapshot(config)["puzzles"]
    assert len(boards) == 7
