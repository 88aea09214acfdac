"""Ctrl-C, SIGTERM and kill -9 of a generating run (`starbattle daily` / `backfill` on a local Dask cluster),
tested the way a user does it: the command as a subprocess in a session of its own (a shell's job) on a fresh
database and Prefect home, stopped from outside once its workers are at work. A Ctrl-C or SIGTERM must end it
promptly with one line and status 128 + signal; any stop must leave no Prefect server or worker behind, and a sound
database with only whole boards.

Each test starts a real Prefect server (on a home whose database is already migrated: a first start is not the
subject here) and a local cluster: 25-35 s on a quiet 2-core machine, 3-4 minutes when it is loaded; so only daily's
Ctrl-C runs in `pytest`'s default selection, the others are marked slow (CI runs them too).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import REPO, shared_file
from pipeline_processes import SMALL_SLOTS, children, published, workers_of
from test_servers import alive, port_open

START_SECONDS = 300  # the Prefect server's start and the workers' spawn on a busy machine
STOP_SECONDS = 30  # from the signal to the command's exit
STOPPED = {signal.SIGINT: "error: interrupted (Ctrl-C)\n", signal.SIGTERM: "error: stopped (SIGTERM)\n"}


@pytest.fixture
def slow_run(tmp_path: Path, migrated_prefect_home: Callable[[Path], Path]) -> tuple[dict[str, str], Path, Path]:
    """(environment, database, Prefect home) of a config whose first slot publishes within seconds and whose other
    two never pass the generator's gates (an unreachable expert band on 6x6 with a huge candidate budget), so the
    cluster's two workers are still at work when the signal comes."""
    stuck = {**SMALL_SLOTS[0], "band": "expert", "candidate_budget": 100_000, "budget_seconds": 3600}
    config = tmp_path / "starbattle.yaml"
    pipeline = {
        "slots": [SMALL_SLOTS[0], {**stuck, "name": "stuck-a"}, {**stuck, "name": "stuck-b"}],
        "database_url": f"sqlite:///{tmp_path / 's.db'}",
        "prefect_home": str(migrated_prefect_home(tmp_path / "prefect")),
        "workers": 2,
        "site_dir": None,
    }
    config.write_text(yaml.safe_dump({"pipeline": pipeline}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    return {**env, "STARBATTLE_CONFIG": str(config)}, tmp_path / "s.db", tmp_path / "prefect"


def catches(pid: int, signum: int) -> bool:
    """Whether process `pid` has a handler for `signum` (its SigCgt mask)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signum - 1) & 1)


DAILY = ["daily", "--date", "2026-12-01"]
BACKFILL = ["backfill", "--start", "2026-12-01", "--end", "2026-12-02"]


@pytest.mark.parametrize(
    ("command", "signum"),
    [
        pytest.param(DAILY, signal.SIGINT, id="daily-Ctrl-C"),
        # The same path (the CLI's handler, the funnel's safe points, the task runner's block) by the other signal
        # and the other command at once.
        pytest.param(BACKFILL, signal.SIGTERM, id="backfill-SIGTERM", marks=pytest.mark.slow),
    ],
)
def test_a_stopped_run_ends_with_one_line_and_leaves_nothing_behind(slow_run, command: list[str], signum: int) -> None:
    env, db, home = slow_run
    cli = subprocess.Popen(
        [sys.executable, "-c", "from starbattle_cli.app import main; main()", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
        start_new_session=True,  # as a shell starts a job: a signal to its process group is a Ctrl-C at the terminal
    )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not (published(db) and len(workers_of(cli.pid)) == 2):
            if cli.poll() is not None:  # the whole of what it said: pytest would cut a long assertion message
                out, err = cli.communicate()
                pytest.fail(
                    f"the run ended with status {cli.returncode} before the signal:\n{out[-3000:]}\n{err[-8000:]}"
                )
            if time.monotonic() > deadline:
                state = f"{published(db)} boards published, {len(workers_of(cli.pid))} workers"
                cli.send_signal(signal.SIGUSR1)  # the CLI prints its threads' stacks: what the run waits for
                time.sleep(2)
                os.killpg(cli.pid, signal.SIGKILL)
                _, err = cli.communicate()
                pytest.fail(f"the run did not get going in {START_SECONDS} s: {state}\n{err[-6000:]}")
            time.sleep(0.5)
        [marker] = (home / "servers").glob("*.json")
        server, port = int(json.loads(marker.read_text())["pid"]), int(marker.stem)
        workers = children(cli.pid)
        time.sleep(2)  # both workers inside a stage task
        if signum == signal.SIGINT:
            os.killpg(cli.pid, signal.SIGINT)  # the terminal sends it to the whole foreground job
        else:
            cli.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        _, err = cli.communicate(timeout=STOP_SECONDS)
        took = time.monotonic() - stopped
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
            cli.communicate()
    assert "Traceback" not in err and err.endswith(STOPPED[signum]) and err.count("\n") <= 3, err
    assert cli.returncode == 128 + signum, (cli.returncode, err)
    assert took < STOP_SECONDS
    deadline = time.monotonic() + STOP_SECONDS
    while any(alive(pid) for pid in [server, *workers]) or port_open(port):
        assert time.monotonic() < deadline, f"left behind: {[pid for pid in [server, *workers] if alive(pid)]}"
        time.sleep(0.25)
    assert not marker.exists()
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # Whole boards only: every scheduled board has its puzzle and solve path, every puzzle its schedule entry.
        assert connection.execute("SELECT count(*) FROM schedule").fetchone()[0] >= 1
        assert connection.execute(
            "SELECT count(*) FROM schedule s LEFT JOIN puzzle p ON p.id = s.puzzle_id WHERE p.id IS NULL"
        ).fetchone() == (0,)
        assert connection.execute(
            "SELECT count(*) FROM puzzle p LEFT JOIN schedule s ON s.puzzle_id = p.id "
            "LEFT JOIN solvepath v ON v.puzzle_id = p.id WHERE s.id IS NULL OR v.id IS NULL"
        ).fetchone() == (0,)
        assert connection.execute("SELECT status FROM run").fetchall() == [("failed",)]


@pytest.mark.slow
def test_a_killed_run_leaves_no_server_or_worker_behind(slow_run) -> None:
    """kill -9 of the command, which runs no handler: the kernel ends its Prefect server (PR_SET_PDEATHSIG) and the
    local cluster's workers end themselves (each watches a pipe from the process that started it)."""
    env, db, home = slow_run
    cli = subprocess.Popen(
        [sys.executable, "-c", "from starbattle_cli.app import main; main()", *DAILY],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not (published(db) and len(workers_of(cli.pid)) == 2):
            assert cli.poll() is None and time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.5)
        [marker] = (home / "servers").glob("*.json")
        left = [int(json.loads(marker.read_text())["pid"]), *children(cli.pid)]
        time.sleep(2)  # both workers inside a stage task
        cli.kill()
        cli.wait()
        deadline = time.monotonic() + STOP_SECONDS
        while any(alive(pid) for pid in left):
            assert time.monotonic() < deadline, f"left behind: {[pid for pid in left if alive(pid)]}"
            time.sleep(0.25)
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
            cli.wait()


def test_sigusr1_prints_the_stacks_and_the_command_goes_on() -> None:
    """`kill -USR1` of a command that seems stuck (here `verify -` waiting on its input) prints where each thread is
    and stops nothing: given its board afterwards, the command answers as usual."""
    board = shared_file("queens/linkedin.jsonl").read_text(encoding="utf-8").splitlines()[0]
    cli = subprocess.Popen(
        [sys.executable, "-c", "from starbattle_cli.app import main; main()", "verify", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        # Once the CLI has its handler (after its imports, which take seconds on a loaded machine: a fixed 3 s wait
        # sent the signal too early there, and SIGUSR1's default action ended the command).
        deadline = time.monotonic() + START_SECONDS
        while not catches(cli.pid, signal.SIGUSR1):
            assert cli.poll() is None and time.monotonic() < deadline, cli.communicate()
            time.sleep(0.1)
        time.sleep(0.5)  # then on to the read of its input
        cli.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
        out, err = cli.communicate(board + "\n", timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.communicate()
    assert "most recent call first" in err and "starbattle_cli" in err, err
    assert cli.returncode == 0 and "unique" in out, (out, err)
