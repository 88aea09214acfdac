"""How the backfill scales: boards per minute on the process pool and on 1 and 2 Dask workers, the per-task
overhead of Dask and of Prefect task runs, and from those a projected year of boards on 16 and 64 workers.

    python bench/bench_pipeline.py --scale [--days 1] [--slots default|small] [--tasks 200] [--server-workers 1 2]
        [--services-split [K ...]] [--persisters P]
    python bench/bench_scale.py ...        (the same)

Everything runs in this process against one Prefect server started for the bench (as `starbattle ui` keeps one up)
with its home in a temporary folder; each backfill gets a fresh SQLite database there. The Dask clusters are real
`distributed.LocalCluster`s over TCP on loopback, started (and their workers' imports warmed, as `dask worker
--preload flows.tasks` does) before the clock starts: a cluster is there before the run, a process pool is not. The
same dates and slots run on each runner, so the boards are the same and only the runner differs; every row's
`starbattle export` of its dates is compared with the first row's, byte for byte.

`--server-workers N [N ...]`: then the same backfill on 2 Dask workers again, reporting to a Prefect server scaled
out as Prefect documents it (tests/multi_server.py: N API processes from `prefect server start --workers N`, the
loop services in a process of their own, its database on a throwaway PostgreSQL server, its messaging on a throwaway
Redis), one row per N, against the same run's rows on the default one-process server (SQLite). Each of those
processes' CPU is read from /proc on its own, and a year is projected with K API processes from them.

`--services-split [K ...]` (with `--server-workers`): per N, a row more per K with the loop services split over
processes (tests/multi_server.py, `split_layout`): K task-run recorders sharing its stream, the event persister
alone (or P of them sharing theirs, `--persisters P`), the rest together; K is 1 when none is given. Each services
process is accounted on its own and bounds the year on its own, as an API process does.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Collection, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import yaml

if TYPE_CHECKING:
    from multi_server import MultiServer

PROJECT = Path(__file__).resolve().parents[1]
YEAR_BOARDS = 2_555  # 365 dates of the seven default slots
SMALL_SLOTS = [
    {"name": "starbattle-6", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"},
    {"name": "queens-7", "game": "queens", "size": 7, "stars": 1, "band": "easy"},
    {"name": "queens-8", "game": "queens", "size": 8, "stars": 1, "band": "easy"},
]
SETTLE_SECONDS = 2.0  # after a backfill, how often its task runs are counted until the count stops changing
SETTLE_LIMIT = 120.0
IDLE_SECONDS = 10.0  # a scaled-out server's CPU at rest is read over this long before its backfill
YEAR_AIM_MINUTES = 10.0


@dataclass
class Throughput:
    runner: str
    boards: int
    seconds: float  # wall time of the backfill flow
    generator_seconds: float  # the generator's own time, summed over every attempt (the counters in the database)
    longest_attempt: float
    stage_runs: int  # the flow run's stage task runs (on the runner)
    other_runs: int  # its other task runs (the writes, in the flow's process)
    cpu: dict[str, float]  # CPU seconds of the backfill by kind of process (see `cpu_seconds`)
    exported: str = ""  # `starbattle export` of its dates, one after another
    # With a scaled-out server: its processes' CPU seconds over the backfill (see `server_cpu`), and at rest a second.
    server_processes: dict[str, float] = field(default_factory=dict)
    server_idle: dict[str, float] = field(default_factory=dict)
    window_seconds: float = 0.0  # from the CPU read before the backfill to the one after it
    layout: str = ""  # a scaled-out server's services layout: "one process", or "split, K task-run recorders"

    def busy_a_board(self, role: str) -> float:
        """A scaled-out server process's CPU seconds a board less its loops at rest over the same seconds."""
        spent = self.server_processes[role] - self.server_idle.get(role, 0.0) * self.window_seconds
        return max(0.0, spent) / self.boards

    @property
    def per_minute(self) -> float:
        return 60.0 * self.boards / self.seconds


def write_config(folder: Path, slots: str, **pipeline: Any) -> Path:
    """The project's config (its slots and budgets, or the small slots) with a fresh database in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    raw = yaml.safe_load((PROJECT / "config" / "starbattle.yaml").read_text()) or {}
    section = raw.setdefault("pipeline", {})
    section.update(database_url=f"sqlite:///{folder / 'starbattle.db'}", prefect_home=str(folder.parent / "prefect"))
    if slots == "small":
        section["slots"] = SMALL_SLOTS
    section.update(pipeline)
    path = folder / "starbattle.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def descendants(pid: int) -> list[int]:
    """`pid`'s descendants alive now, from /proc."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def process_cpu(pid: int) -> float:
    """CPU seconds of process `pid` and of its children it reaped (utime, stime, cutime, cstime of proc(5)), or 0
    when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(skip: Collection[int] = ()) -> dict[str, float]:
    """CPU seconds used so far (user + system) by this process and what it started, by kind: the generation
    `workers` (the Dask workers and the process pool's, all spawned by multiprocessing), the Prefect `server`, and
    the `flow` process itself (the flow's engine, its writes, and the Dask scheduler, which LocalCluster runs here).
    A process that ended and was reaped counts in its parent's children's time: the pool's workers are reaped by this
    process, so this process's reaped children count as workers. The processes in `skip` (a scaled-out server's,
    whose API workers are spawned by multiprocessing too) are left to `server_cpu`."""
    own, reaped = os.times(), resource_children()
    spent = {"workers": reaped, "server": 0.0, "flow": own.user + own.system}
    for pid in descendants(os.getpid()):
        if pid in skip:
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        kind = "workers" if b"spawn_main" in command else "server" if b"prefect" in command else "flow"
        spent[kind] += process_cpu(pid)
    return spent


def postmaster(port: int) -> int | None:
    """The pid of the PostgreSQL server listening on `port` (its command line has `-p PORT`), from /proc."""
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            parts = path.read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            parts
            and parts[0].endswith(b"/postgres")
            and any(flag == b"-p" and value == str(port).encode() for flag, value in itertools.pairwise(parts))
        ):
            return int(path.parent.name)
    return None


def server_pids(server: MultiServer) -> set[int]:
    """Every process of a scaled-out server that this process started (Redis, the API and services processes and
    everything below them); PostgreSQL's is not below this process (pg_ctl starts it as a daemon)."""
    top = [server.api.pid, *(process.pid for process in server.services.values()), server.redis.pid]
    return {pid for process in top for pid in [process, *descendants(process)]}


def server_cpu(server: MultiServer) -> dict[str, float]:
    """CPU seconds so far of each process of a scaled-out server, by role: `API worker 1..N` (uvicorn's worker
    processes, in pid order), `API supervisor` (the `prefect server start` process that spawned them, with what it
    reaped: a worker that died), each services process by its role (`services`, or in a split layout `services:
    task-run recorder` and so on, tests/multi_server.py's `services_roles`), `redis`, `postgresql` (the postmaster
    with its backends, the ended ones reaped by it)."""
    spent = {"API supervisor": process_cpu(server.api.pid)}
    workers = [pid for pid in descendants(server.api.pid) if b"spawn_main" in _command(pid)]
    for number, pid in enumerate(sorted(workers), 1):
        spent[f"API worker {number}"] = process_cpu(pid)
    for role, process in server.services.items():
        spent[role] = sum(process_cpu(pid) for pid in [process.pid, *descendants(process.pid)])
    spent["redis"] = process_cpu(server.redis.pid)
    root = postmaster(server.postgres_port)
    spent["postgresql"] = 0.0 if root is None else sum(process_cpu(pid) for pid in [root, *descendants(root)])
    return spent


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def resource_children() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_backfill(
    name: str,
    config: Path,
    start: dt.date,
    days: int,
    server: MultiServer | None = None,
    expected: tuple[int, int] | None = None,
) -> Throughput:
    """One backfill of `days` dates from `start`, timed; its CPU read once the server has recorded all its task
    runs (the count stops changing), so what the server does after the flow ends counts too. With `server` (a
    scaled-out one), each of its processes is read on its own; `expected`: the task runs the same backfill had on
    the default server, waited for (see `settled_task_runs`)."""
    from sqlmodel import Session, func, select

    from flows.daily import backfill
    from flows.db import Attempt, ScheduleEntry
    from flows.settings import load_settings
    from flows.store import slot_stats
    from flows.tasks import database

    end = start + dt.timedelta(days=days - 1)
    skip = set() if server is None else server_pids(server)
    idle = {} if server is None else at_rest(server)
    window = time.perf_counter()
    used = cpu_seconds(skip)
    used_by_server = {} if server is None else server_cpu(server)
    began = time.perf_counter()
    # A slot whose every attempt ran out of its seconds fails the run; its other boards still count.
    state = backfill(start=start.isoformat(), end=end.isoformat(), config_path=str(config), return_state=True)
    seconds = time.perf_counter() - began
    stage_runs, other_runs = settled_task_runs(state.state_details.flow_run_id, expected)
    cpu = {kind: spent - used[kind] for kind, spent in cpu_seconds(skip).items()}
    processes: dict[str, float] = {}
    if server is not None:
        processes = {role: spent - used_by_server.get(role, 0.0) for role, spent in server_cpu(server).items()}
        cpu["server"] = sum(spent for role, spent in processes.items() if role not in ("redis", "postgresql"))
        cpu["redis"], cpu["postgresql"] = processes["redis"], processes["postgresql"]
    window = time.perf_counter() - window
    engine = database(load_settings(config).pipeline.resolved_database_url())
    stats = slot_stats(engine)
    with Session(engine) as session:
        longest = session.exec(select(func.max(Attempt.seconds))).one() or 0.0
        boards = session.exec(select(func.count()).select_from(ScheduleEntry)).one()
    return Throughput(
        runner=name,
        boards=int(boards),
        seconds=seconds,
        generator_seconds=sum(s.seconds for s in stats),
        longest_attempt=float(longest),
        stage_runs=stage_runs,
        other_runs=other_runs,
        cpu=cpu,
        exported=exports(config, start, days),
        server_processes=processes,
        server_idle=idle,
        window_seconds=window,
    )


def at_rest(server: MultiServer) -> dict[str, float]:
    """A scaled-out server's CPU seconds a second, by process, over IDLE_SECONDS with nothing running."""
    before = server_cpu(server)
    time.sleep(IDLE_SECONDS)
    return {role: (spent - before.get(role, 0.0)) / IDLE_SECONDS for role, spent in server_cpu(server).items()}


def settled_task_runs(flow_run_id: Any, expected: tuple[int, int] | None = None) -> tuple[int, int]:
    """`count_task_runs` once two counts SETTLE_SECONDS apart agree, or with `expected`, once it is reached: a
    server records task runs from their events, after the flow has moved on (a scaled-out one in its services
    processes, from Redis, where a recorder holds an event back until the one it follows has been seen, so the
    count can pause below the whole). Either way at most SETTLE_LIMIT seconds: what is missing then stays missing."""
    counted, deadline = count_task_runs(flow_run_id), time.monotonic() + SETTLE_LIMIT
    while time.monotonic() < deadline and counted != expected:
        time.sleep(SETTLE_SECONDS)
        again = count_task_runs(flow_run_id)
        if again == counted and expected is None:
            break
        counted = again
    return counted


def exports(config: Path, start: dt.date, days: int) -> str:
    """`starbattle export --format jsonl` of each date, through the CLI's own command (in this process)."""
    from typer.testing import CliRunner

    import starbattle_cli.commands_pipeline  # noqa: F401  (registers the pipeline commands on the app)
    from starbattle_cli.app import app

    printed = []
    for offset in range(days):
        day = (start + dt.timedelta(days=offset)).isoformat()
        done = CliRunner().invoke(
            app, ["export", "--date", day, "--format", "jsonl"], env={"STARBATTLE_CONFIG": str(config)}
        )
        printed.append(f"{day} (exit {done.exit_code})\n{done.output}")
    return "".join(printed)


def count_task_runs(flow_run_id: Any) -> tuple[int, int]:
    """(stage task runs, other task runs) of one flow run, as Prefect's server recorded them."""
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    from flows.tasks import STAGE_TASKS

    stages = {stage.name for stage in STAGE_TASKS}
    only_this = FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
    names: list[str] = []
    with get_client(sync_client=True) as client:
        while page := client.read_task_runs(flow_run_filter=only_this, limit=200, offset=len(names)):
            names += [run.name.split(" ")[0] for run in page]
    staged = sum(name in stages for name in names)
    return staged, len(names) - staged


def warm(address: str) -> None:
    """Import the generation tasks (Prefect and the engine) in every worker, as `--preload flows.tasks` would."""
    from distributed import Client

    with Client(address) as client:
        # A builtin taking a string: the workers need not import this script to run it, and nothing but None
        # travels back (a module object cannot).
        client.run(exec, "import flows.tasks")


def transaction_overhead(config: Path, count: int) -> float:
    """Milliseconds per small write transaction (an attempt with its rejection counts) on a run's database."""
    from flows.settings import load_settings
    from flows.store import Effort, save_effort
    from flows.tasks import database

    engine = database(load_settings(config).pipeline.resolved_database_url())
    effort = Effort(
        attempt=99, seed=1, candidates=1, repair_rounds=0, rejections={"low_fun": 1}, stage_seconds={}, seconds=0.0
    )
    began = time.perf_counter()
    for _ in range(count):
        save_effort(engine, run_id=None, date=dt.date(2000, 1, 1), slot="bench", effort=effort, outcome="exhausted")
    return 1000 * (time.perf_counter() - began) / count


def local_cluster(workers: int) -> Any:
    from distributed import LocalCluster

    # The scheduler runs in this process; its INFO lines (every client connecting) would bury the table.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=":0",
        silence_logs=logging.WARNING,
    )


def dask_overhead(address: str, tasks: int) -> tuple[float, float]:
    """Milliseconds per task of Dask alone: (throughput of `tasks` no-op tasks submitted at once, the latency of one
    submitted and awaited at a time), median of the latter."""
    from distributed import Client

    with Client(address) as client:
        client.gather(client.map(abs, range(-tasks, 0), pure=False))  # warm the connections
        began = time.perf_counter()
        client.gather(client.map(abs, range(tasks), pure=False))
        batch = 1000 * (time.perf_counter() - began) / tasks
        latencies = []
        for number in range(min(tasks, 50)):
            began = time.perf_counter()
            client.submit(abs, -number, pure=False).result()
            latencies.append(1000 * (time.perf_counter() - began))
    return batch, statistics.median(latencies)


def stock_runner(address: str) -> Any:
    """prefect-dask's DaskTaskRunner as it comes (what `--dask` ran before flows/cluster.py cut its costs)."""
    from prefect_dask import DaskTaskRunner

    return DaskTaskRunner(address=address)


def prefect_overhead(address: str | None, tasks: int, stock: bool = False) -> tuple[float, float, float]:
    """Milliseconds per Prefect task run of a no-op task, in-process (address None) or on the Dask cluster (through
    flows/cluster.py's runner, or prefect-dask's as it comes when `stock`): its wall time over an empty flow of the
    same runner (the flow's own cost subtracted), and its submission alone (in the flow's process, one task after
    another); and the empty flow's milliseconds."""
    from prefect import flow, task
    from prefect.cache_policies import NO_CACHE
    from prefect.task_runners import ThreadPoolTaskRunner

    from flows.cluster import dask_task_runner

    @task(cache_policy=NO_CACHE)
    def noop(number: int) -> int:
        return number

    @flow(log_prints=False)
    def many(count: int) -> None:
        if address is None:
            runner: Any = ThreadPoolTaskRunner(max_workers=1)
        else:
            runner = stock_runner(address) if stock else dask_task_runner(address)
        with runner:
            began = time.perf_counter()
            futures = [runner.submit(noop, parameters={"number": number}) for number in range(count)]
            submitting.append(time.perf_counter() - began)
            for future in futures:
                future.result()

    submitting: list[float] = []
    many(count=2)  # warm
    began = time.perf_counter()
    many(count=0)
    empty = time.perf_counter() - began
    began = time.perf_counter()
    many(count=tasks)
    return 1000 * (time.perf_counter() - began - empty) / tasks, 1000 * submitting[-1] / tasks, 1000 * empty


def year_bounds(rows: dict[str, Throughput], overheads: dict[str, float], workers: int) -> dict[str, float]:
    """Seconds for YEAR_BOARDS boards on `workers` Dask workers by what each part alone would take.

    On the workers, in parallel: per board, the generator's seconds (measured on 1 worker) plus the Prefect
    bookkeeping of its stage task runs there (as many per board as the 1-worker run made), spread over the
    workers at the efficiency measured from 1 to 2 workers. In the one flow process, in series: per board,
    submitting those stage task runs to Dask, its in-process write task runs and one transaction. The two
    overlap (boards are published while others are generated), so the longer one sets the pace. And the one
    Prefect server process, in series too: the CPU seconds it spent a board in the 1-worker run (its share of the
    task runs, plus its idle loops over the run's wall time, so an upper bound for a faster run).
    """
    one, two = rows["dask, 1 worker"], rows["dask, 2 workers"]
    efficiency = min(1.0, (two.per_minute / one.per_minute) / 2)
    stages, writes = one.stage_runs / one.boards, one.other_runs / one.boards
    on_dask = overheads["prefect task run on a dask worker"] / 1000
    submit = overheads["prefect submission to dask (flow)"] / 1000
    in_process = overheads["prefect task run in-process"] / 1000
    on_workers = one.generator_seconds / one.boards + stages * on_dask
    in_flow = stages * submit + writes * in_process + overheads["transaction (SQLite)"] / 1000
    return {
        "generation on the workers": YEAR_BOARDS * on_workers / (workers * efficiency),
        "the flow process submitting and publishing": YEAR_BOARDS * in_flow,
        "the Prefect server (one process)": YEAR_BOARDS * one.cpu["server"] / one.boards,
    }


def year_seconds(
    rows: dict[str, Throughput], overheads: dict[str, float], bounds: dict[str, float]
) -> tuple[float, str]:
    """The year's seconds under the largest of `bounds`, and its name: that bound, then the tail (the longest single
    attempt, which starts last in the worst case) and the flow's own start."""
    limit = max(bounds, key=lambda name: bounds[name])
    return bounds[limit] + rows["dask, 1 worker"].longest_attempt + overheads["flow start and end"] / 1000, limit


def project_year(rows: dict[str, Throughput], overheads: dict[str, float], workers: int) -> tuple[float, str]:
    """Seconds for YEAR_BOARDS boards on `workers` Dask workers against one Prefect server process, and what
    limits it (see `year_bounds`)."""
    return year_seconds(rows, overheads, year_bounds(rows, overheads, workers))


def scaled_bounds(
    rows: dict[str, Throughput], overheads: dict[str, float], workers: int, scaled: Throughput, api: int
) -> dict[str, float]:
    """`year_bounds` with the one server process replaced by a scaled-out server of `api` API processes, from the
    `scaled` row: each part's CPU a board less its loops at rest (`busy_a_board`), and those loops, a share of a
    core each whatever the pace, added back over the year's own length (a part busy b s a board and r s a second
    at rest takes T = boards x b / (1 - r)). The API processes' work together, shared evenly by `api` of them (a
    board's requests go to whichever worker is free); the services process, Redis (one thread) and PostgreSQL each
    in series on one core (PostgreSQL runs a process per connection: on a machine of its own with more cores it
    would be less). Each services process is a bound of its own, in series on one core: the busiest one bounds
    the services (several task-run recorders each did their own share of the recorder's work, as measured)."""

    def bound(busy: float, at_rest: float) -> float:
        return YEAR_BOARDS * busy / max(0.05, 1.0 - at_rest)

    bounds = year_bounds(rows, overheads, workers)
    del bounds["the Prefect server (one process)"]
    api_roles = [role for role in scaled.server_processes if role.startswith("API worker")]
    api_busy = sum(scaled.busy_a_board(role) for role in [*api_roles, "API supervisor"])
    api_rest = statistics.mean(scaled.server_idle.get(role, 0.0) for role in api_roles)
    bounds[f"the Prefect API ({api} processes)"] = bound(api_busy / api, api_rest)
    parts = [(role, services_part(role)) for role in scaled.server_processes if role.startswith("services")]
    parts += [("redis", "Redis (one thread)"), ("postgresql", "PostgreSQL (on one core)")]
    for role, name in parts:
        bounds[name] = bound(scaled.busy_a_board(role), scaled.server_idle.get(role, 0.0))
    return bounds


def services_part(role: str) -> str:
    """A services process's name as a bound of the year: `the Prefect services process` for the one process of
    Prefect's layout, `the services process: task-run recorder` for one of a split layout."""
    if role == "services":
        return "the Prefect services process"
    return "the services process" + role.removeprefix("services")


def api_processes_needed(
    rows: dict[str, Throughput], overheads: dict[str, float], workers: int, scaled: Throughput
) -> tuple[int | None, float, str]:
    """The fewest API processes (up to 64) that bring a year on `workers` workers under YEAR_AIM_MINUTES, with that
    year's seconds and its bound; None when no number does (then the year and bound with 64)."""
    for api in range(1, 65):
        seconds, limit = year_seconds(rows, overheads, scaled_bounds(rows, overheads, workers, scaled, api))
        if seconds < 60 * YEAR_AIM_MINUTES:
            return api, seconds, limit
    return None, seconds, limit


def ceiling(rows: dict[str, Throughput], cores: int) -> str:
    """The most 1 -> 2 workers can gain on this machine, from the CPU seconds a board costs in each run: k workers
    make boards at most k / (the workers' CPU a board) a second, and all the processes together (workers, Prefect
    server, flow process) at most cores / (all their CPU a board); the rate is under both bounds."""

    def bound(row: Throughput, workers: int) -> float:
        worker = row.cpu["workers"] / row.boards
        whole = sum(row.cpu.values()) / row.boards
        return min(workers / worker, cores / whole)

    one, two = rows["dask, 1 worker"], rows["dask, 2 workers"]
    most = bound(two, 2) / bound(one, 1)
    return (
        f"ceiling on {cores} cores from the CPU a board costs: 2 workers at most {most:.2f}x 1 worker "
        f"(at most {60 * bound(one, 1):.1f} and {60 * bound(two, 2):.1f} boards/min)"
    )


def scaled_server_missing(api_counts: list[int]) -> str | None:
    """What a scaled-out server needs and this machine lacks, checked before anything starts (None: nothing)."""
    import importlib.util
    import shutil

    if min(api_counts) < 1:
        return f"expected API process counts of 1 or more, got {min(api_counts)}"
    if importlib.util.find_spec("prefect_redis") is None:
        return "needs prefect-redis: pip install -e '.[scaled-server]'"
    if shutil.which("redis-server") is None:
        return "needs Redis's server program: apt-get install redis-server"
    return None


def deliver_queued() -> None:
    """Send this process's queued events and log lines to the server before it stops, and end their workers. Prefect
    keeps one events worker a process whatever the API URL (its client reads the URL when it starts): left running
    past a server's stop, it went on sending to it (a minute's timeout an event) while the next server's runs queued
    behind it, and their events never arrived (a first run of --server-workers recorded none of its flow process's
    task runs on the second and third servers)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    EventsWorker.drain_all(timeout=60, at_exit=False)
    APILogWorker.drain_all(timeout=10, at_exit=False)


@contextmanager
def reporting_to(url: str) -> Iterator[None]:
    """This process's flows, and the Dask workers started meanwhile, report to the API at `url`."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    os.environ["PREFECT_API_URL"] = url
    try:
        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield
    finally:
        os.environ.pop("PREFECT_API_URL", None)


def scaled_name(api: int) -> str:
    return f"dask, 2 workers, {api} API process" + ("es" if api > 1 else "")


def scaled_rows(
    rows: dict[str, Throughput],
    root: Path,
    slots: str,
    start: dt.date,
    days: int,
    api_counts: list[int],
    overrides: dict[str, Any],
    recorder_counts: Collection[int] = (),
    persisters: int = 1,
) -> None:
    """Add a row per count of API processes: the backfill on 2 Dask workers against a scaled-out Prefect server
    (tests/multi_server.py), one PostgreSQL server for them all (a fresh database each), a fresh cluster each; and
    after each, a row per count of task-run recorders in `recorder_counts` with the services split
    (`split_layout`), each with `persisters` event persisters."""
    sys.path.insert(0, str(PROJECT / "tests"))
    from multi_server import ONE_PROCESS, multi_server, split_layout
    from postgres_server import postgres_server

    baseline = rows["dask, 2 workers"]
    expected = (baseline.stage_runs, baseline.other_runs)  # every scaled row's backfill makes the same task runs
    with postgres_server() as postgres:
        for api in api_counts:
            layouts = [(scaled_name(api), "one process", ONE_PROCESS, f"scaled-{api}")]
            for recorders in recorder_counts:
                name = split_name(api, recorders, persisters)
                layout = f"split, {recorders} task-run recorder" + ("s" if recorders > 1 else "")
                if persisters > 1:
                    layout += f", {persisters} event persisters"
                services = split_layout(recorders, persisters)
                layouts.append((name, layout, services, f"split-{api}-{recorders}-{persisters}"))
            for name, layout, services, home in layouts:
                with ExitStack() as stack:
                    server = stack.enter_context(multi_server(api, postgres, services))
                    stack.enter_context(reporting_to(server.url))
                    cluster = stack.enter_context(local_cluster(2))
                    warm(cluster.scheduler_address)
                    prefect_overhead(None, 10)  # the server's first flow and task runs warm each process's caches
                    config = write_config(root / home, slots, dask_address=cluster.scheduler_address, **overrides)
                    rows[name] = run_backfill(name, config, start, days, server, expected)
                    rows[name].layout = layout
                    deliver_queued()


def split_name(api: int, recorders: int, persisters: int = 1) -> str:
    name = scaled_name(api) + ", services split" + (f", {recorders} recorders" if recorders > 1 else "")
    return name + (f", {persisters} persisters" if persisters > 1 else "")


def print_scaled(rows: dict[str, Throughput], overheads: dict[str, float]) -> None:
    """The boards' sameness across rows, and for the scaled-out rows: each server process's CPU a board against the
    same run's one-process server, at rest, and the year with K API processes, for each services layout."""
    first = next(iter(rows.values()))
    differing = [row.runner for row in rows.values() if row.exported != first.exported]
    same = "every row's the same bytes" if not differing else "DIFFERENT from the first row: " + ", ".join(differing)
    print(f"\n  starbattle export of the dates, against the first row ({first.runner}): {same}")
    scaled = [row for row in rows.values() if row.server_processes]
    if not scaled:
        return
    baseline = rows["dask, 2 workers"]
    width = max(38, *(len(row.runner) for row in scaled))
    print(
        f"\n  {'Prefect server CPU s a board':{width}} {'boards/min':>10} {'API all':>7} {'busiest':>7} "
        f"{'services':>8} {'busiest':>7} {'server':>7} {'redis':>6} {'pg':>6}   "
        "(busiest: the busiest API / services process; server: API + services)"
    )
    one_process = baseline.cpu["server"] / baseline.boards
    print(
        f"  {baseline.runner + ' (default server)':{width}} {baseline.per_minute:10.2f} {'':>7} "
        f"{one_process:7.2f} {'':>8} {'':>7} {one_process:7.2f}"
    )
    for row in scaled:
        board = {role: spent / row.boards for role, spent in row.server_processes.items()}
        api = {role: spent for role, spent in board.items() if role.startswith("API ")}
        services = {role: spent for role, spent in board.items() if role.startswith("services")}
        print(
            f"  {row.runner:{width}} {row.per_minute:10.2f} {sum(api.values()):7.2f} {max(api.values()):7.2f} "
            f"{sum(services.values()):8.2f} {max(services.values()):7.2f} {row.cpu['server'] / row.boards:7.2f} "
            f"{board['redis']:6.2f} {board['postgresql']:6.2f}"
        )
    for row in scaled:
        if (row.stage_runs, row.other_runs) != (baseline.stage_runs, baseline.other_runs):
            print(
                f"    {row.runner}: recorded {row.stage_runs} + {row.other_runs} task runs, the default server "
                f"{baseline.stage_runs} + {baseline.other_runs}: its figures miss some of the work"
            )
        parts = ", ".join(f"{role} {spent:.2f}" for role, spent in row.server_processes.items())
        rest = ", ".join(f"{role} {spent:.3f}" for role, spent in row.server_idle.items())
        print(f"    {row.runner}: CPU s over the backfill: {parts}")
        print(f"    {'':{len(row.runner)}}  at rest, CPU s a second: {rest}")
        busy = ", ".join(f"{role} {row.busy_a_board(role):.2f}" for role in row.server_processes)
        print(f"    {'':{len(row.runner)}}  a board less the loops at rest: {busy}")
    # Per services layout, from its row with the most API processes (the rows run in the order given).
    widest = {row.layout: row for row in scaled}
    for row in widest.values():
        print_scaled_year(rows, overheads, row)
    print(
        f"    (on {os.cpu_count()} cores every process above shares the cores with the workers: these runs show how "
        "the server's work splits and what each part costs, not a cluster's speed)"
    )


def print_scaled_year(rows: dict[str, Throughput], overheads: dict[str, float], widest: Throughput) -> None:
    """A year with K API processes and `widest`'s services layout, each part's CPU a board from `widest`."""
    print(
        f"\n  a year ({YEAR_BOARDS:,} boards) with a scaled-out server, services {widest.layout}, projected from "
        f"'{widest.runner}' (each part's CPU a board from it; the rest as above):"
    )
    for workers in (16, 64):
        for count in (1, 2, 4, 8):
            seconds, limit = year_seconds(rows, overheads, scaled_bounds(rows, overheads, workers, widest, count))
            print(f"    {workers:2d} workers, {count} API processes: {seconds / 60:6.1f} min, limited by {limit}")
        alone = scaled_bounds(rows, overheads, workers, widest, 8)
        print(
            f"    {workers:2d} workers, 8 API processes, each part alone: "
            + ", ".join(f"{name} {part / 60:.1f} min" for name, part in alone.items())
        )
        needed, seconds, limit = api_processes_needed(rows, overheads, workers, widest)
        if needed is None:
            print(
                f"    {workers:2d} workers: no number of API processes brings it under {YEAR_AIM_MINUTES:.0f} min "
                f"({seconds / 60:.1f} min with 64, limited by {limit})"
            )
        else:
            print(
                f"    {workers:2d} workers: {needed} API processes bring it under {YEAR_AIM_MINUTES:.0f} min "
                f"({seconds / 60:.1f} min, then limited by {limit})"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true", help="(accepted, so bench_pipeline.py can pass its argv)")
    parser.add_argument("--days", type=int, default=1, help="dates per backfill (default 1)")
    parser.add_argument("--slots", choices=("default", "small"), default="default", help="the config's or tiny ones")
    parser.add_argument("--budget", type=float, help="generator seconds per slot and attempt (default: the config's)")
    parser.add_argument("--tasks", type=int, default=200, help="no-op tasks per overhead measurement (default 200)")
    parser.add_argument("--overheads-only", action="store_true", help="only the per-task overheads (no backfills)")
    parser.add_argument("--skip-stock", action="store_true", help="no rows of prefect-dask as it comes")
    parser.add_argument("--batch-size", type=int, help="candidates a full batch (default: the config's)")
    parser.add_argument(
        "--server-workers",
        type=int,
        nargs="+",
        default=[],
        metavar="N",
        help="also run 2 Dask workers against a Prefect server of N API processes on PostgreSQL and Redis, per N",
    )
    parser.add_argument(
        "--services-split",
        type=int,
        nargs="*",
        metavar="K",
        help="with --server-workers, also a row per N and K with the loop services split over processes: K task-run "
        "recorders (default 1), the event persister alone, the rest together",
    )
    parser.add_argument(
        "--persisters",
        type=int,
        default=1,
        metavar="P",
        help="with --services-split, the event persister in P processes sharing its stream (default 1)",
    )
    args, _rest = parser.parse_known_args(argv)
    recorders: list[int] = []
    if args.services_split is not None:
        recorders = args.services_split or [1]
        if not args.server_workers:
            print("error: --services-split: needs --server-workers N", file=sys.stderr)
            raise SystemExit(2)
        if min(recorders) < 1:
            print(
                f"error: --services-split: expected 1 or more task-run recorders, got {min(recorders)}", file=sys.stderr
            )
            raise SystemExit(2)
    if args.persisters != 1 and not recorders:
        print("error: --persisters: needs --services-split", file=sys.stderr)
        raise SystemExit(2)
    if args.persisters < 1:
        print(f"error: --persisters: expected 1 or more event persisters, got {args.persisters}", file=sys.stderr)
        raise SystemExit(2)
    if args.server_workers:
        missing = scaled_server_missing(args.server_workers)
        if missing:
            print(f"error: --server-workers: {missing}", file=sys.stderr)
            raise SystemExit(2)
    start = dt.date(2027, 1, 1)
    load = os.getloadavg()[0]
    print(f"scale bench: {args.days} date(s) x {args.slots} slots per runner; load average {load:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        root = Path(folder)
        overrides: dict[str, Any] = {} if args.budget is None else {"budget_seconds": args.budget}
        if args.batch_size is not None:
            overrides["batch_size"] = args.batch_size
        base = write_config(root / "base", args.slots)
        from flows.environment import prepare_prefect
        from flows.server import prefect_api
        from flows.settings import load_settings

        settings = load_settings(base)
        prepare_prefect(settings)
        with prefect_api(settings):
            rows: dict[str, Throughput] = {}
            config = write_config(root / "pool", args.slots, workers=2, **overrides)
            if not args.overheads_only:
                rows["process pool, 2 workers"] = run_backfill("process pool, 2 workers", config, start, args.days)
            overheads: dict[str, float] = {}
            for workers in (1,) if args.overheads_only else (1, 2):
                with local_cluster(workers) as cluster:
                    warm(cluster.scheduler_address)
                    address = cluster.scheduler_address
                    plural = "s" if workers > 1 else ""
                    for stock in () if args.overheads_only else (False,) if args.skip_stock else (True, False):
                        name = f"dask, {workers} worker{plural}" + (" (prefect-dask as is)" if stock else "")
                        home = f"dask-{workers}" + ("-stock" if stock else "")
                        config = write_config(root / home, args.slots, dask_address=address, **overrides)
                        # The baseline: the same flow on the runner `--dask` used before flows/cluster.py's.
                        patched = mock.patch("flows.daily.dask_task_runner", stock_runner) if stock else nullcontext()
                        with patched:
                            rows[name] = run_backfill(name, config, start, args.days)
                    if workers == 1:
                        # One worker: a no-op task's wall time is then the larger of the flow's submission and
                        # the worker's share (Prefect's task-run bookkeeping there): the worker's, as measured.
                        batch, latency = dask_overhead(address, args.tasks)
                        overheads["dask task, submitted in bulk"] = batch
                        overheads["dask task, one round trip"] = latency
                        for stock in (True, False):
                            suffix = " (as is)" if stock else ""
                            on_dask, submit, _empty = prefect_overhead(address, args.tasks, stock)
                            overheads["prefect task run on a dask worker" + suffix] = on_dask
                            overheads["prefect submission to dask (flow)" + suffix] = submit
            in_process, _submit, empty = prefect_overhead(None, args.tasks)
            overheads["prefect task run in-process"] = in_process
            overheads["flow start and end"] = empty
            overheads["transaction (SQLite)"] = transaction_overhead(config, args.tasks)
            deliver_queued()
        if args.server_workers and not args.overheads_only:
            scaled_rows(
                rows, root, args.slots, start, args.days, args.server_workers, overrides, recorders, args.persisters
            )
    print("\n  per-task overhead (no-op tasks):")
    for name, milliseconds in overheads.items():
        print(f"    {name:42} {milliseconds:7.2f} ms")
    if rows:
        print(
            f"\n  {'runner':38} {'boards':>6} {'wall s':>7} {'boards/min':>10} {'gen s/board':>11} {'longest s':>9} "
            f"{'stage runs':>10} {'other runs':>10}"
        )
        for row in rows.values():
            print(
                f"  {row.runner:38} {row.boards:6d} {row.seconds:7.1f} {row.per_minute:10.2f} "
                f"{row.generator_seconds / max(1, row.boards):11.2f} {row.longest_attempt:9.1f} "
                f"{row.stage_runs:10d} {row.other_runs:10d}"
            )
        print(f"\n  {'CPU seconds a board':38} {'workers':>7} {'server':>7} {'flow':>7} {'all':>7} {'cores busy':>10}")
        for row in rows.values():
            spent = {kind: seconds / max(1, row.boards) for kind, seconds in row.cpu.items()}
            busy = sum(row.cpu.values()) / row.seconds
            print(
                f"  {row.runner:38} {spent['workers']:7.2f} {spent['server']:7.2f} {spent['flow']:7.2f} "
                f"{sum(spent.values()):7.2f} {busy:10.2f}"
            )
        for suffix in ("",) if args.skip_stock else (" (prefect-dask as is)", ""):
            one, two = rows["dask, 1 worker" + suffix], rows["dask, 2 workers" + suffix]
            print(
                f"  speed-up from 1 to 2 Dask workers{suffix}: {two.per_minute / one.per_minute:.2f}x (linear: 2.00x)"
            )
        print(f"  {ceiling(rows, os.cpu_count() or 1)}")
        print(f"\n  a year ({YEAR_BOARDS:,} boards) projected from the Dask rows above (flows/cluster.py's runner):")
        for workers in (16, 64):
            seconds, limit = project_year(rows, overheads, workers)
            print(f"    {workers:2d} workers: {seconds / 60:6.1f} min, limited by {limit}")
    if rows:
        print_scaled(rows, overheads)
    if load > 2.5:
        print(f"\n  measured under load (load average {load:.1f} on {os.cpu_count()} cores): compare rows only")


if __name__ == "__main__":
    sys.path.insert(0, str(PROJECT))
    main()
