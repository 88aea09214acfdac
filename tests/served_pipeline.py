"""The served pipeline the way a user runs it, shared by test_served.py and test_workers.py: a config with small
slots, a new shell's environment, the command lines of the README and docs/pipeline.md (copied as a user copies
them, run from the project folder), and the check that a date holds one whole, uniquely solvable board per slot."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from starbattle_core.counter import count_solutions
from starbattle_store import day_boards
from starbattle_store.db import open_database

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# Small slots keep a run to seconds: two Star Battle sizes and a Queens board, so both growers run.
SERVED_SLOTS = [
    {"name": "starbattle-6", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
    {"name": "starbattle-7", "game": "starbattle", "size": 7, "stars": 1, "band": "easy"},
    {"name": "queens-8", "game": "queens", "size": 8, "stars": 1, "band": "easy"},
]
START_TIMEOUT = 300.0  # a Prefect server start plus deployment registration on a loaded 2-core machine
RUN_TIMEOUT = 600.0


def served_config(folder: Path, port: int, workers: int, name: str) -> Path:
    """`folder/NAME.yaml`: the served slots, a database `folder/NAME.db`, a Prefect home and `ui_port` = `port`."""
    pipeline: dict[str, Any] = {
        "slots": SERVED_SLOTS,
        "database_url": f"sqlite:///{folder / f'{name}.db'}",
        "prefect_home": str(folder / "prefect"),
        "budget_seconds": 60,
        "workers": workers,
        "ui_port": port,
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"pipeline": pipeline}))
    return path


def shell_env(folder: Path) -> dict[str, str]:
    """A new shell's environment: no Prefect settings inherited from the test process, a home of its own, and uv
    (the README's `uv run`) on the PATH with its usual cache."""
    uv = shutil.which("uv")
    assert uv, "uv is not on the PATH: the README's set-up installs it (python3 -m pip install uv)"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PREFECT_")}
    env.pop("STARBATTLE_CONFIG", None)
    env.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
    env["HOME"] = str(folder / "home")
    env["PATH"] = os.pathsep.join([str(BIN), str(Path(uv).parent), env.get("PATH", "")])
    (folder / "home").mkdir(exist_ok=True)
    return env


def doc_line(pattern: str, page: str = "README.md") -> str:
    """The first line of `page` (README.md or a docs/ page) matching `pattern`: a command as a user copies it."""
    lines = [line.strip() for line in (REPO / page).read_text().splitlines() if re.search(pattern, line)]
    assert lines, f"{page} has no line matching {pattern!r}"
    return lines[0].strip("`")


def api_line() -> str:
    return doc_line(r"^\s*export PREFECT_API_URL=")


def check_day(database_url: str, day: dt.date) -> None:
    """`day` holds one board per served slot, each of its slot's kind and uniquely solved by its stored solution."""
    boards = day_boards(open_database(database_url), day)
    assert sorted(board.slot for board in boards) == sorted(slot["name"] for slot in SERVED_SLOTS)
    for board in boards:
        slot = next(s for s in SERVED_SLOTS if s["name"] == board.slot)
        assert (board.record.game, board.record.size, board.record.band) == (slot["game"], slot["size"], slot["band"])
        puzzle = board.puzzle()
        check = count_solutions(puzzle, limit=2)
        assert check.exact and check.count == 1 and check.solutions[0] == puzzle.solution
