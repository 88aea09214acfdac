"""Shared test fixtures: where the shared real-puzzle data lives, a loader for it, a PostgreSQL server and a Prefect
server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from postgres_server import fresh_database, postgres_server
from sqlalchemy.engine import Engine

from starbattle_core.puzzle import Puzzle

REPO = Path(__file__).resolve().parents[1]
# CI clones the project into a fresh folder with a copy of shared/ beside it, as on a developer's machine.
SHARED_DATA = REPO.parent / "shared" / "data"


# The files that take the most of a worker's time (processes, servers, clusters: `--durations`), first: with
# `--dist loadfile --no-loadscope-reorder` xdist hands out whole files in collection order, so these start at once
# and the short files fill in around them. (Without the flag xdist puts the files with the most tests first, and the
# few long tests of test_workers.py, test_concurrent.py and test_signals.py ran last, one worker busy, two idle:
# fresh-clone CI on one day 12:48 in that order, 11:48 in this one.)
LONGEST_FIRST = (
    "test_served.py",
    "test_flows.py",
    "test_signals.py",
    "test_workers.py",
    "test_dask.py",
    "test_concurrent.py",
    "test_servers.py",
    "test_generator_stages.py",
    "test_counter.py",
    "test_picture.py",
    "test_db.py",
    "test_faults.py",
    "test_funnel.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: number for number, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


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


@pytest.fixture(scope="module", autouse=True)
def events_stream_closed_after_module() -> Iterator[None]:
    """After a module whose flows ran in this process, stop Prefect's events worker, as Prefect's own test harness
    does on exit (`EventsWorker.drain_all`). Left running, its websocket to the session's server pings every 20 s
    from Prefect's event loop thread, and each ping draws from the global `random` module: when that falls inside
    a Hypothesis draw of a later module in the same worker, Hypothesis warns that the strategy used `random`
    (seen once in CI, tests/test_counter.py). The next flow run starts a new worker."""
    yield
    events = sys.modules.get("prefect.events.worker")  # not imported here: a module that ran no flow pays nothing
    if events is not None:
        events.EventsWorker.drain_all(timeout=30)


@pytest.fixture(scope="module")
def real_puzzles() -> list[Puzzle]:
    """Real 10x10 2-star boards with their published solutions, standing in for generated ones (stored_boards.py)."""
    from stored_boards import archive_boards

    return archive_boards(4)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A store test's database on both back ends: SQLite in memory and a real PostgreSQL server (a fresh database
    per test)."""
    from starbattle_store.db import open_database

    if request.param == "sqlite":
        yield open_database("sqlite://")
        return
    engine = open_database(fresh_database(request.getfixturevalue("postgres_url")))
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def migrated_prefect_home(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """`seed(home)`: make `home` a Prefect home whose database is already at this Prefect's schema; returns `home`.

    A server start on a new home first migrates an empty database: about 7 s of CPU of its 12 (5 s on a home
    already migrated; `prefect server database upgrade -y` timed on a loaded machine). The migration runs once a
    session and each home gets a copy of its database. For tests whose subject is not a home's first start
    (stopping servers, serving, workers); a first `starbattle daily` on a new home still migrates its own.
    """
    template = tmp_path_factory.mktemp("prefect-template")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PREFECT_")}
    done = subprocess.run(
        [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"],
        env={**env, "PREFECT_HOME": str(template)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0 and (template / "prefect.db").is_file(), done.stdout[-2000:] + done.stderr[-2000:]

    def seed(home: Path) -> Path:
        home.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template / "prefect.db", home / "prefect.db")
        return home

    return seed
