"""Every command that starts a Prefect server stops it: on SIGTERM, on Ctrl-C at the terminal, and when the command
itself is killed (kill -9). Tested the way it happens: `starbattle ui` / `serve` as subprocesses on a free port
with their own Prefect home, the signal sent from outside, then the port must be closed and the server process gone.
Also: only a server this project started counts as its dashboard (a stand-in answering /api/health is not one).

These start real Prefect servers (about 30-60 s each on a loaded 2-core machine), one per test.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO

START_SECONDS = 240  # a Prefect server start on a busy machine, with margin
STOP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for this purpose: only its parent (the killed CLI, gone) could reap it.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.fixture
def project(tmp_path: Path, migrated_prefect_home: Callable[[Path], Path]) -> tuple[dict[str, str], int, Path]:
    """A config on a free port with a Prefect home and database under tmp_path: (environment, port, home)."""
    port = free_port()
    home = migrated_prefect_home(tmp_path / "prefect")
    config = tmp_path / "starbattle.yaml"
    config.write_text(
        f'pipeline:\n  database_url: "sqlite:///{tmp_path / "s.db"}"\n  prefect_home: {home}\n  ui_port: {port}\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    return {**env, "STARBATTLE_CONFIG": str(config)}, port, home


def start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    # A session of its own, as a shell gives a job: a signal to its process group is a Ctrl-C at its terminal.
    return subprocess.Popen(
        [sys.executable, "-c", "from starbattle_cli.app import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
        start_new_session=True,
    )


def wait_for_server(cli: subprocess.Popen[str], port: int, home: Path) -> int:
    """The pid of the project's server once it answers on `port` (read from its marker in the Prefect home)."""
    marker = home / "servers" / f"{port}.json"
    deadline = time.monotonic() + START_SECONDS
    while not (marker.exists() and port_open(port)):
        assert cli.poll() is None, cli.communicate()
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.5)
    return int(json.loads(marker.read_text(encoding="utf-8"))["pid"])


def assert_stopped(port: int, server: int) -> None:
    deadline = time.monotonic() + STOP_SECONDS
    while alive(server) or port_open(port):
        assert time.monotonic() < deadline, f"server {server} still alive or port {port} open"
        time.sleep(0.25)


# SIGTERM takes the CLI's one handler as Ctrl-C does: stopping the server on it is `serve`'s test below, its one
# line test_signals.py's.
@pytest.mark.parametrize("how", ["Ctrl-C", "kill -9"])
def test_ui_stops_its_server(project, how: str) -> None:
    env, port, home = project
    cli = start(env, "ui")
    server = wait_for_server(cli, port, home)
    again = start(env, "ui")  # a second `ui` finds the project's dashboard by its marker and leaves it be
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0 and f"the dashboard is already running: http://127.0.0.1:{port}" in out
    if how == "Ctrl-C":
        os.killpg(cli.pid, signal.SIGINT)  # the terminal sends it to the whole foreground job
    else:
        cli.kill()
    out, err = cli.communicate(timeout=STOP_SECONDS)
    assert_stopped(port, server)
    if how == "Ctrl-C":
        assert cli.returncode == 128 + signal.SIGINT and err == "error: interrupted (Ctrl-C)\n", err
    assert not (home / "servers" / f"{port}.json").exists() or how == "kill -9"


def test_serve_stops_its_server_on_sigterm(project) -> None:
    env, port, home = project
    cli = start(env, "serve")
    server = wait_for_server(cli, port, home)
    assert cli.stdout is not None
    first = cli.stdout.readline()  # printed once the deployments are built, just before they are served
    assert first.startswith("serving nightly"), first
    time.sleep(3)
    cli.send_signal(signal.SIGTERM)
    out, err = cli.communicate(timeout=STOP_SECONDS)
    assert_stopped(port, server)
    assert "Traceback" not in out + err, out + err


class _StandIn(http.server.BaseHTTPRequestHandler):
    """Anything that answers /api/health, like another project's Prefect server."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *_: object) -> None:
        pass


def test_a_stand_in_on_the_port_is_not_the_projects_server(project, monkeypatch: pytest.MonkeyPatch) -> None:
    env, port, home = project
    stand_in = http.server.HTTPServer(("127.0.0.1", port), _StandIn)
    threading.Thread(target=stand_in.serve_forever, daemon=True).start()
    try:
        from flows.server import healthy, project_server

        assert healthy(f"http://127.0.0.1:{port}/api")
        monkeypatch.setenv("PREFECT_HOME", str(home))
        assert project_server(port) is None
        # A marker naming a process that is not that server (this test's own pid) does not make it the project's.
        (home / "servers").mkdir(parents=True)
        (home / "servers" / f"{port}.json").write_text(json.dumps({"pid": os.getpid(), "command": ["prefect"]}))
        assert project_server(port) is None
        cli = start(env, "ui")
        out, err = cli.communicate(timeout=120)
    finally:
        stand_in.shutdown()
    assert cli.returncode == 2 and out == ""
    assert err == (
        f"error: port {port} is in use by another program, not this project's Prefect server "
        "(stop it, or set pipeline.ui_port in the config)\n"
    )
