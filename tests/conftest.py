"""Shared test fixtures: where the shared real-puzzle data lives, a loader for it, a PostgreSQL server and a Prefect
server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_server import fresh_database, postgres_server
from sqlalchemy.engine import Engine

from starbattle_core.puzzle import Puzzle

REPO = Path(__file__).resolve().parents[1]
# CI clones the project into a fresh folder with a copy of shared/ beside it, as on a developer's machine.
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_file(relative: str) -> Path:
    path = SHARED_DATA / relative
    if not path.exists():
        # Never skip: a golden test that silently does not run is a check that cannot fail.
        raise FileNotFoundError(f"shared data {path} is missing: clone the project beside shared/")
    return path


def run_starbattle(capsys, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    """Run `starbattle ARGS` through the real entry point, in-process; returns (exit status, stdout, stderr).

    The entry point turns bad input into one line on stderr and status 2, so tests see what a user would.
    """
    import io
    import sys

    from starbattle_cli.app import main

    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    old_argv = sys.argv
    sys.argv = ["starbattle", *args]
    try:
        main()
        status = 0
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        sys.argv = old_argv
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL server for the whole session (started on first use); see postgres_server.py."""
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="session")
def prefect_api() -> Iterator[str]:
    """One Prefect server for the session, for the tests that need "a server" to report to (started on first use);
    yields its API URL. Prefect's test harness: a server on a free port with a throwaway database, and this
    process's flows report to it; `starbattle` processes given the URL (pipeline_processes.starbattle) do too.

    A server start with its migrations takes 20-60 s on 2 cores, and it was paid once per module (test_flows,
    test_site, test_dask, test_concurrent). Tests of how the CLI starts, reuses and stops its own server
    (test_servers, test_signals, test_served, test_workers) still start theirs.
    """
    from prefect.settings import get_current_settings
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield str(get_current_settings().api.url)


@pytest.fixture(scope="module")
def real_puzzles() -> list[Puzzle]:
    """Real 10x10 2-star boards with their published solutions, standing in for generated ones (stored_boards.py)."""
    from stored_boards import archive_boards

    return archive_boards(4)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A store test's database on both back ends: SQLite in memory and a real PostgreSQL server (a fresh database
    per test)."""
    from flows.db import open_database

    if request.param == "sqlite":
        yield open_database("sqlite://")
        return
    engine = open_database(fresh_database(request.getfixturevalue("postgres_url")))
    yield engine
    engine.dispose()
