"""`starbattle web`: the published site, the solver page and the JSON API on one port (starbattle_web/, docs/web.md)."""

from __future__ import annotations

import socket
from pathlib import Path
from types import FrameType

import typer

from starbattle_core.puzzle import InputError

# This module's commands; starbattle_cli/app.py adds them to the `starbattle` command.
commands = typer.Typer()

DEFAULT_SITE = "data/site"


def _listening(host: str, port: int) -> socket.socket:
    """The server's socket, bound here so that a port in use is one clear line before anything starts."""
    if not 0 <= port <= 65535:
        raise InputError(f"--port {port}: out of range 0..65535 (0: any free port)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # Named TCP, not left at 0: asyncio then turns Nagle's algorithm off on every connection it accepts (a response's
    # second write waited 40 ms for the client's delayed ACK on a kept-alive connection).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as error:
        sock.close()
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise InputError(f"cannot listen on {host} port {port}: {reason}") from None
    sock.listen(512)
    return sock


@commands.command()
def web(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback by default; docs/web.md)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port, printed at start)."),
    site: str | None = typer.Option(
        None, "--site", help="The published site's folder (default: pipeline.site_dir of the config, else data/site)."
    ),
) -> None:
    """Serve the published site at /, the solver page at /solve and the JSON API at /api/ on one port.

    The API answers what the CLI's --json prints for one board: POST /api/verify, /api/solve, /api/grade,
    /api/explain, /api/hint with {"puzzle": ...}. Ctrl-C or SIGTERM stops it.
    """
    import uvicorn

    from flows.settings import PROJECT, load_settings
    from starbattle_web.server import make_app
    from starbattle_web.site import solve_page

    settings = load_settings()
    folder = Path(site) if site is not None else settings.pipeline.resolved_site_dir() or PROJECT / DEFAULT_SITE
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--site {folder}: not a folder")
    sock = _listening(host, port)
    limits = settings.web
    application = make_app(
        folder,
        solve_page=solve_page(),
        grading=settings.grading,
        workers=limits.workers,
        time_limit=limits.time_limit,
        client_limit=limits.client_limit,
    )
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    published = "" if folder.is_dir() else " (nothing published there yet)"
    typer.echo(
        f"serving http://{shown}:{bound_port}/ : the site from {folder}{published}, the solver page at /solve, "
        f"the API at /api/; {limits.workers} workers, {limits.time_limit:g} s a request; Ctrl-C stops it"
    )

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # A stop does not wait for the work under way (a 14x14 walkthrough takes seconds): it is ended, and
            # its requests answer 503, before uvicorn waits for the open requests.
            application.state.stop_work()
            super().handle_exit(sig, frame)

    server = Server(uvicorn.Config(application, log_level="warning", access_log=False, timeout_graceful_shutdown=5))
    server.run(sockets=[sock])
