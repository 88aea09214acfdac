"""Variety across days: no region map and no star layout is published twice in the whole archive.

Every stored board carries two canonical keys (starbattle_core.generator.similarity): `map_key`, equal for two
region maps exactly when one is the other turned, mirrored and/or relabelled, and `layout_key`, the same for the
star layout. Both are UNIQUE columns of the `puzzle` table, so the check at scheduling time is one indexed lookup
however long the archive grows, and two concurrent runs cannot both commit a board with the same key: the second
commit fails on the constraint inside its publishing transaction (PostgreSQL and SQLite alike).

A board unscheduled by a forced re-run gives its keys back (it is no longer published). Databases made before the
keys existed get the two columns and their keys on opening (`add_key_columns`); a repeat already in such a
database keeps its key on the earliest board only.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence

from sqlalchemy import Connection, inspect, text
from sqlalchemy.engine import Engine

from starbattle_core.generator import Board
from starbattle_core.generator.similarity import layout_key, region_map_key

KEY_COLUMNS = ("map_key", "layout_key")


def board_keys(size: int, regions: Sequence[str], solution: Sequence[Sequence[int]]) -> tuple[str, str]:
    """The (map_key, layout_key) of a board given as region symbol rows and [row, col] star pairs."""
    numbers: dict[str, int] = {}
    cells = [numbers.setdefault(symbol, len(numbers)) for row in regions for symbol in row]
    mask = sum(1 << (row * size + column) for row, column in solution)
    return region_map_key(cells, size), layout_key(mask, size)


def puzzle_keys(board: Board | None) -> tuple[str, str]:
    """The (map_key, layout_key) of a generator's accepted board."""
    assert board is not None
    puzzle = board.puzzle
    assert puzzle.solution is not None
    return region_map_key(puzzle.regions, puzzle.size), layout_key(puzzle.solution, puzzle.size)


def published_before(engine: Engine, keys: tuple[str, str], replacing: tuple[dt.date, str] | None = None) -> bool:
    """Whether a stored board already has this region map or this star layout (one lookup on each UNIQUE index).
    `replacing` (date, slot): a forced re-run's slot, whose current board is about to be unscheduled, does not
    count."""
    map_key, star_key = keys
    query = "SELECT 1 FROM puzzle WHERE (map_key = :map_key OR layout_key = :layout_key)"
    if replacing is not None:
        query += " AND id NOT IN (SELECT puzzle_id FROM schedule WHERE date = :date AND slot = :slot)"
    date, slot = replacing if replacing is not None else (None, None)
    with engine.connect() as connection:
        found = connection.execute(
            text(query + " LIMIT 1"), {"map_key": map_key, "layout_key": star_key, "date": date, "slot": slot}
        ).first()
    return found is not None


def add_key_columns(connection: Connection) -> None:
    """Bring a `puzzle` table made before the keys up to date, inside the caller's schema transaction: add the
    missing columns, fill them for every stored board (earliest first: a repeat already stored keeps NULL), then
    the UNIQUE indexes. Each step can run again, so a migration cut short finishes on the next opening. Nothing to
    do once both indexes exist (a new database gets them from the table definition)."""
    schema = inspect(connection)
    indexes = {index["name"] for index in schema.get_indexes("puzzle")}
    if {f"ix_puzzle_{name}" for name in KEY_COLUMNS} <= indexes:
        return
    present = {column["name"] for column in schema.get_columns("puzzle")}
    for name in KEY_COLUMNS:
        if name not in present:
            connection.execute(text(f"ALTER TABLE puzzle ADD COLUMN {name} VARCHAR"))
    rows = connection.execute(text("SELECT id, size, regions, solution FROM puzzle ORDER BY id")).all()
    seen: set[str] = set()
    for puzzle_id, size, regions, solution in rows:
        keys = board_keys(size, json.loads(regions), json.loads(solution))
        fresh = {name: key if key not in seen else None for name, key in zip(KEY_COLUMNS, keys, strict=True)}
        seen.update(keys)
        connection.execute(
            text("UPDATE puzzle SET map_key = :map_key, layout_key = :layout_key WHERE id = :id"),
            {**fresh, "id": puzzle_id},
        )
    for name in KEY_COLUMNS:
        connection.execute(text(f"CREATE UNIQUE INDEX IF NOT EXISTS ix_puzzle_{name} ON puzzle ({name})"))
