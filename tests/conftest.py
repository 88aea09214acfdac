"""Shared test fixtures: where the shared real-puzzle data lives, a loader for it, and a PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_server import postgres_server

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
