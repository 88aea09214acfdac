"""Several Prefect workers on one work pool, the way the README says to run them: a fresh Prefect server and home,
the pool and `prefect deploy --all` from the project folder, then two `prefect worker start --pool starbattle`
processes (each taking one flow run at a time). Three backfill runs on distinct dates are triggered through
Prefect's client, then the nightly from a plain shell's `prefect deployment run`; each worker must have run some of
them (its own log says which), every run must complete, the shared database must hold exactly one board per date
and slot, and the deploy must have created the nightly's overdue automation.

Slow to start (a Prefect server, a deployment, two workers, a subprocess per flow run: 2-4 minutes on a loaded
2-core machine; 292 s measured under load), so the pipeline's own work is kept tiny: three small slots, one date a
run, in-process generation; and the test is marked slow (`pytest` leaves it out; CI runs it).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pipeline_processes import free_port, stop
from served_pipeline import (
    BIN,
    REPO,
    RUN_TIMEOUT,
    SERVED_SLOTS,
    START_TIMEOUT,
    api_line,
    check_day,
    doc_line,
    served_config,
    shell_env,
)

from flows.server import healthy
from starbattle_store import day_boards
from starbattle_store.db import open_database

pytestmark = [pytest.mark.flow, pytest.mark.slow]  # minutes: see the module docstring

DATES = [dt.date(2026, 10, 1), dt.date(2026, 10, 2), dt.date(2026, 10, 3)]
NIGHTLY = dt.date(2026, 11, 27)
WORKERS = ("worker-a", "worker-b")


def _sh(env: dict[str, str], port: int, line: str, cwd: Path, **popen: object) -> subprocess.Popen[bytes]:
    """A README line in a new bash, pointed at this test's server (the README's 4200 is `ui_port`)."""
    script = f"{api_line()}\nexec {line}".replace("4200", str(port))
    return subprocess.Popen(  # type: ignore[call-overload]
        ["bash", "-c", script], env=env, cwd=cwd, start_new_session=True, **popen
    )


async def _trigger_and_wait(api: str) -> list[tuple[str, str]]:
    """Start one backfill run a date on the deployment and wait until all are final: (flow run id, state type)."""
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: api}):
        runs = [
            await run_deployment(
                "backfill/backfill", parameters={"start": day.isoformat(), "end": day.isoformat()}, timeout=0
            )
            for day in DATES
        ]
        deadline = time.monotonic() + RUN_TIMEOUT
        async with get_client() as client:
            while True:
                states = [(await client.read_flow_run(run.id)).state for run in runs]
                if all(state is not None and state.is_final() for state in states):
                    return [(str(run.id), str(state.type.value)) for run, state in zip(runs, states, strict=True)]
                assert time.monotonic() < deadline, f"runs not final after {RUN_TIMEOUT} s: {states}"
                await asyncio.sleep(2)


async def _online_workers(api: str) -> set[str]:
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: api}):
        async with get_client() as client:
            workers = await client.read_workers_for_work_pool("starbattle")
    return {worker.name for worker in workers if str(worker.status.value) == "ONLINE"}


def _runs_taken(log: str) -> set[str]:
    """The flow runs a worker's log says it started: submitted, and not aborted as taken by another worker."""
    submitted = set(re.findall(r"submitting flow run '([0-9a-f-]+)'", log))
    return submitted - set(re.findall(r"Aborted submission of flow run '([0-9a-f-]+)'", log))


def test_two_workers_share_the_pool_s_runs(tmp_path: Path, migrated_prefect_home: Callable[[Path], Path]) -> None:
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    config = served_config(tmp_path, port, workers=1, name="pool")
    env = shell_env(tmp_path)
    env["PREFECT_HOME"] = str(migrated_prefect_home(tmp_path / "prefect"))
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    logs = {name: tmp_path / f"{name}.log" for name in ("server", *WORKERS)}
    processes: list[subprocess.Popen[bytes]] = []
    try:
        with open(logs["server"], "wb") as out:
            command = [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)]
            started = subprocess.Popen(
                command, env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
            processes.append(started)
        deadline = time.monotonic() + START_TIMEOUT
        while not healthy(api):
            assert processes[0].poll() is None, logs["server"].read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "the Prefect server did not start"
            time.sleep(2)
        for pattern in (r"^\s*uv run prefect work-pool create starbattle", r"^\s*uv run prefect deploy --all"):
            line = doc_line(pattern, "docs/pipeline.md")
            done = _sh(env, port, line, REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out, _ = done.communicate(timeout=300)
            assert done.returncode == 0, out.decode(errors="replace")
        # The README's line for each of several workers; they poll every 2 s so both are seen taking runs at once.
        line = doc_line(r"^\s*uv run prefect worker start --pool starbattle --limit", "docs/pipeline.md")
        worker_env = {**env, "STARBATTLE_CONFIG": str(config), "PREFECT_WORKER_QUERY_SECONDS": "2"}
        for name in WORKERS:
            with open(logs[name], "wb") as out:
                named = line.replace("NAME", name)
                processes.append(_sh(worker_env, port, named, REPO, stdout=out, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + START_TIMEOUT
        while asyncio.run(_online_workers(api)) != set(WORKERS):
            assert all(process.poll() is None for process in processes), "a worker stopped"
            assert time.monotonic() < deadline, "the workers did not come online"
            time.sleep(2)
        finished = asyncio.run(_trigger_and_wait(api))
        said = {}
        for command in (
            f"uv run prefect deployment run 'daily/nightly' -p date={NIGHTLY} --watch",
            "uv run prefect automation ls",
        ):
            shell = _sh(env, port, command, REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            said[command], _ = shell.communicate(timeout=RUN_TIMEOUT)
            assert shell.returncode == 0, said[command]
    finally:
        for process in reversed(processes):
            stop(process)
    texts = {name: logs[name].read_text(errors="replace") for name in WORKERS}
    assert [state for _, state in finished] == ["COMPLETED"] * len(DATES), (finished, texts)
    nightly, listed = said.values()
    assert "nightly-overdue" in listed, listed
    [nightly_run] = re.findall(r"UUID: ([0-9a-f-]{36})", nightly)
    # Both workers may see a scheduled run and submit it; the server lets one take it and aborts the other's.
    taken = {name: _runs_taken(texts[name]) for name in WORKERS}
    assert all(taken.values()), taken  # each worker ran at least one of the runs
    runs = {run for run, _ in finished} | {nightly_run}
    assert set.union(*taken.values()) == runs and not set.intersection(*taken.values()), (taken, runs)
    engine = open_database(f"sqlite:///{tmp_path / 'pool.db'}")
    for day in [*DATES, NIGHTLY]:
        check_day(f"sqlite:///{tmp_path / 'pool.db'}", day)
        assert len(day_boards(engine, day)) == len(SERVED_SLOTS)
