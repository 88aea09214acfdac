"""The Prefect servers the CLI starts, and the API a CLI run talks to: the project's dashboard when it is up,
otherwise a server started for the run.

Prefect would start a temporary server by itself, but only inside the calling process: a local cluster's
workers, seeing no PREFECT_API_URL, would each start their own. So the CLI starts one `prefect server start` on a
free loopback port (the same work Prefect does implicitly, with the project's Prefect home, so the runs stay in
the dashboard's history), exports its URL to the workers, and stops it at the end.

Every server started here
- runs in its own session, so a Ctrl-C at the terminal reaches the CLI, which stops the run and then the server,
  instead of killing the server under a running flow;
- gets SIGTERM from the kernel when the CLI dies (PR_SET_PDEATHSIG), so even `kill -9` of the CLI leaves no server;
- is marked in the Prefect home (`servers/PORT.json`: its pid and command line). Only a server with a live marker
  counts as the project's dashboard: anything else answering on `ui_port` (another project's Prefect, a stand-in)
  is never reported to;
- starts under a lock in the Prefect home, so two first runs on a new home do not migrate its database at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from starbattle_core.puzzle import InputError

from .settings import Settings

START_TIMEOUT = 180.0  # seconds; a busy 2-core machine needs 30 s and more
STOP_TIMEOUT = 15.0
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class ServerError(InputError):
    """A Prefect server that cannot be started or used (its port taken, its start failing); one line, status 2."""


class Server(NamedTuple):
    url: str  # the API URL, ending in /api
    process: subprocess.Popen[bytes]


def healthy(api_url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout) as answer:
            return bool(answer.status == 200)
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


def _home() -> Path:
    """The Prefect home `prepare_prefect` chose (it sets PREFECT_HOME before any server starts)."""
    return Path(os.environ.get("PREFECT_HOME") or ".")


def _marker(port: int) -> Path:
    return _home() / "servers" / f"{port}.json"


def _process_command(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def project_server(port: int) -> str | None:
    """The API URL of this project's server on `port` (one started by this module with this Prefect home, still
    running and answering), else None."""
    try:
        marker = json.loads(_marker(port).read_text(encoding="utf-8"))
        pid, command = int(marker["pid"]), list(marker["command"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    # A pid alone could have been reused by another process since; its command line names the server and port.
    if _process_command(pid) != command:
        return None
    url = f"http://127.0.0.1:{port}/api"
    return url if healthy(url) else None


def _port_taken(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# Run in the server's process before it becomes the server (then execs it, keeping the pid): ask the kernel for
# SIGTERM when the CLI that started it dies, however it dies, and give up if the CLI died before the request took
# effect. A launcher, not a `preexec_fn`, which is unsafe while the CLI runs threads (its progress bar).
_LAUNCHER = (
    "import ctypes, os, signal, sys; "
    f"ctypes.CDLL(None).prctl({_PR_SET_PDEATHSIG}, signal.SIGTERM, 0, 0, 0); "
    "os.getppid() == int(sys.argv[1]) or os._exit(1); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


@contextmanager
def _start_lock() -> Iterator[None]:
    """One server start at a time per Prefect home: the first start on a new home creates its database."""
    path = _home() / "server-start.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def stop_process(server: subprocess.Popen[bytes]) -> None:
    """Stop a server process: SIGTERM, then SIGKILL if it has not ended within STOP_TIMEOUT."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@contextmanager
def running_server(port: int | None = None, meanwhile: Callable[[str], None] | None = None) -> Iterator[Server]:
    """Start a Prefect server with the project's Prefect home on `port` (a free port when None), yield it once it
    answers, and stop it on the way out, whatever ends the block (an error, Ctrl-C, SIGTERM). `meanwhile(url)` runs
    while the server starts (on a fresh home its start is mostly one core migrating Prefect's database)."""
    home = _home()
    log_path = home / "server.log"
    with _start_lock():
        if port is None:
            port = _free_port()
        elif _port_taken(port):
            raise ServerError(
                f"port {port} is in use by another program, not this project's Prefect server "
                "(stop it, or set pipeline.ui_port in the config)"
            )
        command = server_command(port)
        url = f"http://127.0.0.1:{port}/api"
        with open(log_path, "ab") as log:
            server = subprocess.Popen(
                [sys.executable, "-c", _LAUNCHER, str(os.getpid()), *command],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=os.environ.copy(),
                start_new_session=True,
            )
        marker = _marker(port)
        try:
            if meanwhile is not None:
                meanwhile(url)
            deadline = time.monotonic() + START_TIMEOUT
            while not healthy(url):
                if server.poll() is not None:
                    raise ServerError(
                        f"the Prefect server stopped at start-up (exit {server.returncode}): see {log_path}"
                    )
                if time.monotonic() > deadline:
                    raise ServerError(f"the Prefect server did not answer within {START_TIMEOUT:.0f} s: see {log_path}")
                time.sleep(0.25)
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(json.dumps({"pid": server.pid, "command": command}), encoding="utf-8")
        except BaseException:
            stop_process(server)
            raise
    try:
        yield Server(url, server)
    finally:
        stop_process(server)
        marker.unlink(missing_ok=True)


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
    """Point this process (and the workers it starts) at `url`. Prefect caches its settings when imported,
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
def prefect_api(
    settings: Settings, port: int | None = None, meanwhile: Callable[[], None] = lambda: None
) -> Iterator[str]:
    """Yield the API URL runs report to: the project's dashboard server when it runs, else a server started (and
    finally stopped) for this block, on `port` or on a free port when None. `meanwhile` runs before the block,
    while that server starts."""
    chosen = _configured_api()
    if chosen:
        meanwhile()
        yield chosen
        return
    dashboard = project_server(settings.pipeline.ui_port)
    if dashboard is not None:
        with _reporting_to(dashboard):
            meanwhile()
            yield dashboard
        return

    def starting(url: str) -> None:
        # A Prefect imported meanwhile keeps the URL in its settings for the process's life, as it would imported
        # after: its workers that flush logs and events at exit then still know where to (without it, one started
        # a server of its own at exit).
        os.environ["PREFECT_API_URL"] = url
        meanwhile()

    try:
        with running_server(port, starting) as server, _reporting_to(server.url):
            try:
                yield server.url
            finally:
                _send_queued_logs()
    finally:
        os.environ.pop("PREFECT_API_URL", None)


def _send_queued_logs() -> None:
    """Send the run's queued log lines while the server still listens (after it stops, Prefect prints an error
    for every batch it cannot deliver)."""
    handlers = sys.modules.get("prefect.logging.handlers")
    if handlers is not None:
        handlers.APILogWorker.drain_all(timeout=5)


def run_dashboard(settings: Settings, say: Callable[[str], None]) -> None:
    """`starbattle ui`: start the dashboard's server on `ui_port` and wait until it stops or the CLI is stopped
    (Ctrl-C, SIGTERM), then stop it. When the project's dashboard already runs, `say` where and return."""
    url = dashboard_url(settings)
    if project_server(settings.pipeline.ui_port) is not None:
        say(f"the dashboard is already running: {url}")
        return
    with running_server(settings.pipeline.ui_port) as server:
        say(f"dashboard: {url}  (Prefect home {_home()}; Ctrl-C stops it)")
        status = server.process.wait()
    raise ServerError(f"the dashboard's Prefect server stopped (exit {status}): see {_home() / 'server.log'}")
