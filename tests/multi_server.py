"""A throwaway Prefect server of several API processes, as Prefect documents it for scaling past one process: its
database on PostgreSQL, its messaging, event ordering, lease storage and background-task queue on Redis
(`prefect-redis`), `prefect server start --workers N --no-services` for the API and `prefect server services start`
for the loop services (the event persister, the task-run recorder, the triggers...) in a process of their own, or
(`services_layout`) in several, each with a part of them switched on by Prefect's own settings.

Started by bench/bench_scale.py (`--server-workers N`) only: no test starts it (one start costs 60-80 s of CPU, more
than CI can spend; README "Running on a cluster"); tests/test_multi_server.py checks its services layouts without
starting it. Everything lives in a temporary folder and on free loopback ports, and is stopped on the way out. The
PostgreSQL server is tests/postgres_server.py's (a given one, or one started here); Redis is Debian's redis-server,
which must be installed (`apt-get install redis-server`).

Two things differ from a plain `prefect server start --workers N`, both because of what N processes starting at once
do to a fresh database: the migrations run once before (`prefect server database upgrade -y`), and so does the block
registration. With it left to the workers, one of two failed its start on PostgreSQL with `duplicate key value
violates unique constraint "uq_block_type__slug"` (each worker registers the block types at start) and uvicorn
started it again.

Splitting the loop services: `prefect server services start` starts every service whose setting says enabled
(prefect/server/services/base.py, `Service.enabled_services`, and the docket-run ones through
prefect/server/services/perpetual_services.py, `get_enabled_perpetual_services`), so a process with some of them
is that command with the others' `..._ENABLED` set to false (SERVICE_SWITCHES). Several task-run recorders share
the work: each reads the `events` stream in the one Redis consumer group `task-run-recorder` under a consumer name
of its own (prefect/server/services/task_run_recorder.py, `TaskRunRecorder.start`; prefect_redis/messaging.py,
`Consumer.run`: `XREADGROUP` with `>`, which hands each message to one consumer of the group), and its upsert
keeps the newest state whichever process writes last (`task_run.state_timestamp < excluded.state_timestamp`), so
two recorders neither do the work twice nor write an older state over a newer one. Every services process also
runs a docket worker (prefect/cli/_server_utils.py, `_run_all_services`), which takes its share of the background
tasks from Redis whatever is enabled: that cannot be switched off, and costs each process its polling.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from pipeline_processes import free_port
from postgres_server import fresh_database, postgres_server

from flows.server import healthy, stop_process

START_SECONDS = 300.0  # a busy 2-core machine takes a minute and more to start N + 1 server processes
# What `prefect server start --workers N` demands (prefect/cli/_server_utils.py, `_validate_multi_worker`), plus
# the background-task queue (docket), whose default `memory://` each process would keep to itself.
REDIS_SETTINGS = {
    "PREFECT_MESSAGING_BROKER": "prefect_redis.messaging",
    "PREFECT_MESSAGING_CACHE": "prefect_redis.messaging",
    "PREFECT_SERVER_EVENTS_CAUSAL_ORDERING": "prefect_redis.ordering",
    "PREFECT_SERVER_CONCURRENCY_LEASE_STORAGE": "prefect_redis.lease_storage",
}
# Prefect's loop services by name, with the settings that switch each off (prefect/settings/models/server/
# services.py and events.py). The triggers' setting covers the reactive and proactive triggers and the actions; the
# event persister's covers the events' vacuum too (prefect/server/services/db_vacuum.py runs it only where the
# persister is enabled); the database vacuum's "false" leaves only that events' vacuum. The event logger, the log
# stream and the telemetry are off by Prefect's defaults or here (analytics), so they have no entry.
SERVICE_SWITCHES: dict[str, tuple[str, ...]] = {
    "task-run recorder": ("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED",),
    "event persister": ("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED",),
    "triggers": ("PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED",),
    "event stream": ("PREFECT_SERVER_EVENTS_STREAM_OUT_ENABLED",),
    "scheduler": ("PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED",),
    "late runs": ("PREFECT_SERVER_SERVICES_LATE_RUNS_ENABLED",),
    "foreman": ("PREFECT_SERVER_SERVICES_FOREMAN_ENABLED",),
    "cancellation cleanup": ("PREFECT_SERVER_SERVICES_CANCELLATION_CLEANUP_ENABLED",),
    "pause expirations": ("PREFECT_SERVER_SERVICES_PAUSE_EXPIRATIONS_ENABLED",),
    "repossessor": ("PREFECT_SERVER_SERVICES_REPOSSESSOR_ENABLED",),
    "cleanup reconciler": ("PREFECT_SERVER_SERVICES_CLEANUP_RECONCILER_ENABLED",),
    "database vacuum": ("PREFECT_SERVER_SERVICES_DB_VACUUM_ENABLED",),
}
ALL_SERVICES = frozenset(SERVICE_SWITCHES)
# Prefect's documented layout: every loop service in one process.
ONE_PROCESS: list[frozenset[str]] = [ALL_SERVICES]


def split_layout(recorders: int = 1, persisters: int = 1) -> list[frozenset[str]]:
    """The two busiest services in processes of their own (py-spy put a third and more of the one process in the
    task-run recorder, 6% in the event persister): `recorders` task-run recorders sharing its stream, `persisters`
    event persisters sharing theirs (each is a Redis consumer group, as the recorder's is), and the rest together
    in one more."""
    if recorders < 1 or persisters < 1:
        raise ValueError(f"expected 1 or more task-run recorders and event persisters, got {recorders}, {persisters}")
    alone = [frozenset({"task-run recorder"})] * recorders + [frozenset({"event persister"})] * persisters
    return [*alone, ALL_SERVICES - {"task-run recorder", "event persister"}]


def services_roles(layout: Sequence[Collection[str]]) -> list[str]:
    """Each services process's role name, in the layout's order: `services` for one with every service (Prefect's
    layout), otherwise `services: NAME` for one service and `services: the rest` for several, numbered from the
    second of a name on (`services: task-run recorder 2`)."""
    roles: list[str] = []
    for enabled in layout:
        if set(enabled) == ALL_SERVICES:
            name = "services"
        elif len(enabled) == 1:
            name = f"services: {next(iter(enabled))}"
        else:
            name = "services: the rest"
        seen = sum(role == name or role.startswith(f"{name} ") for role in roles)
        roles.append(name if seen == 0 else f"{name} {seen + 1}")
    return roles


def services_settings(enabled: Collection[str]) -> dict[str, str]:
    """The settings that leave only the services `enabled` on in a `prefect server services start` process."""
    unknown = sorted(set(enabled) - ALL_SERVICES)
    if unknown:
        raise ValueError(f"unknown Prefect services {unknown}: expected some of {sorted(ALL_SERVICES)}")
    return {switch: "false" for name in ALL_SERVICES - set(enabled) for switch in SERVICE_SWITCHES[name]}


REGISTER_BLOCKS = """
import asyncio
from prefect.server.database import provide_database_interface
from prefect.server.models.block_registration import run_block_auto_registration

async def register() -> None:
    session = await provide_database_interface().session()
    async with session:
        await run_block_auto_registration(session=session)
        await session.commit()

asyncio.run(register())
"""


@dataclass
class MultiServer:
    url: str  # the API URL, ending in /api
    api: subprocess.Popen[bytes]  # `prefect server start --workers N`: uvicorn's supervisor, the N workers below it
    services: dict[str, subprocess.Popen[bytes]]  # `prefect server services start` by role (`services_roles`)
    redis: subprocess.Popen[bytes]
    postgres_port: int  # the PostgreSQL server holding Prefect's database (its postmaster's `-p`)
    env: dict[str, str]  # the server's settings: a client process needs only PREFECT_API_URL besides
    folder: Path  # the logs: api.log, redis.log, and services.log (or services-1.log, ... in a split layout)


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-3000:]
    except OSError:
        return ""


def _start(command: list[str], env: dict[str, str], log: Path, stack: ExitStack) -> subprocess.Popen[bytes]:
    """Start `command` with its output in `log`; `stack` stops it on the way out."""
    with open(log, "ab") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    stack.callback(stop_process, process)
    return process


@contextmanager
def multi_server(
    api_workers: int, postgres_url: str | None = None, services_layout: Sequence[Collection[str]] = ONE_PROCESS
) -> Iterator[MultiServer]:
    """Start the server (`api_workers` API processes, a services process for each set of service names in
    `services_layout` with those services on, Redis, Prefect's database on the PostgreSQL server at `postgres_url` or
    on one started here); yield it once the API answers."""
    switches = [services_settings(enabled) for enabled in services_layout]  # a wrong name fails before any start
    if not switches:
        raise ValueError("expected at least one services process")
    redis_program = shutil.which("redis-server")
    if redis_program is None:
        raise FileNotFoundError("redis-server is not installed: run .ci/run, or install the redis-server package")
    folder = Path(tempfile.mkdtemp(prefix="starbattle-multi-server-"))
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, True)
        server_url = postgres_url or stack.enter_context(postgres_server())
        database = fresh_database(server_url)
        postgres_port = int(database.rsplit(":", 1)[1].split("/")[0])
        redis_port = free_port()
        redis_command = [redis_program, "--port", str(redis_port), "--bind", "127.0.0.1", "--dir", str(folder)]
        # Nothing of it outlives the run: no snapshots, no append-only file.
        redis_command += ["--save", "", "--appendonly", "no"]
        redis = _start(redis_command, dict(os.environ), folder / "redis.log", stack)
        env = {name: value for name, value in os.environ.items() if not name.startswith("PREFECT_")}
        env.update(
            REDIS_SETTINGS,
            PREFECT_HOME=str(folder / "home"),
            PREFECT_API_DATABASE_CONNECTION_URL=database.replace("postgresql://", "postgresql+asyncpg://", 1),
            PREFECT_REDIS_MESSAGING_HOST="127.0.0.1",
            PREFECT_REDIS_MESSAGING_PORT=str(redis_port),
            PREFECT_REDIS_MESSAGING_DB="0",
            PREFECT_SERVER_DOCKET_URL=f"redis://127.0.0.1:{redis_port}/1",
            PREFECT_SERVER_ANALYTICS_ENABLED="false",
        )
        deadline = time.monotonic() + START_SECONDS
        while not _redis_answers(redis_port):
            if redis.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {_tail(folder / 'redis.log')}")
            time.sleep(0.1)
        prefect = [sys.executable, "-m", "prefect"]
        for command in ([*prefect, "server", "database", "upgrade", "-y"], [sys.executable, "-c", REGISTER_BLOCKS]):
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(command[1:4])} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        env.update(PREFECT_API_DATABASE_MIGRATE_ON_START="false", PREFECT_API_BLOCKS_REGISTER_ON_START="false")
        port = free_port()
        api_command = [*prefect, "server", "start", "--host", "127.0.0.1", "--port", str(port), "--analytics-off"]
        # --no-services for one worker too: the services then run in their own process for every N alike (with
        # N > 1 Prefect sets it itself).
        api_command += ["--workers", str(api_workers), "--no-services"]
        api = _start(api_command, env, folder / "api.log", stack)
        services_command = [*prefect, "server", "services", "start"]
        logs = ["services"] if len(switches) == 1 else [f"services-{number}" for number in range(1, len(switches) + 1)]
        services = {
            role: _start(services_command, {**env, **switched}, folder / f"{log}.log", stack)
            for role, switched, log in zip(services_roles(services_layout), switches, logs, strict=True)
        }
        watched = [("api", "api", api), *zip(services, logs, services.values(), strict=True), ("redis", "redis", redis)]
        url = f"http://127.0.0.1:{port}/api"
        while not healthy(url):
            for name, log, process in watched:
                if process.poll() is not None:
                    raise RuntimeError(f"the {name} process stopped at start: {_tail(folder / f'{log}.log')}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the API did not answer within {START_SECONDS:.0f} s: {_tail(folder / 'api.log')}")
            time.sleep(0.25)
        yield MultiServer(url, api, services, redis, postgres_port, env, folder)
