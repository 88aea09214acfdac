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
from pathlib import Path
from typing import Any

from sqlalchemy import BigInteger, Column, LargeBinary, UniqueConstraint, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.pool import StaticPool
from sqlmodel import Field, SQLModel, create_engine

from starbattle_core.puzzle import InputError


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
    regions: str  # region symbol rows joined by "/", e.g. "AABB/ACCB/..."
    solution: str  # JSON list of [row, col] pairs
    difficulty: int
    band: str = Field(index=True)
    fun: float
    looks: float
    seed: int = Field(sa_type=BigInteger)  # 60 bits (flows/tasks.py derive_seed): PostgreSQL's INTEGER is 32
    generator_version: str
    created: dt.datetime = Field(default_factory=_now)


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


class Run(SQLModel, table=True):
    """One pipeline run, tied to its Prefect flow run when there is one."""

    id: int | None = Field(default=None, primary_key=True)
    flow_run_id: str | None = Field(default=None, index=True)
    name: str
    kind: str  # nightly | backfill | manual
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


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    # WAL lets readers (the CLI, the UI) work during a run's writes; the busy timeout makes two writers queue
    # instead of failing at once.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def shown_url(url: str) -> str:
    """The URL as it may be printed: any password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


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
            engine = create_engine(url, connect_args={"timeout": 30})
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
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def open_database(url: str) -> Engine:
    """An engine with every table created, or an InputError naming the URL when the database cannot be opened or
    written (an unwritable path, a server that refuses): checked before any run starts, so nothing is half made."""
    engine = make_engine(url)
    try:
        SQLModel.metadata.create_all(engine)
    except DBAPIError as error:
        engine.dispose()
        reason = str(error.orig).splitlines()[0] if error.orig is not None else str(error).splitlines()[0]
        raise InputError(f"database {shown_url(url)}: cannot open for writing: {reason}") from None
    return engine
