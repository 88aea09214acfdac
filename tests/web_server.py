"""`starbattle web` started the way an operator starts it: its own process on a free port (`--port 0`, the port read
from its first line), its own config file; stopped by the code that started it. Used by test_web.py,
test_web_browser.py and bench/bench_web.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

STARBATTLE = str(Path(sys.executable).with_name("starbattle"))
START_TIMEOUT = 60.0


@dataclass
class WebServer:
    url: str
    process: subprocess.Popen[str]
    config: Path

    def post(self, endpoint: str, body: Any, *, raw: bytes | None = None, timeout: float = 60.0) -> tuple[int, Any]:
        """POST a JSON body (or `raw` bytes) to /api/ENDPOINT; (status, the answer's JSON)."""
        data = raw if raw is not None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}api/{endpoint}", data=data, headers={"Content-Type": "application/json"}, method="POST"
        )
        return _answer(request, timeout)

    def get(self, path: str, timeout: float = 10.0) -> tuple[int, Any]:
        return _answer(urllib.request.Request(self.url + path), timeout)


def _answer(request: urllib.request.Request, timeout: float) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body.decode("utf-8", "replace")


@contextmanager
def web_server(folder: Path, site: Path, **web: Any) -> Iterator[WebServer]:
    """`starbattle web --port 0 --site SITE` with a config whose `web:` section is `web`, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "web.yaml"
    config.write_text(yaml.safe_dump({"web": web}))
    env = {**os.environ, "STARBATTLE_CONFIG": str(config)}
    # A session of its own: the test can signal the server as a terminal signals its job.
    process = subprocess.Popen(
        [STARBATTLE, "web", "--port", "0", "--site", str(site)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        assert found, f"starbattle web said {first!r}; stderr: {process.stderr.read() if process.stderr else ''}"
        server = WebServer(f"http://127.0.0.1:{found[1]}/", process, config)
        deadline = time.monotonic() + START_TIMEOUT
        while server.get("api/health")[0] != 200:
            assert time.monotonic() < deadline, "starbattle web did not answer /api/health"
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
