"""How often a Ctrl-C of `starbattle daily` leaves anything but its one line on stderr: tests/test_signals.py's
`[daily-Ctrl-C]` scenario, run many times.

Usage: python bench/stop_stress.py [--trials N] [--extra M] [--size S --stars K] [--tree PATH] [--port P] [--keep DIR]

Each trial is the test's: `starbattle daily` as a subprocess in a session of its own, a fresh database, a config whose
first slot publishes within seconds and whose two other slots never pass the generator's gates (so both pool
workers are at work), and SIGINT to the whole process group (a terminal's Ctrl-C) once a board is published and
both workers are up, after a random 1-3 s. A trial is `clean` when the command exits 130 with stderr ending in its
one line, no traceback and at most 3 lines; anything else is kept in `--keep` (every worker's stack that reached
stderr) and counted by the last line of its first traceback.

One Prefect server (on `--port`, its home in a temporary folder) serves every trial, so a trial costs the CLI's and
the pool's start, not a server's. `--extra M` sends each pool worker M more SIGINTs at random moments in the
second or three before the Ctrl-C (what the Ctrl-C does to a worker, M more times), for more chances to land where
a worker does not ignore it. `--size`/`--stars` choose the shape of the two slots that never finish: a bigger
board spends more of the workers' time in the counter's SAT solver. `--tree` runs another checkout's code (the tree
before a fix: `git archive main | tar -x -C DIR`), by PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
# The scenario is tests/test_signals.py's: the same helpers to find its pool workers and its boards.
sys.path.insert(0, str(REPO / "tests"))
from pipeline_processes import pool_workers, published  # noqa: E402

PUBLISHES = {"name": "starbattle-6", "game": "starbattle", "size": 6, "stars": 1, "band": "easy"}
START_SECONDS, STOP_SECONDS = 300.0, 30.0


def _server(port: int, home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    command = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2):
                return server
        except OSError:
            time.sleep(1)
    server.kill()
    raise SystemExit(f"the Prefect server on port {port} did not start in {START_SECONDS:.0f} s")


def _to_the_workers(cli: int, signals: int, seconds: float) -> None:
    """Wait `seconds`, sending `signals` SIGINTs to each pool worker at random moments meanwhile: each is what a
    Ctrl-C does to a worker, without stopping the run."""
    moments = sorted(random.uniform(0, seconds) for _ in range(signals))
    started = time.monotonic()
    for moment in moments:
        time.sleep(max(0.0, started + moment - time.monotonic()))
        for worker in pool_workers(cli):
            try:
                os.kill(worker, signal.SIGINT)
            except ProcessLookupError:
                continue
    time.sleep(max(0.0, started + seconds - time.monotonic()))


def _trial(folder: Path, stuck: dict[str, object], env: dict[str, str], tree: Path, extra: int) -> tuple[str, str]:
    """(outcome, stderr) of one Ctrl-C'd daily run in `folder`, of the code in `tree`."""
    db = folder / "s.db"
    pipeline = {
        "slots": [PUBLISHES, {**stuck, "name": "stuck-a"}, {**stuck, "name": "stuck-b"}],
        "database_url": f"sqlite:///{db}",
        "prefect_home": str(folder / "prefect"),
        "workers": 2,
        "site_dir": None,
    }
    config = folder / "starbattle.yaml"
    config.write_text(yaml.safe_dump({"pipeline": pipeline}), encoding="utf-8")
    command = [sys.executable, "-c", "from starbattle_cli.app import main; main()", "daily", "--date", "2026-12-01"]
    cli = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tree,  # `python -c` puts its working folder first on sys.path
        env={**env, "STARBATTLE_CONFIG": str(config)},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not (published(db) and len(pool_workers(cli.pid)) == 2):
            if cli.poll() is not None or time.monotonic() > deadline:
                os.killpg(cli.pid, signal.SIGKILL)
                return "did not get going", cli.communicate()[1]
            time.sleep(0.25)
        _to_the_workers(cli.pid, extra, random.uniform(1.0, 3.0))
        os.killpg(cli.pid, signal.SIGINT)
        err = cli.communicate(timeout=STOP_SECONDS)[1]
    except subprocess.TimeoutExpired:
        os.killpg(cli.pid, signal.SIGKILL)
        return "hung", cli.communicate()[1]
    if cli.returncode == 130 and "Traceback" not in err and err.endswith("interrupted (Ctrl-C)\n"):
        return ("clean", err) if err.count("\n") <= 3 else ("extra lines", err)
    return _first_error(err) or f"status {cli.returncode}", err


def _first_error(err: str) -> str | None:
    """The exception that ends the first traceback in `err` (after any it was raised during), with the project's
    innermost frame."""
    lines = err.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("Traceback")), None)
    if first is None:
        return None
    block = lines[first:]
    # The block ends at the next log line (a time stamp) or the command's own line.
    end = next((i for i, line in enumerate(block) if re.match(r"\d\d:\d\d:\d\d|error:|run failed:", line)), len(block))
    raised = [line for line in block[:end] if line and not line.startswith((" ", "Traceback", "During handling"))]
    frames = [re.search(r'"[^"]*/(starbattle_\w+/[\w/]+\.py)", line \d+, in (\w+)', line) for line in block[:end]]
    where = [match.group(1, 2) for match in frames if match]
    return (raised[-1] if raised else "Traceback") + (f" (in {where[-1][0]} {where[-1][1]})" if where else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--size", type=int, default=6, help="the never-finishing slots' board size (the test's: 6)")
    parser.add_argument("--stars", type=int, default=1)
    parser.add_argument("--tree", type=Path, help="run this checkout's code instead (by PYTHONPATH)")
    parser.add_argument("--port", type=int, default=4311, help="the shared Prefect server's port")
    parser.add_argument("--keep", type=Path, help="a folder for the stderr of every trial that was not clean")
    parser.add_argument(
        "--extra", type=int, default=0, help="SIGINTs to each pool worker before the Ctrl-C (more chances to hit)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the delays before each Ctrl-C")
    options = parser.parse_args()
    random.seed(options.seed)
    game = "queens" if options.stars == 1 and options.size > 6 else "starbattle"
    stuck = {
        "game": game,
        "size": options.size,
        "stars": options.stars,
        "band": "expert",
        "candidate_budget": 100_000,
        "budget_seconds": 3600,
    }
    env = {key: value for key, value in os.environ.items() if not key.startswith("PREFECT_")}
    env["PREFECT_API_URL"] = f"http://127.0.0.1:{options.port}/api"
    if options.tree is not None:
        options.tree = options.tree.resolve()
        env["PYTHONPATH"] = str(options.tree)
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", options.port)) == 0:
            raise SystemExit(f"port {options.port} is taken")
    outcomes: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="stop-stress-") as scratch:
        server = _server(options.port, Path(scratch) / "prefect-server")
        try:
            for trial in range(options.trials):
                folder = Path(scratch) / f"trial-{trial}"
                folder.mkdir()
                started = time.monotonic()
                outcome, err = _trial(folder, stuck, env, options.tree or REPO, options.extra)
                outcomes[outcome] += 1
                print(f"trial {trial}: {outcome} ({time.monotonic() - started:.0f} s)", flush=True)
                if outcome != "clean" and options.keep is not None:
                    options.keep.mkdir(parents=True, exist_ok=True)
                    (options.keep / f"trial-{trial}.stderr").write_text(err, encoding="utf-8")
        finally:
            server.terminate()
            server.wait(30)
    summary = ", ".join(f"{count} {outcome}" for outcome, count in outcomes.most_common())
    print(
        f"{options.trials} Ctrl-Cs ({options.size}x{options.size} {options.stars}-star stuck slots, {options.extra} "
        f"extra SIGINTs a worker): {summary}"
    )


if __name__ == "__main__":
    main()
