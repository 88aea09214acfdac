"""The pipeline's database: every table in one module, and the engine factory.

SQLite by default (one file under data/, WAL so the UI and a run can read while another run writes); PostgreSQL or
anything else SQLAlchemy speaks by URL. No Prefect import: the CLI reads the database without starting Prefect.

Tables:
- `layout`: the layout bank, one row per valid star layout of a (size, stars), in enumeration order, with use counts.
- `puzzle`: a generated board (regions, solution, scores, seed, generator version).
- `solvepath`: a board's step-by-step solve path, keyed by (puzzle, solver version) so a new solver can regrade.
- `schedule`: which board is published for a (date, slot); UNIQUE(date, slot) is what keeps two concurrent runs
  from publishing two boards for one slot.
- `run`: one pipeline run (Prefect flow run id, kind, start, end, status, config hash, versions).
- `attempt`: one generator call for a (run, date, slot): seed, candidates tried, repair rounds, seconds per stage,
  outcome; `rejection`: its rejection counts by reason.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import BigInteger, Column, LargeBinary, UniqueConstraint, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Field, SQLModel, create_engine

from starbattle_core.puzzle import InputError
from starbattle_store.variety import add_key_columns

# Any fixed number: the PostgreSQL advisory lock taken while the tables are created.
SCHEMA_LOCK = 0x5747_4254
# How long a write waits for another writer's lock before it fails with one line ("database is locked").
BUSY_TIMEOUT_SECONDS = 30.0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Layout(SQLModel, table=True):
    """One valid star layout (rows and columns only, regions ignored) of a (size, stars)."""

    __table_args__ = (UniqueConstraint("size", "stars", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    size: int = Field(index=True)
    stars: int
    position: int  # index in the engine's enumeration order
    # The row masks as little-endian uint32 bytes (bit c of row r = star at (r, c)), as the engine's bank holds them.
    rows: bytes = Field(sa_column=Column(LargeBinary, nullable=False, index=True))
    uses: int = 0


class PuzzleRecord(SQLModel, table=True):
    """A generated board with its intended (and only) solution and its scores."""

    __tablename__ = "puzzle"
    id: int | None = Field(default=None, primary_key=True)
    game: str
    size: int
    stars: int
    regions: str  # JSON list of region symbol rows, e.g. ["AABB", "ACCB", ...]
    solution: str  # JSON list of [row, col] pairs
    difficulty: int
    band: str = Field(index=True)
    fun: float
    looks: float
    seed: int = Field(sa_type=BigInteger)  # 60 bits (flows/tasks.py derive_seed): PostgreSQL's INTEGER is 32
    generator_version: str
    created: dt.datetime = Field(default_factory=_now)
    # Canonical keys of the region map and the star layout (variety.py): UNIQUE, so no map and no layout is published
    # twice, checked by index; NULL once a forced re-run or a replacement unschedules the board.
    map_key: str | None = Field(default=None, index=True, unique=True)
    layout_key: str | None = Field(default=None, index=True, unique=True)


class SolvePath(SQLModel, table=True):
    """A board's solve path as one solver version found it (steps as JSON)."""

    __table_args__ = (UniqueConstraint("puzzle_id", "solver_version"),)
    id: int | None = Field(default=None, primary_key=True)
    puzzle_id: int = Field(foreign_key="puzzle.id", index=True)
    solver_version: str = Field(index=True)
    difficulty: int
    band: str
    steps: str  # JSON: the grader's walkthrough
    created: dt.datetime = Field(default_factory=_now)


class ScheduleEntry(SQLModel, table=True):
    """The board published for one slot of one date."""

    __tablename__ = "schedule"
    __table_args__ = (UniqueConstraint("date", "slot"),)
    id: int | None = Field(default=None, primary_key=True)
    date: dt.date = Field(index=True)
    slot: str
    position: int  # the slot's place in the day's order
    puzzle_id: int = Field(foreign_key="puzzle.id")
    run_id: int | None = Field(default=None, foreign_key="run.id")


class Replacement(SQLModel, table=True):
    """A published board an operator replaced (`starbattle replace`) or a forced re-run made again: the replaced
    board's puzzle row stays, marked by this row with the board that took its place, when and why."""

    id: int | None = Field(default=None, primary_key=True)
    date: dt.date = Field(index=True)
    slot: str
    puzzle_id: int = Field(foreign_key="puzzle.id", index=True)  # the replaced board
    replaced_by: int = Field(foreign_key="puzzle.id")
    reason: str
    replaced_at: dt.datetime = Field(default_factory=_now)
    run_id: int | None = Field(default=None, foreign_key="run.id")


class Run(SQLModel, table=True):
    """One pipeline run, tied to its Prefect flow run when there is one."""

    id: int | None = Field(default=None, primary_key=True)
    flow_run_id: str | None = Field(default=None, index=True)
    name: str
    kind: str  # nightly | backfill | manual | replace
    started: dt.datetime = Field(default_factory=_now)
    ended: dt.datetime | None = None
    status: str = "running"  # running | completed | failed
    config_hash: str
    solver_version: str
    generator_version: str


class Attempt(SQLModel, table=True):
    """One generator call for a slot: its seed, effort and outcome (accepted; exhausted its budget; near_duplicate
    of a board already chosen that day; or lost to a concurrent run that scheduled the slot first)."""

    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = Field(default=None, foreign_key="run.id", index=True)
    date: dt.date = Field(index=True)
    slot: str
    attempt: int
    seed: int = Field(sa_type=BigInteger)
    outcome: str  # accepted | exhausted | near_duplicate | lost
    puzzle_id: int | None = Field(default=None, foreign_key="puzzle.id")
    candidates: int
    repair_rounds: int
    stage_seconds: str  # JSON object: stage -> seconds
    seconds: float  # wall time of the call


class Rejection(SQLModel, table=True):
    """How many candidates one attempt rejected for one reason."""

    __table_args__ = (UniqueConstraint("attempt_id", "reason"),)
    id: int | None = Field(default=None, primary_key=True)
    attempt_id: int = Field(foreign_key="attempt.id", index=True)
    reason: str
    count: int


def masked_url(url: str) -> str:
    """A database URL as it may be printed, its password (`user:secret@`) masked by the text alone: the URL may be
    too malformed for a URL parser (`postgresql:user:secret@host/db`, missing its `//`)."""
    head, at, host = url.rpartition("@")
    parts = re.match(r"([A-Za-z][A-Za-z0-9+.-]*:(?://)?)?(.*)", head, re.DOTALL)
    if not at or parts is None or ":" not in parts[2]:
        return url
    user = parts[2].split(":", 1)[0]
    return f"{parts[1] or ''}{user}:***@{host}"


def _switch_to_wal(cursor: Any) -> None:
    """`PRAGMA journal_mode=WAL`, asked again while another connection holds the write lock, within the busy timeout
    as a write waits. On a new file (still a rollback journal) SQLite answers the switch "database is locked" at
    once, without calling the busy handler, when another process holds the lock (creating its tables, or switching
    the file itself): three processes opening one new database together failed 8 of 900 openings so, and none of
    2,400 with this wait."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    # WAL lets readers (the CLI, the UI) work during a run's writes; the busy timeout makes two writers queue
    # instead of failing at once.
    _switch_to_wal(cursor)
    cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_SECONDS * 1000)}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def shown_url(url: str) -> str:
    """The URL as it may be printed: any password masked, even in a URL SQLAlchemy cannot parse."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return masked_url(url)


def database_problem(error: BaseException) -> str | None:
    """The one line to print for a database failure under a command (a damaged file, a lock held too long, a server
    gone), or None when `error` is not a database failure."""
    if not isinstance(error, SQLAlchemyError):
        return None
    orig = getattr(error, "orig", None)
    reason = str(orig if orig is not None else error).strip().splitlines()
    first = reason[0] if reason else type(error).__name__
    hint = ""
    if "locked" in first:
        hint = ": another process holds it (a run, or a tool with the file open); try again when it is done"
    elif "malformed" in first or "not a database" in first:
        hint = ": the file is damaged; restore it from a backup or move it aside to start a new one"
    return f"database: {first}{hint}"


def make_engine(url: str) -> Engine:
    """An engine for a database URL. SQLite files get WAL and a busy timeout, and their folder is created;
    `sqlite://` (no path) is a private in-memory database shared by every session of this engine."""
    try:
        if url in ("sqlite://", "sqlite:///:memory:"):
            engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
        elif url.startswith("sqlite:///"):
            path = Path(url[len("sqlite:///") :])
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise InputError(
                    f"database {shown_url(url)}: cannot create folder {path.parent}: {error.strerror}"
                ) from None
            engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_SECONDS})
        else:
            target = make_url(url)
            if target.drivername == "postgresql":
                # SQLAlchemy's default PostgreSQL driver is psycopg2; the project installs psycopg 3 (extra `postgres`).
                target = target.set(drivername="postgresql+psycopg")
            engine = create_engine(target, pool_pre_ping=True)
    except NoSuchModuleError:
        raise InputError(f"database {shown_url(url)}: no SQLAlchemy driver installed for this URL") from None
    except ModuleNotFoundError as error:
        raise InputError(f"database {shown_url(url)}: driver not installed ({error})") from None
    except ArgumentError as error:
        raise InputError(f"database {shown_url(url)}: {error}") from None
    except InputError:  # already one line naming the problem (InputError is a ValueError too)
        raise
    except ValueError as error:  # what SQLAlchemy raises for a port that is not a number
        reason = "its port is not a number" if "int()" in str(error) else str(error)
        raise InputError(f"database {shown_url(url)}: not a usable URL: {reason}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


# Attempts at creating the tables: a process that loses the race to create one finds it made on its next attempt.
CREATE_ATTEMPTS = 5


def _create_tables(engine: Engine) -> None:
    """Create the missing tables; safe when several processes open a new database at once (each checks, then
    creates: one that finds its table made by another in between tries again, and then has nothing left to do)."""
    for attempt in range(CREATE_ATTEMPTS):
        try:
            with engine.begin() as connection:
                if engine.dialect.name == "postgresql":
                    # PostgreSQL's catalogue can fail a losing CREATE with a duplicate key rather than "already
                    # exists": under this lock (released at commit) the second process waits, then finds them made.
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
                SQLModel.metadata.create_all(connection)
                add_key_columns(connection)  # a database made before the variety keys
            return
        except DBAPIError as error:
            racing = "already exists" in str(error.orig) or "duplicate column" in str(error.orig)
            if not racing or attempt == CREATE_ATTEMPTS - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


def _check_sqlite(engine: Engine) -> None:
    """A damaged SQLite file fails here, before anything is written to it: `quick_check` reads every page (a few
    milliseconds for this project's databases); BEGIN IMMEDIATE then takes and drops the write lock, so a database
    locked past the busy timeout is found now, not in the middle of a run."""
    with engine.connect() as connection:
        verdict = [row[0] for row in connection.exec_driver_sql("PRAGMA quick_check").fetchall()]
        if verdict != ["ok"]:
            raise InputError(f"the file is damaged ({verdict[0][:80]}); nothing was written to it")
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        connection.exec_driver_sql("ROLLBACK")


def open_database(url: str) -> Engine:
    """An engine with every table created, or an InputError naming the URL when the database cannot be opened or
    written (an unwritable path, a server that refuses, a damaged or locked file): checked before any run starts, so
    nothing is half made."""
    engine = make_engine(url)
    try:
        if engine.dialect.name == "sqlite":
            _check_sqlite(engine)
        _create_tables(engine)
    except InputError as error:
        engine.dispose()
        raise InputError(f"database {shown_url(url)}: {error}") from None
    except DBAPIError as error:
        engine.dispose()
        reason = str(error.orig).splitlines()[0] if error.orig is not None else str(error).splitlines()[0]
        if "malformed" in reason or "not a database" in reason:  # damage the first read met, before quick_check
            damaged = f"the file is damaged ({reason}); nothing was written to it"
            raise InputError(f"database {shown_url(url)}: {damaged}") from None
        raise InputError(f"database {shown_url(url)}: cannot open for writing: {reason}") from None
    return engine
