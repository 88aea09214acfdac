"""`starbattle from-image` on pictures the project's own renderer did not draw (tests/picture_boards.py): puzz.link's
renderer (pzpr under node), newspaper scans and LinkedIn-coloured Queens boards, screenshot by Chromium in pages of
text, at 2x, downscaled and JPEG-compressed. Each must come back as the same partition of cells; what is no board
is refused with one line and status 2. bench/bench_picture.py measures the same on hundreds of pictures.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import run_starbattle
from picture_boards import (
    KINDS,
    LINKEDIN_COLOURS,
    VARIANTS,
    Picture,
    PictureMaker,
    linkedin_html,
    page_html,
    picture_maker,
    shared_boards,
)
from PIL import Image

from starbattle_cli.picture_input import read_board_picture
from starbattle_core.puzzle import InputError, Puzzle

# One board a kind and variant, sizes spread from 6x6 to 18x18 (the largest community Queens level); the bench
# (bench/bench_picture.py) reads hundreds.
SIZES = {
    "puzzlink": [(6,), (9,), (10,), (16,)],
    "newspaper": [(12,), (14,), (15,), (13,)],
    "linkedin": [(7,), (18,), (11,), (8,)],
}
STAR_BATTLE = ("starbattle/archive.jsonl", "starbattle/handmade.jsonl")
QUEENS = ("queens/linkedin.jsonl", "queens/community.jsonl")


def board_of_size(files: tuple[str, ...], size: int, skip: int = 0) -> Puzzle:
    boards = [board for name in files for board in shared_boards(name) if board.size == size]
    return boards[skip % len(boards)]


def boards_to_draw() -> list[tuple[Puzzle, str, str]]:
    wanted = []
    for kind in KINDS:
        for variant, sizes in zip(VARIANTS, SIZES[kind], strict=True):
            for skip, size in enumerate(sizes):
                # Star Battle files have no 9, 12, 13 or 15-18: those sizes come from community Queens levels.
                files = QUEENS if kind == "linkedin" or size in (9, 12, 13, 15, 16, 17, 18) else STAR_BATTLE
                wanted.append((board_of_size(files, size, skip), kind, variant))
    return wanted


@pytest.fixture(scope="module")
def maker() -> Iterator[PictureMaker]:
    with picture_maker() as made:
        yield made


@pytest.fixture(scope="module")
def pictures(maker: PictureMaker) -> list[Picture]:
    return maker.pictures(boards_to_draw(), seed=27)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_reads_the_same_partition(pictures: list[Picture], kind: str, variant: str) -> None:
    for picture in (p for p in pictures if (p.kind, p.variant) == (kind, variant)):
        board = read_board_picture(picture.data, picture.puzzle.stars, picture.puzzle.game, picture.name)
        assert board.puzzle.region_rows() == picture.puzzle.region_rows(), picture.name
        assert (board.solutions, board.exact) == (1, True), board.description
        assert board.description.endswith("unique solution"), board.description


def test_command_prints_the_board_and_says_what_it_read(pictures: list[Picture], tmp_path: Path) -> None:
    """The real command as a subprocess, its output piped into `verify -`: one JSON line in the shared data's form,
    one line on stderr naming the size, how the regions were found, the stars (assumed) and the count."""
    picture = next(p for p in pictures if p.kind == "puzzlink" and p.puzzle.size == 10)
    shot = tmp_path / "shot.png"
    shot.write_bytes(picture.data)
    read = _starbattle("from-image", str(shot))
    assert read.returncode == 0, read.stderr
    record = json.loads(read.stdout)
    assert list(record) == ["game", "size", "stars", "regions"]
    assert record == {"game": "starbattle", "size": 10, "stars": 2, "regions": picture.puzzle.region_rows()}
    assert read.stderr.count("\n") == 1
    assert read.stderr == (
        f"{shot}: read a 10x10 board, regions from thick borders; Star Battle, 2 stars per row, column and region "
        "(assumed: the usual for 10x10); unique solution\n"
    )
    verified = _starbattle("verify", "-", stdin=read.stdout)
    assert verified.returncode == 0 and "unique" in verified.stdout


def test_queens_is_read_from_colours_with_one_queen(
    pictures: list[Picture], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From standard input (`-`), as a screenshot pasted through a pipe."""
    picture = next(p for p in pictures if p.kind == "linkedin" and p.variant == "page")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(picture.data)))
    status, out, err = run_starbattle(capsys, "from-image", "-")
    assert status == 0, err
    assert json.loads(out) == {
        "game": "queens",
        "size": picture.puzzle.size,
        "stars": 1,
        "regions": picture.puzzle.region_rows(),
    }
    assert "regions from colours; Queens, 1 queen per row, column and region (assumed from its colours" in err


def test_given_stars_and_json_report(
    pictures: list[Picture], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = next(p for p in pictures if p.kind == "newspaper" and p.puzzle.size == 14)
    shot = tmp_path / "scan.jpg"
    shot.write_bytes(picture.data)
    status, out, err = run_starbattle(capsys, "from-image", str(shot), "--stars", "3", "--json")
    assert status == 0, err
    assert json.loads(out)["stars"] == 3
    assert json.loads(err) == {
        "picture": str(shot),
        "size": 14,
        "regions_from": "borders",
        "game": "starbattle",
        "game_given": False,
        "stars": 3,
        "stars_given": True,
        "solutions": 1,
        "exact": True,
    }
    status, _, err = run_starbattle(capsys, "from-image", str(shot), "--stars", "2")
    assert status == 0
    assert "2 stars per row, column and region (given); at least 10 solutions: compare the board with" in err


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _refusal(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, name: str = "picture.png") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    status, out, err = run_starbattle(capsys, "from-image", str(path))
    assert status == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"error: {path}") and "Traceback" not in err
    return err


def test_a_page_without_a_board_is_refused(
    maker: PictureMaker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = maker.screenshot(page_html("<p>No puzzle today.</p>", np.random.default_rng(1), "#fff"))
    err = _refusal(capsys, tmp_path, _png(page))
    assert "no board in the picture" in err


def test_colour_groups_short_of_the_regions_are_refused(
    maker: PictureMaker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 10x10 Queens board whose regions A and B (neighbours) are painted alike: nine colour groups."""
    board = board_of_size(QUEENS, 10)
    a_neighbour_of_a = next(
        board.regions[cell + step]
        for cell in range(100)
        for step in (1, 10)
        if board.regions[cell] == 0 and cell + step < 100 and board.regions[cell + step] != 0
    )
    colours = list(LINKEDIN_COLOURS[:10])
    colours[a_neighbour_of_a] = colours[0]
    html, _ = linkedin_html(board, np.random.default_rng(3), tuple(colours))
    page = maker.screenshot(page_html(html, np.random.default_rng(3), "#fff"))
    err = _refusal(capsys, tmp_path, _png(page))
    assert "found 9 colour groups on a 10x10 grid" in err


@pytest.mark.parametrize(
    ("what", "expected"),
    [
        ("text", "is not a PNG, JPEG or WebP picture"),
        ("empty", "is empty"),
        ("cut PNG", "is damaged or cut short"),
        ("cut JPEG", "is damaged or cut short"),
        ("huge", "is 6000x5000 pixels, more than the 25 million read at most"),
        ("tiny", "too small to hold a board"),
    ],
)
def test_what_is_no_picture_is_refused(
    pictures: list[Picture], tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, expected: str
) -> None:
    png = next(p.data for p in pictures if p.data.startswith(b"\x89PNG"))
    jpeg = next(p.data for p in pictures if p.data.startswith(b"\xff\xd8"))
    data = {
        "text": b'{"game": "queens"}\n',
        "empty": b"",
        "cut PNG": png[: len(png) // 2],
        "cut JPEG": jpeg[: len(jpeg) // 2],
        # Not decoded: the header's size is checked first (30 million pixels in a file of a few kilobytes).
        "huge": _png(Image.new("1", (6000, 5000))),
        "tiny": _png(Image.new("RGB", (20, 20), "white")),
    }[what]
    assert expected in _refusal(capsys, tmp_path, data)


def test_a_missing_file_and_a_bad_option_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_starbattle(capsys, "from-image", str(tmp_path / "none.png"))
    assert status == 2 and err == f"error: cannot read {tmp_path / 'none.png'}: No such file or directory\n"
    with pytest.raises(InputError, match="--game 'sudoku': expected one of starbattle, queens"):
        read_board_picture(b"", game="sudoku")


def _starbattle(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    code = "from starbattle_cli.app import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )
