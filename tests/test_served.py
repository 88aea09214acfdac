"""The served pipeline the way a user runs it: `starbattle serve` in its own process, runs triggered from a plain
shell's `prefect` CLI with the documented commands (`uv run prefect ...`, from the project folder), boards checked
in the database.

Served flows load from their file path, not as package modules, and their local cluster's workers unpickle tasks in
fresh interpreters: calling the flow as a function (tests/test_flows.py) never exercises that path. Slow (a Prefect
server start, a subprocess per flow run), so one serve process carries every run of the module.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from pipeline_processes import free_port, stop
from served_pipeline import (
    BIN,
    REPO,
    RUN_TIMEOUT,
    START_TIMEOUT,
    api_line,
    check_day,
    doc_line,
    served_config,
    shell_env,
)

pytestmark = pytest.mark.flow


class Served:
    def __init__(self, folder: Path, port: int, process: subprocess.Popen[bytes], log: Path) -> None:
        self.folder, self.port, self.process, self.log = folder, port, process, log

    def shell(self, command: str, timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess[str]:
        """Run `command` in bash as a user's new shell in the project folder would (the README's lines, with this
        test's port)."""
        return subprocess.run(
            ["bash", "-c", command.replace("4200", str(self.port))],
            check=False,
            env=shell_env(self.folder),
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def why(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, migrated_prefect_home: Callable[[Path], Path]) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("served")
    migrated_prefect_home(folder / "prefect")
    port = free_port()
    # The serve process's config generates in-process; the cluster run names the other config as its parameter:
    # one local cluster (two worker processes to start) for the module, not one a run.
    config = served_config(folder, port, workers=1, name="inline")
    served_config(folder, port, workers=2, name="pool")
    env = shell_env(folder)
    env["STARBATTLE_CONFIG"] = str(config)
    log = folder / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(BIN / "starbattle"), "serve"],
            env=env,
            cwd=folder,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Served(folder, port, process, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, f"serve stopped (exit {process.returncode}):\n{server.why()}"
            if "serving nightly" in log.read_text(errors="replace"):
                ready = server.shell(
                    f"{api_line()}\nuv run prefect deployment inspect 'backfill/backfill'", timeout=120
                )
                if ready.returncode == 0:
                    break
            assert time.monotonic() < deadline, f"serve did not register its deployments:\n{server.why()}"
            time.sleep(2)
        yield server
    finally:
        stop(process)


def test_a_served_nightly_run_fills_its_date_on_a_local_cluster(served: Served) -> None:
    config = shlex.quote(str(served.folder / "pool.yaml"))
    command = f"uv run prefect deployment run 'daily/nightly' -p date=2026-11-29 -p config_path={config} --watch"
    run = served.shell(f"{api_line()}\n{command}")
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}\n{served.why()}"
    check_day(f"sqlite:///{served.folder / 'pool.db'}", dt.date(2026, 11, 29))


def test_a_served_nightly_run_fills_its_date_in_process(served: Served) -> None:
    run = served.shell(f"{api_line()}\nuv run prefect deployment run 'daily/nightly' -p date=2026-11-28 --watch")
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}\n{served.why()}"
    check_day(f"sqlite:///{served.folder / 'inline.db'}", dt.date(2026, 11, 28))


def test_serve_creates_the_nightly_overdue_automation(served: Served) -> None:
    listed = served.shell(f"{api_line()}\nuv run prefect automation ls", timeout=120)
    assert listed.returncode == 0 and "nightly-overdue" in listed.stdout, listed.stdout + listed.stderr


def test_the_readme_backfill_command_runs_the_served_backfill(served: Served) -> None:
    """The README's line, as written (the range narrowed to one day), from a shell that knows only the README."""
    command = doc_line(r"uv run prefect deployment run 'backfill/backfill'")
    command = re.sub(r"start=\S+", "start=2026-11-01", re.sub(r"end=\S+", "end=2026-11-01", command))
    run = served.shell(f"{api_line()}\n{command}")
    assert run.returncode == 0, f"{command}\n{run.stdout}\n{run.stderr}\n{served.why()}"
    check_day(f"sqlite:///{served.folder / 'inline.db'}", dt.date(2026, 11, 1))


def test_a_first_cli_daily_says_where_its_boards_are_and_keeps_its_info_logs(tmp_path: Path) -> None:
    """`starbattle daily` on a fresh database in an 80-column terminal: whole slot names in its tables, the lines
    saying where the boards are and how to see them, and the run's INFO logs and its `manual` tag in Prefect's database
    (the UI)."""
    import sqlite3

    slots = [
        {"name": "starbattle-easy-six-by-six", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
        {"name": "queens-easy-seven-by-seven", "game": "queens", "size": 7, "stars": 1, "band": "easy"},
    ]
    config = served_config(tmp_path, free_port(), workers=1, name="cli")
    raw = yaml.safe_load(config.read_text())
    raw["pipeline"]["slots"] = slots
    config.write_text(yaml.safe_dump(raw))
    env = {**shell_env(tmp_path), "STARBATTLE_CONFIG": str(config), "COLUMNS": "80"}
    done = subprocess.run(
        [str(BIN / "starbattle"), "daily", "--date", "2026-11-26"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for slot in slots:
        assert done.stdout.count(slot["name"]) >= 2, done.stdout  # the boards table and the counters table
    assert f"boards stored in sqlite:///{tmp_path / 'cli.db'}" in done.stdout
    assert "starbattle show --date 2026-11-26" in done.stdout and "starbattle ui, then http://127.0.0.1:" in done.stdout
    with sqlite3.connect(tmp_path / "prefect" / "prefect.db") as prefect_db:
        logs = prefect_db.execute("SELECT level, message FROM log").fetchall()
        run_tags = [json.loads(tags) for (tags,) in prefect_db.execute("SELECT tags FROM flow_run")]
        task_tags = [json.loads(tags) for (tags,) in prefect_db.execute("SELECT tags FROM task_run")]
    assert any(level == 20 and "starbattle-easy-six-by-six attempt 0: accepted" in message for level, message in logs)
    # The run is tagged as a command's run; its task runs are not (flows/tasks.py's `untagged` says why).
    assert run_tags == [["manual"]] and task_tags and all(tags == [] for tags in task_tags), (run_tags, task_tags)
