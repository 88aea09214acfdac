"""`starbattle web`'s API, the server started as its own process: it answers what the CLI's --json prints (the CLI
run as a subprocess) on real boards in every input form; bad input of every kind, the fuzz test's mutations included,
is one line with 400, 413 or 422, the CLI's own line where the CLI has one; work past the time limit is 503 and its
worker replaced while /api/health keeps answering; a client with too many requests under way gets 429; SIGTERM and
Ctrl-C stop the server with one line and leave no process.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_fuzz as fuzz
from conftest import REPO, run_starbattle, shared_file
from web_server import STARBATTLE, WebServer, web_server

from starbattle_core.formats import puzzle_to_json, puzzle_to_puzzlink, puzzle_to_text, read_jsonl
from starbattle_core.puzzle import Puzzle, cells_to_coords

TIME_LIMIT = 2.0
CLIENT_LIMIT = 3


def _boards() -> list[Puzzle]:
    tens = [p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if p.size == 10][:2]
    queens = [p for p in read_jsonl(str(shared_file("queens/linkedin.jsonl"))) if p.size == 9][:1]
    handmade = list(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))[:1]
    return tens + queens + handmade


BOARDS = _boards()
# Two solutions: the CLI exits 1 for it, the API still answers 200.
TWO_WAYS = {"id": "two ways", "size": 4, "stars": 1, "regions": ["AABB", "AABB", "CCDD", "CCDD"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    root = tmp_path_factory.mktemp("web")
    (root / "site").mkdir()
    with web_server(root, root / "site", time_limit=TIME_LIMIT, workers=2, client_limit=CLIENT_LIMIT) as running:
        yield running


def cli(server: WebServer, command: str, text: str) -> tuple[int, list[dict[str, Any]], str]:
    """`starbattle COMMAND - --json` as a subprocess with the server's config; (status, objects printed, stderr)."""
    env = {**os.environ, "STARBATTLE_CONFIG": str(server.config)}
    command_line = [STARBATTLE, command, "-", "--json"]
    done = subprocess.run(command_line, check=False, input=text, capture_output=True, text=True, env=env, timeout=300)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def untimed(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "ms"}


def test_the_api_answers_what_the_cli_prints(server: WebServer) -> None:
    objects = [puzzle_to_json(p, p.solution) | {"id": p.id} for p in BOARDS] + [TWO_WAYS]
    lines = "".join(json.dumps(obj) + "\n" for obj in objects)
    for command in ("verify", "solve", "grade", "explain"):
        status, printed, err = cli(server, command, lines)
        assert status in (0, 1) and err == "" and len(printed) == len(objects), (command, status, err)
        for obj, expected in zip(objects, printed, strict=True):
            # The board as a JSON object and as a string of JSON: the same answer (the grader's answers are slow
            # enough to ask once).
            for puzzle in (obj, json.dumps(obj))[: 2 if command in ("verify", "solve") else 1]:
                answered, record = server.post(command, {"puzzle": puzzle})
                assert answered == 200 and untimed(record) == untimed(expected), (command, obj["id"])
    # The other forms the CLI reads: a text picture and a puzz.link URL, each the CLI's stdin as it is.
    board = BOARDS[0]
    for text in (puzzle_to_text(board), puzzle_to_puzzlink(board)):
        status, printed, _ = cli(server, "verify", text)
        answered, record = server.post("verify", {"puzzle": text})
        assert status == 0 and answered == 200 and untimed(record) == untimed(printed[0])


def test_hint_answers_what_the_cli_prints_from_the_players_marks(server: WebServer) -> None:
    cases = []
    for index, puzzle in enumerate(BOARDS):
        assert puzzle.solution is not None
        solution = [list(rc) for rc in cells_to_coords(puzzle.solution, puzzle.size)]
        off = next([r, c] for r in range(puzzle.size) for c in range(puzzle.size) if [r, c] not in solution)
        # Right marks on some boards, a wrong star on the others (the CLI exits 1; the API answers 200).
        marks = {"stars": solution[:2], "empties": []} if index % 2 else {"stars": [off], "empties": []}
        cases.append((puzzle_to_json(puzzle) | {"id": puzzle.id}, marks))
    lines = "".join(json.dumps(obj | {"marks": marks}) + "\n" for obj, marks in cases)
    status, printed, err = cli(server, "hint", lines)
    assert status == 1 and err == "" and {record["status"] for record in printed} == {"step", "wrong"}
    for (obj, marks), expected in zip(cases, printed, strict=True):
        # Marks beside the board, inside it, and the board as a text picture with the marks beside it.
        for body in ({"puzzle": obj, "marks": marks}, {"puzzle": obj | {"marks": marks}}):
            assert server.post("hint", body) == (200, expected)
    picture = puzzle_to_text(BOARDS[1])
    answered, record = server.post("hint", {"puzzle": picture, "marks": cases[1][1]})
    assert answered == 200 and {k: v for k, v in record.items() if k != "id"} == {
        k: v for k, v in printed[1].items() if k != "id"
    }


def _error(answer: tuple[int, Any]) -> tuple[int, str]:
    status, body = answer
    assert isinstance(body, dict) and set(body) == {"error"}, body
    line = body["error"]
    assert "\n" not in line and "Traceback" not in line and str(REPO) not in line, line
    return status, line


def test_bad_input_is_one_line_and_a_client_error(server: WebServer) -> None:
    board = puzzle_to_json(BOARDS[0])
    cases = [
        ("verify", b"{bad", 400, "the body is not JSON (Expecting property name"),
        ("verify", b"", 400, "the body is empty"),
        ("verify", b"[1, 2]", 400, "the body must be a JSON object"),
        ("verify", b"\xff\xfe{", 400, "the body is not"),
        ("verify", b"{}", 422, "the body has no 'puzzle'"),
        ("verify", b'{"puzzle": 5}', 422, "'puzzle' must be a string in any format the CLI reads"),
        ("verify", json.dumps({"puzzle": board, "limit": 3}).encode(), 422, "unknown key 'limit'"),
        ("verify", json.dumps({"puzzle": board, "stars": 0}).encode(), 422, "'stars' must be a whole number"),
        ("verify", b'{"puzzle": "AB\\nBA"}', 422, "puzzle"),
        ("solve", json.dumps({"puzzle": board | {"size": 11}}).encode(), 422, "puzzle:"),
        ("grade", json.dumps({"puzzle": puzzle_to_puzzlink(BOARDS[0]) * 2}).encode(), 422, "puzzle"),
        (
            "explain",
            json.dumps({"puzzle": json.dumps(board) + "\n" + json.dumps(board)}).encode(),
            422,
            "more than one",
        ),
        ("verify", json.dumps({"puzzle": board, "marks": {}}).encode(), 422, "unknown key 'marks'"),
        ("hint", json.dumps({"puzzle": board, "marks": {"stars": [[0, 99]]}}).encode(), 422, "off the 10x10 board"),
        ("hint", json.dumps({"puzzle": board, "marks": {"stars": [[0]]}}).encode(), 422, "[row, col] pairs"),
        ("hint", json.dumps({"puzzle": board, "marks": [1]}).encode(), 422, "'marks' must be an object"),
        ("hint", json.dumps({"puzzle": board | {"marks": {}}, "marks": {}}).encode(), 422, "marks given twice"),
    ]
    for endpoint, raw, expected, words in cases:
        status, line = _error(server.post(endpoint, None, raw=raw))
        assert status == expected and words in line, (endpoint, raw[:60], status, line)
    # The CLI's own line, with the board called "puzzle" where the CLI names its input "<stdin>"; a JSON object in
    # the body, not in a string, has no line to name.
    wrong = json.dumps(board | {"size": 11})
    cli_status, _, err = cli(server, "verify", wrong)
    status, line = _error(server.post("verify", {"puzzle": wrong}))
    assert cli_status == 2 and err.strip() == "error: " + line.replace("puzzle", "<stdin>", 1)
    status, line = _error(server.post("verify", {"puzzle": board | {"size": 11}}))
    assert status == 422 and line == "puzzle: " + err.strip().split(": ", 2)[2]
    status, line = _error(server.post("verify", None, raw=b'{"puzzle": "' + b"A" * (1 << 20) + b'"}'))
    assert status == 413 and "larger than 1 MiB" in line
    assert _error(server.post("nothing", {}))[0] == 404
    assert server.get("api/verify")[0] == 405


class ForcedKind(random.Random):
    """A seeded generator whose draw among a fuzz edit's `kinds` is `kind`, so that every kind of edit is sent."""

    def __init__(self, seed: int, kind: int, kinds: int) -> None:
        super().__init__(seed)
        self.kind, self.kinds = kind, kinds

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        if stop is None and start == self.kinds:
            return self.kind
        return super().randrange(start, stop, step)


def _fuzzed() -> list[str]:
    """Every kind of test_fuzz's edits: its six character and line edits on each of the three formats, and its five
    JSON field edits; seeded."""
    texts = []
    for kind in range(6):
        for form in range(3):
            puzzle = fuzz.SEEDS[(kind + form) % len(fuzz.SEEDS)]
            texts.append(fuzz._mutate(fuzz._rendered(puzzle, form), ForcedKind(kind * 3 + form, kind, 6)))
    return texts + [fuzz._json_field_edit(fuzz.SEEDS[kind], ForcedKind(100 + kind, kind, 5)) for kind in range(5)]


def test_the_fuzz_tests_mutations_get_the_clis_answer(server: WebServer, capsys, monkeypatch) -> None:
    """What the CLI (in-process, for speed) makes of each mutated input, the API makes of it too: the same record,
    or 422 with the CLI's line."""
    refused = 0
    for text in _fuzzed():
        status, out, err = run_starbattle(capsys, "verify", "-", "--json", stdin=text, monkeypatch=monkeypatch)
        answered = server.post("verify", {"puzzle": text})
        if status == 2:
            refused += 1
            code, line = _error(answered)
            assert code == 422 and err.strip() == "error: " + line.replace("puzzle", "<stdin>", 1), (text[:80], line)
        else:
            assert answered[0] == 200 and untimed(answered[1]) == untimed(json.loads(out.splitlines()[0])), text[:80]
    assert refused >= 10  # most edits break the board: the refusals are what this test is about


def _slow_board() -> dict[str, Any]:
    """A 14x14 hard board whose walkthrough takes the grader far longer than the time limit (about 14 s)."""
    rows = (json.loads(line) for line in shared_file("starbattle/archive.jsonl").read_text().splitlines())
    return next(row for row in rows if row["id"] == "8:5386")


def _forkserver_children(pid: int) -> list[int]:
    """The pool's workers: the children of the server's forkserver process."""
    from pipeline_processes import children

    servers = [c for c in children(pid) if b"forkserver" in Path(f"/proc/{c}/cmdline").read_bytes()]
    return [worker for forkserver in servers for worker in children(forkserver)]


def test_work_past_the_time_limit_is_503_and_the_server_keeps_serving(server: WebServer) -> None:
    slow = {"puzzle": _slow_board()}
    answers: list[tuple[int, Any]] = []
    threads = [threading.Thread(target=lambda: answers.append(server.post("explain", slow))) for _ in range(3)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    # Three under way from this client: a fourth is refused at once.
    status, line = _error(server.post("verify", {"puzzle": puzzle_to_json(BOARDS[0])}))
    assert status == 429 and f"{CLIENT_LIMIT} requests of yours are under way" in line
    # The event loop is free: health answers quickly all along.
    while any(thread.is_alive() for thread in threads):
        asked = time.monotonic()
        assert server.get("api/health", timeout=5)[0] == 200
        assert time.monotonic() - asked < 1.0
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    assert [status for status, _ in answers] == [503, 503, 503]
    assert all(f"not finished within {TIME_LIMIT:g} s" in _error(answer)[1] for answer in answers)
    # Two workers: two requests ran at once, the third after a worker was freed; each stopped at the limit.
    assert 2 * TIME_LIMIT <= elapsed < 2 * TIME_LIMIT + 8
    # The killed workers were replaced: the pool answers as before, with its two workers.
    assert server.post("verify", {"puzzle": puzzle_to_json(BOARDS[0])})[0] == 200
    deadline = time.monotonic() + 10
    while len(_forkserver_children(server.process.pid)) != 2:
        assert time.monotonic() < deadline, _forkserver_children(server.process.pid)
        time.sleep(0.2)


def _session_processes(session: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":  # after the name: state, parent, group, session
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize(
    ("how", "status", "line"),
    [("SIGTERM", 143, "error: stopped (SIGTERM)"), ("Ctrl-C", 130, "error: interrupted (Ctrl-C)")],
)
def test_a_stop_is_one_line_and_leaves_no_process(tmp_path: Path, how: str, status: int, line: str) -> None:
    with web_server(tmp_path, tmp_path / "no site yet") as running:
        process = running.process
        # Work under way when the stop comes.
        threading.Thread(target=lambda: running.post("explain", {"puzzle": _slow_board()}), daemon=True).start()
        time.sleep(0.5)
        assert len(_session_processes(process.pid)) >= 4  # the server, the forkserver, two workers
        if how == "SIGTERM":
            process.send_signal(signal.SIGTERM)
        else:  # a terminal's Ctrl-C: SIGINT to every process of the job
            os.killpg(process.pid, signal.SIGINT)
        assert process.wait(20) == status
        assert process.stderr is not None and process.stderr.read() == line + "\n"
        deadline = time.monotonic() + 5
        while _session_processes(process.pid):
            assert time.monotonic() < deadline, _session_processes(process.pid)
            time.sleep(0.1)


def test_the_command_refuses_a_port_in_use_and_a_bad_site_in_one_line(tmp_path: Path, capsys) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, out, err = run_starbattle(capsys, "web", "--port", str(port), "--site", str(tmp_path))
    assert status == 2 and out == "" and err.startswith(f"error: cannot listen on 127.0.0.1 port {port}: ")
    assert len(err.splitlines()) == 1
    status, _, err = run_starbattle(capsys, "web", "--port", "70000")
    assert status == 2 and err == "error: --port 70000: out of range 0..65535 (0: any free port)\n"
    afile = tmp_path / "a file"
    afile.write_text("")
    status, _, err = run_starbattle(capsys, "web", "--site", str(afile))
    assert status == 2 and err == f"error: --site {afile}: not a folder\n"


def _drawn(puzzle: Puzzle, cell: int = 36, margin: int = 30) -> bytes:
    """A board as a plain PNG: thin cell lines, thick region walls and outline (a puzz.link-like drawing)."""
    import io

    from PIL import Image, ImageDraw

    n, side = puzzle.size, puzzle.size * cell
    image = Image.new("RGB", (side + 2 * margin, side + 2 * margin), "white")
    draw = ImageDraw.Draw(image)
    for i in range(n + 1):
        at = margin + i * cell
        draw.line([(margin, at), (margin + side, at)], fill=(170, 170, 170), width=1)
        draw.line([(at, margin), (at, margin + side)], fill=(170, 170, 170), width=1)
    rows = puzzle_to_json(puzzle)["regions"]
    for r in range(n):
        for c in range(n):
            x, y = margin + c * cell, margin + r * cell
            if c + 1 < n and rows[r][c] != rows[r][c + 1]:
                draw.line([(x + cell, y), (x + cell, y + cell)], fill="black", width=4)
            if r + 1 < n and rows[r][c] != rows[r + 1][c]:
                draw.line([(x, y + cell), (x + cell, y + cell)], fill="black", width=4)
    draw.rectangle([margin, margin, margin + side, margin + side], outline="black", width=4)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _multipart(fields: dict[str, tuple[str, bytes] | str]) -> tuple[bytes, str]:
    """A multipart/form-data body of `fields` (a file as (filename, bytes)) and its Content-Type."""
    boundary = "starbattle-test-boundary"
    parts = []
    for name, value in fields.items():
        if isinstance(value, tuple):
            head = f'Content-Disposition: form-data; name="{name}"; filename="{value[0]}"\r\nContent-Type: image/png'
            parts.append(f"--{boundary}\r\n{head}\r\n\r\n".encode() + value[1] + b"\r\n")
        else:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _post_form(server: WebServer, body: bytes, content_type: str) -> tuple[int, Any]:
    import urllib.request

    from web_server import _answer

    request = urllib.request.Request(
        f"{server.url}api/from-image", data=body, headers={"Content-Type": content_type}, method="POST"
    )
    return _answer(request, 60.0)


def test_a_picture_is_read_as_from_image_reads_it(server: WebServer, tmp_path: Path) -> None:
    """POST /api/from-image (the multipart field `image`) answers the JSON `starbattle from-image` prints; what is
    not a picture of a board is one line and 422; a body that is no multipart form 400."""
    puzzle = BOARDS[0]
    picture = tmp_path / "board.png"
    picture.write_bytes(_drawn(puzzle))
    command = [STARBATTLE, "from-image", str(picture)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["regions"] == puzzle_to_json(puzzle)["regions"]
    assert _post_form(server, *_multipart({"image": ("board.png", picture.read_bytes())})) == (200, printed)
    with_options = _multipart({"image": ("board.png", picture.read_bytes()), "stars": "2", "game": "starbattle"})
    assert _post_form(server, *with_options) == (200, printed)
    status, answer = _post_form(server, *_multipart({"image": ("notes.png", b"not a picture at all")}))
    assert (status, answer) == (422, {"error": "the picture is not a PNG, JPEG or WebP picture"})
    status, answer = _post_form(server, *_multipart({"stars": "2"}))
    assert status == 422 and "'image'" in answer["error"]
    status, answer = _post_form(server, b'{"puzzle": "x"}', "application/json")
    assert status == 400 and "multipart" in answer["error"]
