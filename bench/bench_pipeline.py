"""Wall time and CPU seconds of the pipeline's commands as a user runs them, Prefect's start included.

    python bench/bench_pipeline.py [--days 7] [--workers 2] [--skip-daily] [--skip-backfill]
                                   [--cases first next running] [--tree PATH ...] [--start 2027-01-01]

Each measurement runs the real `starbattle` command in a fresh process, with the default slots and budgets of
config/starbattle.yaml, in a temporary folder (the project's data/ is not touched). The default day is measured
three ways, one after another in one folder, each on its own date (`--start`, then the days after it):
- `first`: a fresh clone's first `starbattle daily`: a fresh database and a fresh Prefect home (its server's start
  migrates Prefect's database);
- `next`: the next date's `starbattle daily` on that home and database (the server it starts is already migrated);
- `running`: a date with the dashboard already up (`starbattle ui` started and answering before the clock), as the
  nightly run of `starbattle serve` finds its server.
For each: wall seconds, and CPU seconds per process (read from /proc while it runs): the CLI's process, where the
flow runs; the Prefect server (for `running`, what the dashboard's server spent during the run); the local Dask
cluster's workers. Then a backfill of `--days` dates with each `--workers` count (the config's `pipeline.workers`).
Aims on the 2-core reference machine: `starbattle daily` under 60 s, a seven-day backfill under 5 minutes. Per-slot
generator seconds come from the run's own counters in the database.

`--tree PATH ...` measures other checkouts of the project (say main's, exported to /tmp) with this script, each
case run on every tree in turn, for a before/after in the same minutes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from flows.settings import load_settings
from starbattle_store import slot_stats
from starbattle_store.db import open_database

PROJECT = Path(__file__).resolve().parents[1]

# The entry point with the pipeline commands registered, whether or not app.py imports them yet.
ENTRY = "import starbattle_cli.commands_pipeline; from starbattle_cli.app import main; main()"
CASES = ("first", "next", "running")
TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.2  # how often the process tree is read; a process that ends loses at most this much of its CPU
ROLES = ("flow", "server", "workers", "other")


def fresh_config(folder: Path, tree: Path, workers: int | None = None) -> Path:
    """`tree`'s config with the database, Prefect home and dashboard port moved into `folder` (a free port), and
    `workers` generating when given."""
    raw = yaml.safe_load((tree / "config" / "starbattle.yaml").read_text()) or {}
    pipeline = raw.get("pipeline") or {}
    if workers is not None:
        pipeline["workers"] = workers
    pipeline["database_url"] = f"sqlite:///{folder / 'starbattle.db'}"
    pipeline["prefect_home"] = str(folder / "prefect")
    pipeline["site_dir"] = str(folder / "site")
    pipeline["ui_port"] = _free_port()
    raw["pipeline"] = pipeline
    path = folder / "starbattle.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cpu(pid: int) -> float | None:
    """CPU seconds (user + system) of one live process, None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: fields 14 and 15 of proc(5)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _role(pid: int) -> str | None:
    """What a process is, from its command line; None when it has none (a zombie waiting for its parent)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    if command == [b""]:
        return None
    if b"prefect" in command and b"server" in command:
        return "server"  # also its launcher (flows/server.py), which becomes the server under the same pid
    if any(b"spawn_main" in part for part in command):
        return "workers"  # the local cluster's workers (multiprocessing's spawn)
    return "other"


class ProcessCpu:
    """CPU seconds per role of a process tree while a command runs: `flow` (the root, the CLI's process), `server`,
    `workers`, `other`. Processes already running at the start (a dashboard's server) count from there."""

    def __init__(self, root: int, *, watched: tuple[int, ...] = ()) -> None:
        self.root = root
        self.roots = (root, *watched)
        self.seen: dict[int, tuple[str, float, float]] = {}  # pid -> role, CPU at first sight, CPU last seen
        for pid in self._tree(watched):
            cpu = _cpu(pid)
            if cpu is not None:
                self.seen[pid] = (_role(pid) or "other", cpu, cpu)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _tree(self, roots: tuple[int, ...]) -> Iterator[int]:
        pending = list(roots)
        while pending:
            pid = pending.pop()
            yield pid
            pending += _children(pid)

    def _sample(self) -> None:
        while True:
            for pid in self._tree(self.roots):
                cpu = _cpu(pid)
                if cpu is None:
                    continue
                # The role is read again each time: a child seen between its fork and its exec shows its parent's
                # command line (and a zombie none: it keeps the role it had).
                role, first, _last = self.seen.get(pid, ("other", 0.0, 0.0))
                self.seen[pid] = ("flow" if pid == self.root else _role(pid) or role, first, cpu)
            if self._stop.wait(SAMPLE_SECONDS):
                return

    def __enter__(self) -> ProcessCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def by_role(self) -> dict[str, float]:
        totals = dict.fromkeys(ROLES, 0.0)
        for role, first, last in self.seen.values():
            totals[role] += last - first
        return totals


def _environment(config: Path, tree: Path) -> dict[str, str]:
    env = {**os.environ, "STARBATTLE_CONFIG": str(config), "PYTHONPATH": str(tree)}
    env.pop("PREFECT_API_URL", None)
    env.pop("PREFECT_HOME", None)
    return env


def timed(argv: list[str], config: Path, tree: Path, watched: tuple[int, ...] = ()) -> float:
    """Wall seconds of one command; also prints its CPU seconds by process and the load average, since on a shared
    machine the wall time says more about the other users than about the pipeline."""
    load = os.getloadavg()[0]
    began = time.perf_counter()
    with (
        subprocess.Popen(
            [sys.executable, "-c", ENTRY, *argv],
            env=_environment(config, tree),
            cwd=tree,  # `-c` puts the working folder first on the path: the tree's code, not the caller's
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as command,
        ProcessCpu(command.pid, watched=watched) as cpu,
    ):
        out, err = command.communicate()
    seconds = time.perf_counter() - began
    roles = cpu.by_role()
    shares = ", ".join(f"{role} {roles[role]:.1f}" for role in ROLES)
    print(f"  {argv[0]}: {sum(roles.values()):.1f} CPU s ({shares}); load average {load:.1f} at the start")
    if command.returncode != 0:
        print(out[-2000:], err[-2000:], sep="\n", file=sys.stderr)
        print(f"  exit status {command.returncode}", file=sys.stderr)
    return seconds


@contextmanager
def dashboard(config: Path, tree: Path) -> Iterator[int]:
    """`starbattle ui` on the config's port, answering before this yields its pid; stopped (SIGTERM) after."""
    port = load_settings(config).pipeline.ui_port
    ui = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "ui"],
        env=_environment(config, tree),
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while not _answers(f"http://127.0.0.1:{port}/api/health"):
            if ui.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"starbattle ui did not come up on port {port}")
            time.sleep(0.5)
        time.sleep(2.0)  # its start's last work (the services' first loops) is not the nightly run's
        yield ui.pid
    finally:
        ui.send_signal(signal.SIGTERM)
        ui.wait(timeout=60)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1.0) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def daily_cases(cases: list[str], tree: Path, start: dt.date) -> None:
    labels = {
        "first": "first day: fresh database and Prefect home, the CLI starts (and migrates) its server",
        "next": "next day: the same home and database, the CLI starts its server",
        "running": "nightly: the dashboard's server already running (`starbattle ui`)",
    }
    with tempfile.TemporaryDirectory(prefix="bench-day-") as folder:
        config = fresh_config(Path(folder), tree)
        if "first" not in cases:
            # The later days need a home that a first day migrated: migrate it, untimed.
            env = {**_environment(config, tree), "PREFECT_HOME": str(Path(folder) / "prefect")}
            upgrade = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
            subprocess.run(upgrade, env=env, capture_output=True, check=True)
            print("  (set-up, not timed: a Prefect home migrated as a first day leaves it)")
        for offset, case in enumerate(CASES):
            if case not in cases:
                continue
            date = (start + dt.timedelta(days=offset)).isoformat()
            argv = ["daily", "--date", date]
            if case == "running":
                with dashboard(config, tree) as ui:
                    seconds = timed(argv, config, tree, watched=(ui,))
            else:
                seconds = timed(argv, config, tree)
            print(f"starbattle daily {date}, {labels[case]}: {seconds:.1f} s wall (aim < 60 s)")
            report_slots(config, date)


def report_slots(config: Path, first: str, last: str | None = None) -> None:
    settings = load_settings(config)
    engine = open_database(settings.pipeline.resolved_database_url())
    start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last or first)
    print(f"  {'slot':20} {'attempts':>8} {'accepted':>8} {'candidates':>10} {'seconds':>8} {'s/board':>8}")
    for s in slot_stats(engine, start=start, end=end):
        per_board = s.seconds / max(1, s.accepted)
        print(f"  {s.slot:20} {s.attempts:8d} {s.accepted:8d} {s.candidates:10d} {s.seconds:8.1f} {per_board:8.1f}")


def backfill_case(tree: Path, start: dt.date, days: int, workers: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-backfill-") as folder:
        config = fresh_config(Path(folder), tree, workers)
        end = start + dt.timedelta(days=days - 1)
        seconds = timed(["backfill", "--start", start.isoformat(), "--end", end.isoformat()], config, tree)
        print(f"starbattle backfill of {days} dates, {workers} workers: {seconds:.1f} s (aim < 300 s for 7)")
        report_slots(config, start.isoformat(), end.isoformat())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=7, help="dates in the backfill (default 7)")
    parser.add_argument("--workers", type=int, nargs="+", default=[2], help="backfill worker counts (default 2)")
    parser.add_argument("--skip-daily", action="store_true")
    parser.add_argument("--skip-backfill", action="store_true")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES), help="which default days (all)")
    parser.add_argument("--tree", type=Path, nargs="+", default=[PROJECT], help="checkouts measured (this one)")
    parser.add_argument("--start", type=dt.date.fromisoformat, default=dt.date(2027, 1, 1), help="the first date")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.tree]
    start = args.start
    if not args.skip_daily:
        for case in args.cases:
            for tree in trees:
                print(f"measuring {tree}")
                daily_cases([case], tree, start)
    if not args.skip_backfill:
        for workers in args.workers:
            for tree in trees:
                print(f"measuring {tree}")
                backfill_case(tree, start, args.days, workers)


if __name__ == "__main__":
    main()
