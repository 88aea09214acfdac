"""The Prefect server's CPU seconds per task run, and what its settings change of them.

    python bench/server_cpu.py [--tasks 60]

For each variant, a fresh Prefect server (its own home and port, as `starbattle ui` starts one) and a flow of no-op
task runs in another process, as a CLI run reports to it; the server's CPU (its process and its children's, from
/proc) over that flow, less that over an empty flow, per task run. Variants: the defaults; no logs sent to the API
(the client's setting); the server's triggers service off (automations); its event persister off (the dashboard's
event feed). The defaults run first and last: their spread is the noise. CPU seconds, so a loaded machine slows the
run but hardly moves the figures.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench_scale import descendants, process_cpu

START_SECONDS = 600
DRAIN_SECONDS = 6  # the server writes a flow's events after the flow ends: wait for them before reading its CPU
FLOW = """
import sys
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

@task(cache_policy=NO_CACHE)
def noop(number: int) -> int:
    return number

@flow(task_runner=ThreadPoolTaskRunner(max_workers=1))
def many(count: int) -> None:
    for future in [noop.submit(number) for number in range(count)]:
        future.result()

many(int(sys.argv[1]))
"""
VARIANTS = [
    ("defaults", {}, {}),
    ("no logs to the API (client)", {}, {"PREFECT_LOGGING_TO_API_ENABLED": "false"}),
    ("triggers service off (server)", {"PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false"}, {}),
    ("event persister off (server)", {"PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false"}, {}),
    ("defaults again", {}, {}),
]


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system, reaped children included) of `pid` and every process below it."""
    return sum(process_cpu(process) for process in [pid, *descendants(pid)])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def per_task_run(server_env: dict[str, str], client_env: dict[str, str], tasks: int) -> float:
    """Milliseconds of the server's CPU per no-op task run with these settings."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PREFECT_")}
    env.update(PREFECT_HOME=tempfile.mkdtemp(prefix="server-cpu-"), PREFECT_SERVER_ANALYTICS_ENABLED="false")
    port = free_port()
    command = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command, env={**env, **server_env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/api"
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                urllib.request.urlopen(url + "/health", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"error: no Prefect server answered at {url} in {START_SECONDS} s") from None
                time.sleep(0.5)
        client = {**env, "PREFECT_API_URL": url, **client_env}

        def spent(count: int) -> float:
            before = tree_cpu(server.pid)
            subprocess.run([sys.executable, "-c", FLOW, str(count)], env=client, check=True, capture_output=True)
            time.sleep(DRAIN_SECONDS)
            return tree_cpu(server.pid) - before

        spent(2)  # the server's first flow and task runs warm its caches
        empty = spent(0)
        return 1000 * (spent(tasks) - empty) / tasks
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=60, help="no-op task runs per flow (default 60)")
    args = parser.parse_args()
    print(f"server CPU per task run, {args.tasks} no-op task runs; load average {os.getloadavg()[0]:.1f} at start")
    for name, server_env, client_env in VARIANTS:
        print(f"  {name:32} {per_task_run(server_env, client_env, args.tasks):6.1f} ms", flush=True)


if __name__ == "__main__":
    main()
