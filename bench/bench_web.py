"""Benchmark of `starbattle web`'s API under concurrent clients: requests per second and latency (median, 95th
percentile, max) of verify and hint on the shared 10x10 boards at 1, 5 and 20 clients, and of explain on 14x14
boards.

The server runs as its own process, as deployed (`starbattle web --port 0`, the default config's `web:` section
unless --workers or --time-limit say otherwise); each client is a thread with one keep-alive connection sending its
requests one after another, so N clients keep N requests under way. Verify asks about a board as published; hint
asks from a player's state taken along the board's own solve path (the marks after a seeded random number of the
grader's steps, as bench_hint.py does). The load average is printed before and after: the figures only compare
with others taken in the same minutes.

    python bench/bench_web.py                          # 10x10: 1, 5, 20 clients; 14x14 explain: 1 and 5 clients
    python bench/bench_web.py --requests 400 --clients 1,5,20 --explain-clients 1,2 --explain-boards 6
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from web_server import web_server  # noqa: E402

from starbattle_core.formats import puzzle_from_json, puzzle_to_json  # noqa: E402
from starbattle_core.grader import grade  # noqa: E402
from starbattle_core.puzzle import cells_to_coords  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
FILES = ["starbattle/handmade.jsonl", "starbattle/archive.jsonl", "starbattle/labelled.jsonl"]


def shared_rows(size: int) -> list[dict[str, Any]]:
    rows = []
    for name in FILES:
        for line in (SHARED / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row["size"] == size:
                    rows.append(row)
    return rows


def hint_bodies(rows: list[dict[str, Any]], count: int, rng: random.Random) -> list[dict[str, Any]]:
    """`count` hint requests: boards sampled from `rows`, each with the marks after a random number of its steps."""
    bodies = []
    for row in rng.sample(rows, min(count, len(rows))):
        puzzle = puzzle_from_json(row)
        steps = grade(puzzle).steps
        stars = empties = 0
        for step in steps[: rng.randrange(len(steps))]:
            stars |= step.stars
            empties |= step.empties
        marks = {
            "stars": [list(rc) for rc in cells_to_coords(stars, puzzle.size)],
            "empties": [list(rc) for rc in cells_to_coords(empties, puzzle.size)],
        }
        bodies.append({"puzzle": puzzle_to_json(puzzle), "marks": marks})
    return bodies


def run(port: int, endpoint: str, bodies: list[dict[str, Any]], clients: int, requests: int) -> dict[str, Any]:
    """`requests` POSTs to /api/ENDPOINT shared by `clients` threads; latencies in ms and the statuses."""
    encoded = [json.dumps(body).encode() for body in bodies]
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    counter = iter(range(requests))

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        mine, codes = [], []
        while True:
            with lock:
                number = next(counter, None)
            if number is None:
                break
            start = time.perf_counter()
            connection.request(
                "POST", f"/api/{endpoint}", encoded[number % len(encoded)], {"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            response.read()
            mine.append((time.perf_counter() - start) * 1000.0)
            codes.append(response.status)
        connection.close()
        with lock:
            latencies.extend(mine)
            for code in codes:
                statuses[code] = statuses.get(code, 0) + 1

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "endpoint": endpoint,
        "clients": clients,
        "requests": len(ordered),
        "rps": len(ordered) / wall,
        "p50": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "max": ordered[-1],
        "statuses": statuses,
    }


def show(result: dict[str, Any]) -> None:
    codes = ", ".join(f"{code}: {count}" for code, count in sorted(result["statuses"].items()))
    print(
        f"  {result['endpoint']:8} {result['clients']:3} clients  {result['requests']:5} requests  "
        f"{result['rps']:7.1f}/s  p50 {result['p50']:8.1f} ms  p95 {result['p95']:8.1f} ms  "
        f"max {result['max']:8.1f} ms  ({codes})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300, help="requests per endpoint and client count (10x10)")
    parser.add_argument("--clients", default="1,5,20", help="client counts for verify and hint")
    parser.add_argument("--boards", type=int, default=40, help="10x10 boards (and player states) to send")
    parser.add_argument("--explain-clients", default="1,5", help="client counts for explain on 14x14 boards")
    parser.add_argument("--explain-boards", type=int, default=10, help="14x14 boards, each explained once a count")
    parser.add_argument("--workers", type=int, default=None, help="the server's worker processes (web.workers)")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds a request (web.time_limit)")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tens = shared_rows(10)
    verify_bodies = [{"puzzle": row} for row in rng.sample(tens, min(args.boards, len(tens)))]
    hints = hint_bodies(tens, args.boards, rng)
    fourteens = [{"puzzle": row} for row in rng.sample(shared_rows(14), args.explain_boards)]
    web = {key: value for key, value in (("workers", args.workers), ("time_limit", args.time_limit)) if value}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder, web_server(Path(folder), Path(folder) / "site", **web) as server:
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        print(f"starbattle web on port {port}, web: {web or 'the defaults'}")
        run(port, "verify", verify_bodies, 2, 20)  # warm the workers' board tables
        for endpoint, bodies in (("verify", verify_bodies), ("hint", hints)):
            for clients in (int(c) for c in args.clients.split(",")):
                show(run(port, endpoint, bodies, clients, args.requests))
        for clients in (int(c) for c in args.explain_clients.split(",")):
            show(run(port, "explain", fourteens, clients, len(fourteens)))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
