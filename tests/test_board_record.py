"""One board record (starbattle_core/generator/record.py): it round-trips through its JSON, and a board printed by
`generate --json` and the same board stored and printed by `show --json` agree field by field, with both versions
named."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from conftest import run_starbattle

import starbattle_cli.commands_pipeline  # noqa: F401  (registers the pipeline commands on the root app)
from flows.settings import load_settings
from flows.tasks import accepted_board
from starbattle_core.formats import puzzle_from_json
from starbattle_core.generator import GENERATOR_VERSION, Slot, board_record, generate, record_from_json
from starbattle_core.grader import SOLVER_VERSION
from starbattle_store import Effort, day_boards, save_board
from starbattle_store.db import open_database

SLOT = Slot("queens", 6, 1, "easy")  # a board in well under a second
SEED = 3


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "starbattle.yaml"
    pipeline = {"database_url": f"sqlite:///{tmp_path / 'starbattle.db'}", "prefect_home": str(tmp_path / "prefect")}
    config.write_text(yaml.safe_dump({"pipeline": pipeline}))
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    return tmp_path


@pytest.mark.usefixtures("project")
def test_a_record_round_trips_through_its_json() -> None:
    settings = load_settings()
    board = generate(SLOT, SEED, 60.0, settings.generator, settings.grading).board
    assert board is not None
    record = board_record(board)
    printed = json.loads(json.dumps(record.to_json()))
    assert record_from_json(printed) == record
    # The JSON letters regions in reading order; the partition into regions is what must survive.
    assert set(puzzle_from_json(printed).region_masks) == set(board.puzzle.region_masks)
    assert puzzle_from_json(printed).solution == board.puzzle.solution
    # Both versions by name; `version` is kept for older readers and is the generator's.
    assert printed["solver_version"] == SOLVER_VERSION == board.version
    assert printed["generator_version"] == printed["version"] == GENERATOR_VERSION
    with pytest.raises(KeyError, match="solver_version"):
        record_from_json({key: value for key, value in printed.items() if key != "solver_version"})


@pytest.mark.usefixtures("project")
def test_generate_json_and_show_json_of_one_board_agree(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "--game", SLOT.game, "--size", str(SLOT.size), "--band", SLOT.band, "--seed", str(SEED)]
    code, out, _ = run_starbattle(capsys, *argv, "--json")
    assert code == 0
    generated = json.loads(out)

    # The same board through the flow's own mapping into the database, then read back by `show --json`.
    settings = load_settings()
    board = generate(SLOT, SEED, 60.0, settings.generator, settings.grading).board
    assert board is not None
    effort = Effort(attempt=0, seed=SEED, candidates=1, repair_rounds=0, rejections={}, stage_seconds={}, seconds=0.1)
    engine = open_database(settings.pipeline.resolved_database_url())
    day = dt.date(2027, 1, 1)
    save_board(
        engine, run_id=None, date=day, slot="queens-easy", position=0, board=accepted_board(board), effort=effort
    )
    # The database's rows map back to the same record (the rounds are the run's, not kept).
    [stored] = day_boards(engine, day)
    assert stored.record == replace(board_record(board), repair_rounds=None, tune_rounds=None)
    code, out, _ = run_starbattle(capsys, "show", "--date", day.isoformat(), "--json")
    assert code == 0
    (shown,) = [json.loads(line) for line in out.splitlines()]

    shared = set(generated) & set(shown)
    assert {"regions", "solution", "band", "difficulty", "seed", "solver_version", "generator_version"} <= shared
    assert {key: generated[key] for key in shared} == {key: shown[key] for key in shared}
    # What is each command's own: the run's counters and rounds, the date and slot.
    assert set(generated) - shared == {"counters", "repair_rounds", "tune_rounds"}
    assert set(shown) - shared == {"date", "slot"}
