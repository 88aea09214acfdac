"""A throwaway PostgreSQL server for the database tests: a fresh cluster in a temporary folder, on a free loopback
port, trusted local logins, stopped when the session ends. `.ci/run` makes sure the server's programs are there.

The tests never skip for want of it: a database test that silently does not run is a check that cannot fail.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, make_url, text


def _program(name: str) -> str:
    installed = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))  # Debian keeps it off PATH, per version
    found = shutil.which(name) or (installed[-1] if installed else None)
    if found is None:
        raise FileNotFoundError(f"PostgreSQL's {name} is not installed: run .ci/run, or install the postgresql package")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root; Debian's package makes the `postgres` user for them.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server; yield the URL of its `postgres` database (user `postgres`, no password)."""
    folder = Path(tempfile.mkdtemp(prefix="starbattle-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = _free_port()
    subprocess.run(
        _as_server_user(
            [_program("initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off"
    subprocess.run(
        _as_server_user([_program("pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"  # the plain form a user would write
    finally:
        subprocess.run(
            _as_server_user([_program("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            check=False,  # the server may already be gone; the folder is removed either way
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """Create an empty database on the server; return its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(make_url(server_url).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return server_url.rsplit("/", 1)[0] + f"/{name}"
