"""The Prefect API a CLI run talks to: the dashboard's server when it is up, otherwise one started for the run.

Prefect would start a temporary server by itself, but only inside the calling process: the backfill's process-pool
workers, seeing no PREFECT_API_URL, would each start their own. So the CLI starts one `prefect server start` on a
free loopback port (the same work Prefect does implicitly, with the project's Prefect home, so the runs stay in
the dashboard's history), exports its URL to the workers, and stops it at the end.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .settings import Settings

START_TIMEOUT = 180.0  # seconds; a busy 2-core machine needs 30 s and more


def healthy(api_url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout) as answer:
            return answer.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def dashboard_url(settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.pipeline.ui_port}"


def server_command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "prefect",
        "server",
        "start",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--analytics-off",
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _configured_api() -> str | None:
    """An API URL already chosen: by the environment, or by Prefect's settings (a test harness sets those)."""
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    if "prefect" in sys.modules:
        from prefect.settings import get_current_settings

        url = get_current_settings().api.url
        return str(url) if url else None
    return None


@contextmanager
def _reporting_to(url: str) -> Iterator[None]:
    """Point this process (and the pool workers it starts) at `url`. Prefect caches its settings when imported,
    so an already imported Prefect also gets the URL through a settings context."""
    os.environ["PREFECT_API_URL"] = url
    try:
        if "prefect" in sys.modules:
            from prefect.settings import PREFECT_API_URL, temporary_settings

            with temporary_settings(updates={PREFECT_API_URL: url}):
                yield
        else:
            yield
    finally:
        os.environ.pop("PREFECT_API_URL", None)


@contextmanager
def prefect_api(settings: Settings, port: int | None = None) -> Iterator[str]:
    """Yield the API URL runs report to, starting (and finally stopping) a server when none is running: on `port`,
    or on a free port when None."""
    chosen = _configured_api()
    if chosen:
        yield chosen
        return
    dashboard = f"{dashboard_url(settings)}/api"
    if healthy(dashboard):
        with _reporting_to(dashboard):
            yield dashboard
        return
    port = port or _free_port()
    url = f"http://127.0.0.1:{port}/api"
    log_path = Path(os.environ.get("PREFECT_HOME", ".")) / "server.log"
    with open(log_path, "ab") as log:
        server = subprocess.Popen(server_command(port), stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not healthy(url):
            if server.poll() is not None:
                raise RuntimeError(f"the Prefect server stopped at start-up (exit {server.returncode}): see {log_path}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Prefect server did not answer within {START_TIMEOUT:.0f} s: see {log_path}")
            time.sleep(0.25)
        with _reporting_to(url):
            yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
