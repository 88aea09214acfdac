"""The pipeline run the way an operator runs it on several machines: one Prefect server (what `starbattle ui` keeps
up; in the tests, conftest's session-wide `prefect_api`), `starbattle` commands as separate processes reporting to
it, each with its own config file.

Used by test_dask.py and test_concurrent.py. Every process started here is stopped by the code that started it;
ports are free ones picked at start.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

# Small slots of three different shapes: a few seconds a date on a loaded machine, and no two slots of one day can
# be near-duplicates of each other, so every slot's board depends on its own seed only.
SMALL_SLOTS = [
    {"name": "starbattle-6", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-7", "game": "queens", "size": 7, "stars": 1, "band": "easy"},
    {"name": "queens-8", "game": "queens", "size": 8, "stars": 1, "band": "easy"},
]
RUN_TIMEOUT = 600.0
STARBATTLE = str(Path(sys.executable).with_name("starbattle"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_config(folder: Path, database_url: str, **pipeline: Any) -> Path:
    """A config with the small slots, `database_url` and a Prefect home in `folder`; `pipeline` adds keys."""
    folder.mkdir(parents=True, exist_ok=True)
    raw = {
        "pipeline": {
            "slots": SMALL_SLOTS,
            "database_url": database_url,
            "prefect_home": str(folder / "prefect"),
            # Generous: the candidates the generator goes through decide the board, never this clock.
            "budget_seconds": 120,
            **pipeline,
        }
    }
    path = folder / "starbattle.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def starbattle(config: Path, api_url: str | None, *argv: str) -> subprocess.Popen[str]:
    """Start `starbattle ARGV` as its own process with `config`, reporting to the Prefect server at `api_url`."""
    env = {**os.environ, "STARBATTLE_CONFIG": str(config), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_HOME", None)
    env.pop("PREFECT_API_URL", None)
    if api_url is not None:
        env["PREFECT_API_URL"] = api_url
    # A session of its own, so `finished` can stop the command with its pool's workers (one process group).
    return subprocess.Popen(
        [STARBATTLE, *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=config.parent,
        start_new_session=True,
    )


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Wait for a process started by `starbattle`; (exit status, stdout, stderr)."""
    try:
        out, err = process.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        # The whole group: the cluster's workers hold the command's pipes open, so killing the command alone left
        # communicate() below waiting on them for ever (seen: two backfills of test_concurrent.py that never
        # finished hung the suite instead of failing it).
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"{process.args!r} ran over {RUN_TIMEOUT} s:\n{out[-2000:]}\n{err[-2000:]}") from None
    return process.returncode, out, err


def stop(process: subprocess.Popen[bytes], grace: float = 60) -> None:
    """Stop a process started in a session of its own, and everything it started: SIGTERM to its group, SIGKILL to
    what is left of the group after `grace` s. Stopping the leader alone (`uv run`, which a README line execs) left
    its `prefect worker` running after CI whenever the worker took longer than the grace to stop under load."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def children(pid: int) -> list[int]:
    """The processes `pid` started (its cluster's workers, the multiprocessing resource tracker), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def workers_of(pid: int) -> list[int]:
    """The local cluster's workers among `pid`'s children (spawned: their command line runs `spawn_main`)."""
    workers = []
    for child in children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            workers.append(child)
    return workers


def published(db: Path) -> int:
    """How many boards the SQLite database at `db` has scheduled (0 before its tables are made)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            return int(connection.execute("SELECT count(*) FROM schedule").fetchone()[0])
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0
