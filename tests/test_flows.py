"""The pipeline's flows through the real Prefect engine, behind one session-scoped test harness.

Small slots and budgets keep these quick, beside one run of the real default seven slots. The flows read their
config from a file (`config_path`), each test with its own database under tmp_path.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import yaml
from postgres_server import fresh_database
from sqlmodel import Session, select

from flows.settings import load_settings
from flows.tasks import database
from starbattle_core.counter import count_solutions
from starbattle_store.db import Attempt, Layout, PuzzleRecord, Run, ScheduleEntry, SolvePath

pytestmark = [pytest.mark.flow, pytest.mark.usefixtures("prefect_api")]

# Small easy boards: the generator fills each in about a second (medium ones take several).
SMALL_SLOTS = [
    {"name": "starbattle-easy", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-easy", "game": "queens", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-easy-7", "game": "queens", "size": 7, "stars": 1, "band": "easy"},
]
DAY = "2026-11-29"


def write_config(
    tmp_path: Path,
    *,
    slots: list[dict[str, Any]] | None = SMALL_SLOTS,
    workers: int = 1,
    database_url: str | None = None,
    batch_size: int | None = None,
    batch_growth: float | None = None,
    stale_run_seconds: float | None = None,
    site_dir: Path | None = None,
    name: str = "starbattle",
) -> str:
    pipeline: dict[str, Any] = {
        "database_url": database_url or f"sqlite:///{tmp_path / f'{name}.db'}",
        "prefect_home": str(tmp_path / "prefect"),
        # The candidate budget ends a slot's search; the clock is only an outer limit, which a CI machine under load
        # must not reach first (at 20 s the default 10x10 easy slot once ran out of it).
        "budget_seconds": 120,
        "workers": workers,
    }
    if batch_size is not None:
        pipeline["batch_size"] = batch_size
    if batch_growth is not None:
        pipeline["batch_growth"] = batch_growth
    if stale_run_seconds is not None:
        pipeline["stale_run_seconds"] = stale_run_seconds
    if site_dir is not None:
        pipeline["site_dir"] = str(site_dir)
    if slots is not None:
        pipeline["slots"] = slots
    path = tmp_path / f"{name}.yaml"
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
    from starbattle_store import day_boards

    engine = database(load_settings(config).pipeline.resolved_database_url())
    boards = day_boards(engine, day)
    by_name = {slot["name"]: slot for slot in slots}
    for board in boards:
        slot = by_name[board.slot]
        assert (board.record.game, board.record.size, board.record.stars, board.record.band) == (
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
        from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

        task_runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run.id])))
    assert flow_run.name == f"daily-{DAY}"
    # The funnel's stages are task runs of their own, named after their stage function.
    stages = ("sample_layouts", "grow_regions", "grade_candidates", "score_candidates", "tune_candidates")
    for stage in (*stages, "verify_candidates", "schedule_board"):
        assert any(run.task_key.startswith(stage) for run in task_runs), stage
    by_key = {artifact.key: artifact for artifact in artifacts}
    assert {"daily-boards", "daily-rejections", "daily-pictures", "daily-funnel"} <= set(by_key)
    funnel = by_key["daily-funnel"].data
    funnel = json.loads(funnel) if isinstance(funnel, str) else funnel
    assert {row["slot"] for row in funnel} == {s["name"] for s in SMALL_SLOTS}
    assert {row["stage"] for row in funnel} == {"sample", "grow", "grade", "score", "tune", "verify"}
    table = by_key["daily-boards"].data
    rows = json.loads(table) if isinstance(table, str) else table
    assert sorted(row["slot"] for row in rows) == sorted(s["name"] for s in SMALL_SLOTS)
    assert all(row["band"] == next(s["band"] for s in SMALL_SLOTS if s["name"] == row["slot"]) for row in rows)
    counters = by_key["daily-rejections"].data
    counters = json.loads(counters) if isinstance(counters, str) else counters
    assert {row["slot"] for row in counters} == {s["name"] for s in SMALL_SLOTS}
    assert all(row["accepted"] == 1 and row["candidates"] >= 1 for row in counters)
    pictures = by_key["daily-pictures"].data
    assert pictures.count("](data:image/svg+xml;base64,") == len(SMALL_SLOTS) and "starbattle-easy" in pictures


def test_the_boards_do_not_depend_on_batch_size_or_workers(tmp_path: Path) -> None:
    """One candidate per batch on one thread, or three per batch growing with what a slot tried, on a local cluster of
    two: the same boards."""
    from flows.daily import backfill

    one = write_config(tmp_path, batch_size=1, batch_growth=0, workers=1, name="one")
    pool = write_config(tmp_path, batch_size=3, batch_growth=1.0, workers=2, name="pool")
    # One date: test_funnel.py checks more batch sizes stage by stage; this is the flow's whole path. On 2026-10-02
    # a slot takes 5 candidates: five batches of one, and the pool's first batch of three is not enough.
    assert backfill(start="2026-10-02", end="2026-10-02", config_path=one)["unfilled"] == []
    assert backfill(start="2026-10-02", end="2026-10-02", config_path=pool)["unfilled"] == []
    boards = {}
    for config in (one, pool):
        engine = database(load_settings(config).pipeline.resolved_database_url())
        with Session(engine) as session:
            rows = session.exec(select(ScheduleEntry, PuzzleRecord).where(ScheduleEntry.puzzle_id == PuzzleRecord.id))
            boards[config] = sorted((e.date, e.slot, p.regions, p.solution, p.difficulty, p.seed) for e, p in rows)
            if config == one:
                tried = max(attempt.candidates for attempt in session.exec(select(Attempt)))
    assert len(boards[one]) == len(SMALL_SLOTS) and boards[one] == boards[pool]
    assert tried > 3, tried  # a slot needed more than the pool's first batch


def test_replace_makes_a_slot_again_keeps_the_old_board_and_republishes(tmp_path: Path) -> None:
    """An operator's `replace`: the slot's next attempt makes a new board, the replaced one stays in the database
    marked replaced (reason and time), the other slots are untouched, the page and feeds are written again, the run
    is recorded as a replace; and the same history on another database gives the same board."""
    import starbattle_store as store
    from flows.daily import daily, replace

    day = dt.date.fromisoformat(DAY)
    boards = {}
    for name in ("first", "again"):
        config = write_config(tmp_path, site_dir=tmp_path / f"site-{name}", name=name)
        daily(date=DAY, config_path=config)
        engine = database(load_settings(config).pipeline.resolved_database_url())
        before = {board.slot: board for board in store.day_boards(engine, day)}
        page = (tmp_path / f"site-{name}" / DAY / "boards.json").read_text()
        result = replace(date=DAY, slot="queens-easy", reason="too close to yesterday's", config_path=config)
        assert result["published"] == 1 and result["unfilled"] == []
        after = {board.slot: board for board in store.day_boards(engine, day)}
        old, new = before["queens-easy"], after["queens-easy"]
        assert new.puzzle_id != old.puzzle_id and new.record.regions != old.record.regions
        assert {slot: board.puzzle_id for slot, board in after.items() if slot != "queens-easy"} == {
            slot: board.puzzle_id for slot, board in before.items() if slot != "queens-easy"
        }
        [marked] = store.replacements(engine, day)
        assert (marked.slot, marked.puzzle_id, marked.replaced_by) == ("queens-easy", old.puzzle_id, new.puzzle_id)
        assert marked.reason == "too close to yesterday's" and marked.run_id == result["run_id"]
        with Session(engine) as session:
            assert session.get(PuzzleRecord, old.puzzle_id) is not None  # never deleted
            assert session.get(Run, result["run_id"]).kind == "replace"
            attempts = session.exec(select(Attempt).where(Attempt.slot == "queens-easy")).all()
        # The replace is the slot's next attempt after the one the day published (the day may have needed two)
        published, replaced = sorted(attempt.attempt for attempt in attempts if attempt.outcome == "accepted")
        assert replaced == published + 1 == max(attempt.attempt for attempt in attempts)
        republished = json.loads((tmp_path / f"site-{name}" / DAY / "boards.json").read_text())
        assert republished != json.loads(page)
        assert [board["regions"] for board in republished["boards"] if board["slot"] == "queens-easy"] == [
            list(new.record.regions)
        ]
        boards[name] = new.record
    assert boards["first"] == boards["again"]


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
    """Run as a command runs them (tagged `manual`), the maintenance flows' runs carry the tag and their task runs
    none (flows/tasks.py's `untagged` says why)."""
    from prefect import tags
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    from flows.daily import daily
    from flows.maintenance import enumerate_layouts, regrade
    from starbattle_core.grader import SOLVER_VERSION
    from starbattle_core.layouts import count_layouts

    config = write_config(tmp_path, slots=SMALL_SLOTS[:1])
    with tags("manual"):
        banked = enumerate_layouts(size=6, stars=1, config_path=config, return_state=True)
    assert banked.result() == count_layouts(6, 1)
    assert enumerate_layouts(size=6, stars=1, config_path=config) == count_layouts(6, 1)  # not stored twice
    daily(date=DAY, config_path=config)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        [path] = session.exec(select(SolvePath)).all()
        steps = path.steps
        session.delete(path)  # as if the board had been graded by an older solver only
        session.commit()
        assert sum(layout.uses for layout in session.exec(select(Layout)).all()) == 1
    with tags("manual"):
        regraded = regrade(config_path=config, return_state=True)
    assert regraded.result() == {"solver_version": SOLVER_VERSION, "stale": 1, "regraded": 1}
    assert regrade(config_path=config)["stale"] == 0
    with Session(engine) as session:
        [path] = session.exec(select(SolvePath)).all()
    assert path.solver_version == SOLVER_VERSION
    assert json.loads(path.steps).keys() == json.loads(steps).keys() and json.loads(path.steps)["steps"]
    runs = [banked.state_details.flow_run_id, regraded.state_details.flow_run_id]
    with get_client(sync_client=True) as client:
        assert [client.read_flow_run(run).tags for run in runs] == [["manual"], ["manual"]]
        task_runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=runs)))
    assert len(task_runs) == 3, [task_run.name for task_run in task_runs]  # the bank, its one batch, one regrade batch
    assert all(task_run.tags == [] for task_run in task_runs), [task_run.tags for task_run in task_runs]


def test_an_interrupted_run_leaves_whole_boards_and_the_next_completes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import starbattle_store
    from flows.daily import daily

    config = write_config(tmp_path)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    real_save = starbattle_store.save_board

    def failing_save(*args: Any, **kwargs: Any) -> Any:
        # The machine goes away once the first slot's board is stored: every later write fails, whatever round of
        # the funnel each slot's board came from.
        with Session(engine) as session:
            if session.exec(select(ScheduleEntry)).first() is not None:
                raise RuntimeError("the machine went away")
        return real_save(*args, **kwargs)

    monkeypatch.setattr(starbattle_store, "save_board", failing_save)
    state = daily(date=DAY, config_path=config, return_state=True)
    assert state.is_failed()
    part = snapshot(config)
    stored = len(part["schedule"])
    assert 1 <= stored < len(SMALL_SLOTS) and len(part["puzzles"]) == stored == len(part["paths"])
    check_whole_boards(config, dt.date.fromisoformat(DAY), SMALL_SLOTS)
    with Session(engine) as session:
        assert [run.status for run in session.exec(select(Run)).all()] == ["failed"]

    monkeypatch.setattr(starbattle_store, "save_board", real_save)
    result = daily(date=DAY, config_path=config)
    assert result["published"] == len(SMALL_SLOTS) - stored
    done = snapshot(config)
    assert set(part["schedule"]) <= set(done["schedule"]) and len(done["schedule"]) == len(SMALL_SLOTS)
    check_whole_boards(config, dt.date.fromisoformat(DAY), SMALL_SLOTS)


# The real default day: the product, so it runs in CI. In-process (`workers: 1`): run alone, this test took 40 s
# with a local cluster (77 s of CPU, the harness's server start included) and 23 s in-process (47 s); the cluster
# runs a day in test_served.py and in the tests above.
def test_the_default_seven_slots(tmp_path: Path) -> None:
    from flows.daily import daily

    # A cheap date for the default slots: 5 s of generator CPU in process against DAY's 16 (bench/bench_days.py).
    day = "2027-01-07"
    config = write_config(tmp_path, slots=None, workers=1)
    slots = [slot.model_dump() for slot in load_settings(config).pipeline.slots]
    result = daily(date=day, config_path=config)
    assert result["published"] == 7 and result["unfilled"] == []
    check_whole_boards(config, dt.date.fromisoformat(day), slots)
    boards = snapshot(config)["puzzles"]
    assert len(boards) == 7


def test_regrade_brings_paths_of_an_older_solver_version_up_to_date(tmp_path: Path) -> None:
    """After a solver change (a new SOLVER_VERSION), regrade adds each board's path under the new version, equal to
    what the grader says of the stored board now; the old version's path stays for history, and the day's boards
    read the new one."""
    import starbattle_store as store
    from flows.daily import daily
    from flows.maintenance import regrade
    from starbattle_core.grader import SOLVER_VERSION, grade, walkthrough_json

    config = write_config(tmp_path, slots=SMALL_SLOTS[:1])
    daily(date=DAY, config_path=config)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    old = "grader-2-0123456789ab"
    with Session(engine) as session:
        [path] = session.exec(select(SolvePath)).all()
        path.solver_version, path.difficulty, path.band, path.steps = old, 1, "expert", json.dumps({"steps": []})
        session.add(path)
        session.commit()
    assert regrade(config_path=config) == {"solver_version": SOLVER_VERSION, "stale": 1, "regraded": 1}
    with Session(engine) as session:
        paths = {p.solver_version: p for p in session.exec(select(SolvePath)).all()}
    assert set(paths) == {old, SOLVER_VERSION}
    current = paths[SOLVER_VERSION]
    puzzle = store.stored_puzzle(engine, current.puzzle_id)
    result = grade(puzzle, load_settings(config).grading)
    assert (current.difficulty, current.band) == (result.difficulty, result.band)
    assert json.loads(current.steps) == walkthrough_json(puzzle, result)
    [board] = store.day_boards(engine, dt.date.fromisoformat(DAY), solver_version=SOLVER_VERSION)
    assert (board.record.difficulty, board.record.band) == (result.difficulty, result.band) and board.steps["steps"]


def test_a_killed_run_is_marked_crashed_by_the_next_run(tmp_path: Path) -> None:
    """kill -9 of a run in its own process: its row stays `running` and its flow run RUNNING until a later run
    finds it silent for longer than the config's `stale_run_seconds` and marks both crashed. The bound is one
    heartbeat (30 s, the shortest Prefect sends) rather than the default three, to keep the wait short; the rule is
    the same, and test_funnel.py checks the default bound."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from prefect.client.orchestration import get_client
    from prefect.settings import get_current_settings

    from flows.daily import daily

    stale = 30
    config = write_config(tmp_path, slots=[{**SMALL_SLOTS[0], "candidate_budget": 100_000}], stale_run_seconds=stale)
    slow = tmp_path / "slow.yaml"  # a slot that never passes its gates: the run is still at work when killed
    raw = yaml.safe_load(Path(config).read_text())
    raw["generator"] = {"fun_gate": 100}
    slow.write_text(yaml.safe_dump(raw))
    env = {
        **os.environ,
        "PREFECT_API_URL": str(get_current_settings().api.url),
        "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30",
    }
    script = f"from flows.daily import daily; daily(date={DAY!r}, config_path={str(slow)!r})"
    victim = subprocess.Popen([sys.executable, "-c", script], env=env)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    try:
        deadline = time.monotonic() + 300
        while True:
            with Session(engine) as session:
                runs = session.exec(select(Run)).all()
            if runs and runs[0].flow_run_id:
                break
            assert victim.poll() is None and time.monotonic() < deadline, "the run did not start"
            time.sleep(0.5)
        time.sleep(2)
        os.kill(victim.pid, signal.SIGKILL)
        killed = time.monotonic()
    finally:
        victim.wait()
    [dead] = runs
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(dead.flow_run_id).state.type.value == "RUNNING"
    daily(date="2026-11-28", config_path=config)  # too soon: the run has not been silent for `stale` seconds yet
    with Session(engine) as session:
        assert session.get(Run, dead.id).status == "running"
    time.sleep(max(0.0, killed + stale + 2 - time.monotonic()))  # a dead process gives no sign after its kill
    daily(date="2026-11-27", config_path=config)
    with Session(engine) as session:
        assert session.get(Run, dead.id).status == "crashed"
        assert [run.status for run in session.exec(select(Run).where(Run.id != dead.id))] == ["completed"] * 2
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(dead.flow_run_id).state.type.value == "CRASHED"


def test_a_board_published_before_turned_and_relabelled_is_skipped(tmp_path: Path) -> None:
    """Variety across days (starbattle_store/variety.py): plant, on an earlier date, the board the day's first attempt
    makes, turned a quarter and relabelled; the run records that attempt as a repeat and publishes the next
    attempt's."""
    from flows.daily import daily
    from starbattle_store import AcceptedBoard, Effort, day_boards, save_board
    from starbattle_store.variety import board_keys

    slots = [SMALL_SLOTS[2]]
    scratch = write_config(tmp_path, slots=slots, name="scratch")
    assert daily(date=DAY, config_path=scratch)["published"] == 1
    [made] = day_boards(database(load_settings(scratch).pipeline.resolved_database_url()), dt.date.fromisoformat(DAY))
    n = made.record.size
    symbols = sorted({s for row in made.record.regions for s in row})
    rename = dict(zip(symbols, reversed(symbols), strict=True))
    turned = tuple("".join(rename[made.record.regions[n - 1 - c][r]] for c in range(n)) for r in range(n))
    stars = tuple(sorted((c, n - 1 - r) for r, c in made.record.solution))
    versions = {"seed": 1, "generator_version": "old", "solver_version": "old"}
    planted = AcceptedBoard(replace(made.record, regions=turned, solution=stars, **versions), {})
    config = write_config(tmp_path, slots=slots)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    effort = Effort(0, 1, 1, 0, {}, {}, 0.0)
    earlier = dt.date.fromisoformat(DAY) - dt.timedelta(days=200)
    assert save_board(engine, run_id=None, date=earlier, slot="old", position=0, board=planted, effort=effort)

    assert daily(date=DAY, config_path=config)["published"] == 1
    with Session(engine) as session:
        tried = session.exec(select(Attempt).where(Attempt.date == dt.date.fromisoformat(DAY))).all()
    assert [(a.attempt, a.outcome) for a in sorted(tried, key=lambda a: a.attempt)] == [(0, "repeat"), (1, "accepted")]
    [board] = day_boards(engine, dt.date.fromisoformat(DAY))
    keys = board_keys(n, board.record.regions, board.record.solution)
    assert keys[0] != board_keys(n, turned, stars)[0] and keys != board_keys(
        n, made.record.regions, made.record.solution
    )


def test_the_cluster_runs_show_on_the_dashboard_with_names_edges_and_logs(tmp_path: Path) -> None:
    """What the dashboard shows of a run on a local Dask cluster, read back through Prefect's client: the run tagged
    as the command line tags it; every stage's task run completed, named after its stage, round and chunk with the
    slots it carries, untagged (flows/tasks.py's `untagged` says why), drawn from the same chunk's stage before it
    (its upstream edge), with its log lines; the scheduling tasks after the funnel."""
    from prefect import tags
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId, LogFilter, LogFilterFlowRunId

    from flows.daily import daily

    slots = SMALL_SLOTS[:2]
    config = write_config(tmp_path, slots=slots, workers=2, batch_size=2)
    with tags("manual"):  # as flows/runner.py runs a command's flow
        result = daily(date=DAY, config_path=config)
    assert result["published"] == len(slots)
    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        run = session.get(Run, result["run_id"])
    assert run is not None and run.flow_run_id
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(UUID(run.flow_run_id)).tags == ["manual"]
        task_runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.flow_run_id])))
        logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.flow_run_id])))
    stages = ("sample_layouts", "grow_regions", "grade_candidates", "score_candidates", "tune_candidates")
    by_id = {task_run.id: task_run for task_run in task_runs}
    funnel = [task_run for task_run in task_runs if task_run.name.split()[0] in (*stages, "verify_candidates")]
    assert funnel and all(task_run.state is not None and task_run.state.is_completed() for task_run in funnel)
    for task_run in funnel:
        stage, label = task_run.name.split(" ", 1)
        carried = [slot for slot in slots if f"{slot['name']} {DAY}" in label]
        assert label.startswith("round ") and carried, task_run.name
        assert task_run.tags == [], task_run.name
        upstream = [by_id[edge.id] for edge in task_run.task_inputs.get("batches", []) if edge.id in by_id]
        if stage == "sample_layouts":
            assert upstream == [], task_run.name
        else:
            previous = (*stages, "verify_candidates")[(*stages, "verify_candidates").index(stage) - 1]
            assert [edge.name for edge in upstream] == [f"{previous} {label}"], task_run.name
    assert {task_run.name.split()[0] for task_run in funnel} == {*stages, "verify_candidates"}
    # Round 1 carries one candidate of each slot: two chunks on two workers, six stages each.
    assert sum(" round 1 chunk " in task_run.name for task_run in funnel) == 12
    assert sum(task_run.name.startswith("schedule_board") for task_run in task_runs) == len(slots)
    # Each task run's own lines (the workers send them to the API themselves), and the flow's own lines: Prefect
    # ships log lines in batches in the background, so they may reach the API a moment after the run returns.
    deadline = time.monotonic() + 20
    while sum(" accepted after " in log.message for log in logs) < len(slots) and time.monotonic() < deadline:
        time.sleep(0.5)
        with get_client(sync_client=True) as client:
            logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.flow_run_id])))
    finished = {log.task_run_id for log in logs if log.message.startswith("Finished in state Completed")}
    assert {task_run.id for task_run in funnel} <= finished
    assert sum(" accepted after " in log.message for log in logs) == len(slots)


def test_a_slot_left_without_a_board_fails_the_run_with_one_line(tmp_path: Path, prefect_api: str) -> None:
    """`starbattle backfill` whose slot cannot be filled (an expert band on 6x6 with two candidates): the other slot's
    board is published, the run ends with status 1 and one line naming the date and slot (no traceback: Prefect logs
    a raised error with its traceback, so the flow returns a Failed state instead), and both the run's row and the
    flow run on the dashboard say failed, with the same words."""
    from pipeline_processes import finished, starbattle
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    never = {**SMALL_SLOTS[0], "name": "never", "band": "expert", "candidate_budget": 2}
    config = tmp_path / "starbattle.yaml"
    pipeline = {
        "slots": [SMALL_SLOTS[0], never],
        "database_url": f"sqlite:///{tmp_path / 's.db'}",
        "workers": 1,
        "site_dir": None,
    }
    config.write_text(yaml.safe_dump({"pipeline": pipeline}), encoding="utf-8")
    status, _out, err = finished(
        starbattle(config, prefect_api, "backfill", "--start", "2027-03-01", "--end", "2027-03-01")
    )
    words = "no board (candidate budget or clock spent) for: 2027-03-01 never"
    assert (status, err) == (1, f"run failed: {words}\n")
    engine = database(load_settings(config).pipeline.resolved_database_url())
    with Session(engine) as session:
        assert [entry.slot for entry in session.exec(select(ScheduleEntry))] == [SMALL_SLOTS[0]["name"]]
        assert [run.status for run in session.exec(select(Run))] == ["failed"]
    with get_client(sync_client=True) as client:
        named = FlowRunFilter(name=FlowRunFilterName(any_=["backfill-2027-03-01..2027-03-01"]))
        (run,) = client.read_flow_runs(flow_run_filter=named)
    assert run.state is not None and run.state.is_failed() and run.state.message == words
