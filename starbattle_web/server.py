"""The web server behind `starbattle web`: the published site at /, the solver page at /solve, the JSON API at /api/.

Starlette answers every request on one event loop and hands the engine's work (reading the board, counting,
grading, drawing: starbattle_web/work.py) to worker processes, so a slow grade never holds up another request, nor
`/api/health`. The workers are a pebble ProcessPool: a task past its time limit is ended by killing its worker, and
the pool starts a fresh one in its place, which neither the standard library's pools (they cannot end one task) nor
loky's (no time limit per task) do. The workers start from a forkserver with the engine already imported: the
server's process has threads (pebble's own, the event loop's), which a plain fork would copy half of.

An answer is the CLI's `--json` object for the one board (200, also where the CLI exits 1: not unique, a wrong
mark); bad input is 400 (the body is not a JSON object) or 422 (the board or the marks) with {"error": line}; a body
over 1 MiB 413 (a picture for /api/from-image, in the multipart field `image`: 16 MiB); a client with too many
requests under way 429; work past `web.time_limit` 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import multiprocessing.forkserver
import signal
from collections import Counter
from collections.abc import AsyncIterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from pebble import ProcessPool
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from starbattle_core.grader import GradingConfig

from . import work

# The largest request body the API reads: a board's JSON is a few kilobytes, a 30x30 text picture under one.
MAX_BODY = 1 << 20
# ... and the largest picture /api/from-image takes (the reader refuses more than 25 megapixels anyway).
MAX_PICTURE = 16 << 20
MAX_DRAINED = 64 << 20
ENDPOINTS = tuple(work.KEYS)
log = logging.getLogger("starbattle.web")


class Refusal(Exception):
    """A request answered without engine work: its HTTP status and the one line of its error."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _refused(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's body as a JSON object, read no further than MAX_BODY."""
    data = bytearray()
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received <= MAX_BODY:
            data += chunk
        elif received > MAX_DRAINED:
            break
    if received > MAX_BODY:
        # Read to its end (up to MAX_DRAINED, not kept) before answering: a client still sending when the
        # connection closes sees a broken pipe, not the answer.
        raise Refusal(413, f"the body is larger than {MAX_BODY // (1 << 20)} MiB, the limit for one request")
    if not data.strip():
        raise Refusal(400, 'the body is empty: send a JSON object like {"puzzle": "..."}')
    try:
        body = json.loads(bytes(data))
    except json.JSONDecodeError as error:
        raise Refusal(400, f"the body is not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except (ValueError, RecursionError) as error:  # not UTF-8, a number too long, absurd nesting
        raise Refusal(400, f"the body is not usable JSON ({type(error).__name__})") from None
    if not isinstance(body, dict):
        raise Refusal(400, f'the body must be a JSON object like {{"puzzle": "..."}}, not a {type(body).__name__}')
    return body


def _worker_context() -> Any:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["starbattle_web.work"])
    return context


def _ready() -> bool:
    return True


def make_app(
    site: Path, *, solve_page: str, grading: GradingConfig, workers: int, time_limit: float, client_limit: int
) -> Starlette:
    """The ASGI application; its worker pool lives as long as the application runs (its lifespan). Its
    `state.stop_work()` ends the work under way, for a server that is told to stop."""
    pools: list[ProcessPool] = []
    under_way: Counter[str] = Counter()
    running: set[Future[Any]] = set()
    stopping: list[bool] = []

    def stop_work() -> None:
        """A stop has come: end the work under way (its requests answer 503 at once), so the server need not wait
        for a long walkthrough before it stops. Safe to call from a signal handler."""
        stopping.append(True)
        # The pool first (it only marks the pool stopped): a pool still running replaces the workers of cancelled
        # work, and a worker forked while the server goes down fails to start and prints a traceback. The
        # lifespan's join ends the workers either way.
        for pool in pools:
            pool.stop()
        for future in list(running):
            future.cancel()

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        pool = ProcessPool(
            max_workers=workers,
            initializer=work.start_worker,
            initargs=(grading.model_dump(mode="json"),),
            context=_worker_context(),
        )
        pools.append(pool)
        # The forkserver starts with Ctrl-C ignored, and its children inherit that from their first instruction: a
        # worker forked while a terminal's Ctrl-C reaches the job (pebble replaces the workers a stop cancels) would
        # otherwise get it before start_worker ignores it, and print a traceback.
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            signal.signal(signal.SIGINT, handler)
        try:
            # The workers start now, not under the first request.
            await asyncio.gather(*(asyncio.wrap_future(pool.schedule(_ready)) for _ in range(workers)))
            yield
        finally:
            pool.stop()
            await asyncio.to_thread(pool.join)

    async def health(_request: Request) -> Response:
        return JSONResponse({"status": "ok", "workers": workers, "under_way": sum(under_way.values())})

    async def api(request: Request) -> Response:
        command = request.path_params["command"]
        if command not in ENDPOINTS:
            return _refused(404, f"no endpoint /api/{command}: the API has {', '.join(ENDPOINTS)} and health")
        if request.method != "POST":
            return _refused(405, f'/api/{command} takes a POST with a JSON body like {{"puzzle": "..."}}')
        try:
            body = await _json_body(request)
        except Refusal as refusal:
            return _refused(refusal.status, str(refusal))
        return await run(request, command, work.answer, command, body)

    async def run(request: Request, command: str, call: Any, *args: Any) -> Response:
        """`call(*args)` in a worker for `request`'s client, within the limits: its (status, JSON) as the answer."""
        client = request.client.host if request.client else "unknown"
        if under_way[client] >= client_limit:
            return _refused(429, f"{client_limit} requests of yours are under way already: wait for their answers")
        if stopping:
            return _refused(503, "the server is stopping: ask again once it is back")
        under_way[client] += 1
        future = pools[0].schedule(call, args=args, timeout=time_limit)
        running.add(future)
        try:
            status, record = await asyncio.wrap_future(future)
        except TimeoutError:
            return _refused(503, f"not finished within {time_limit:g} s (web.time_limit): the work was stopped")
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if stopping and future.cancelled() and task is not None and not task.cancelling():
                return _refused(503, "the server is stopping: the work was stopped; ask again once it is back")
            future.cancel()  # the request itself was cancelled (its client went away): its worker is freed too
            raise
        except Exception:
            log.exception("/api/%s failed", command)
            return _refused(500, "the engine failed on this board (the server's log has the details)")
        finally:
            running.discard(future)
            under_way[client] -= 1
            if not under_way[client]:
                del under_way[client]
        return JSONResponse(record, status_code=status)

    async def from_image(request: Request) -> Response:
        """A picture in the multipart field `image` (and `stars`, `game` as the command's options take them)."""
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return _refused(
                400, "send the picture as a multipart form (multipart/form-data), in the file field 'image'"
            )
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_PICTURE:
            return _refused(413, f"the body is larger than {MAX_PICTURE >> 20} MiB, the limit for a picture")
        try:
            async with request.form(max_files=1, max_fields=4, max_part_size=MAX_PICTURE) as form:
                image = form.get("image")
                if image is None or isinstance(image, str):
                    return _refused(422, "the picture: send it as the multipart file field 'image'")
                data = await image.read()
                stars, game = form.get("stars") or None, form.get("game") or None
        except HTTPException as error:  # not multipart, too many parts, a part too large
            return _refused(400, f"the body is not a usable multipart form ({error.detail})")
        if stars is not None and not (isinstance(stars, str) and stars.isdigit() and int(stars) >= 1):
            return _refused(422, "'stars' must be a whole number of at least 1")
        return await run(request, "from-image", work.picture_answer, data, int(stars) if stars else None, game)

    async def solve(_request: Request) -> Response:
        return HTMLResponse(solve_page)

    routes = [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/from-image", from_image, methods=["POST"]),
        Route("/api/{command}", api, methods=["GET", "POST"]),
        Route("/solve", solve, methods=["GET"]),
        Mount("/", app=StaticFiles(directory=site, html=True, check_dir=False)),
    ]
    application = Starlette(routes=routes, lifespan=lifespan)
    application.state.stop_work = stop_work
    return application
