"""Wall time of the pipeline's commands as a user runs them, Prefect's start included.

    python bench/bench_pipeline.py [--days 7] [--skip-daily] [--skip-backfill]
    python bench/bench_pipeline.py --scale [--days 1] [--slots default|small]   (bench/bench_scale.py)

Each measurement runs the real `starbattle` command in a fresh process against a fresh database and a fresh
Prefect home in a temporary folder (the project's data/ is not touched), with the default slots and budgets of
config/starbattle.yaml. Aims on the 2-core reference machine: `starbattle daily` under 60 s, a seven-day backfill
under 5 minutes. Per-slot generator seconds come from the run's own counters in the database.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from flows.db import open_database
from flows.settings import load_settings
from flows.store import slot_stats

PROJECT = Path(__file__).resolve().parents[1]

# The entry point with the pipeline commands registered, whether or not app.py imports them yet.
ENTRY = "import starbattle_cli.commands_pipeline; from starbattle_cli.app import main; main()"


def fresh_config(folder: Path) -> Path:
    """The project's config with the database and Prefect home moved into `folder`."""
    raw = yaml.safe_load((PROJECT / "config" / "starbattle.yaml").read_text()) or {}
    pipeline = raw.get("pipeline") or {}
    pipeline["database_url"] = f"sqlite:///{folder / 'starbattle.db'}"
    pipeline["prefect_home"] = str(folder / "prefect")
    raw["pipeline"] = pipeline
    path = folder / "starbattle.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _cpu_seconds() -> float:
    """CPU seconds of every finished child process so far: the CLI, its Prefect server and its pool workers."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: list[str], config: Path) -> float:
    """Wall seconds of one command; also prints its CPU seconds and the load average, since on a shared machine the
    wall time says more about the other users than about the pipeline."""
    env = {**os.environ, "STARBATTLE_CONFIG": str(config)}
    env.pop("PREFECT_API_URL", None)
    load, cpu = os.getloadavg()[0], _cpu_seconds()
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", ENTRY, *argv], env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    print(f"  {argv[0]}: {_cpu_seconds() - cpu:.1f} CPU s (all its processes), load average {load:.1f} at the start")
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
        print(f"  exit status {done.returncode}", file=sys.stderr)
    return seconds


def report_slots(config: Path) -> None:
    settings = load_settings(config)
    engine = open_database(settings.pipeline.resolved_database_url())
    print(f"  {'slot':20} {'attempts':>8} {'accepted':>8} {'candidates':>10} {'seconds':>8} {'s/board':>8}")
    for s in slot_stats(engine):
        per_board = s.seconds / max(1, s.accepted)
        print(f"  {s.slot:20} {s.attempts:8d} {s.accepted:8d} {s.candidates:10d} {s.seconds:8.1f} {per_board:8.1f}")


def main() -> None:
    if "--scale" in sys.argv[1:]:
        # Runners compared (process pool, 1 and 2 Dask workers) with options of its own: bench/bench_scale.py.
        import bench_scale

        bench_scale.main(sys.argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true", help="compare runners instead (see bench/bench_scale.py)")
    parser.add_argument("--days", type=int, default=7, help="dates in the backfill (default 7)")
    parser.add_argument("--skip-daily", action="store_true")
    parser.add_argument("--skip-backfill", action="store_true")
    args = parser.parse_args()
    start = dt.date(2027, 1, 1)
    if not args.skip_daily:
        with tempfile.TemporaryDirectory() as folder:
            config = fresh_config(Path(folder))
            seconds = timed(["daily", "--date", start.isoformat()], config)
            print(f"starbattle daily (fresh database and Prefect home, 7 default slots): {seconds:.1f} s (aim < 60 s)")
            report_slots(config)
    if not args.skip_backfill:
        with tempfile.TemporaryDirectory() as folder:
            config = fresh_config(Path(folder))
            end = start + dt.timedelta(days=args.days - 1)
            seconds = timed(["backfill", "--start", start.isoformat(), "--end", end.isoformat()], config)
            print(f"starbattle backfill of {args.days} dates on both cores: {seconds:.1f} s (aim < 300 s for 7)")
            report_slots(config)


if __name__ == "__main__":
    main()
